import { createPrivateKey, createPublicKey, scryptSync, type KeyObject } from 'node:crypto'
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js'
import { isObject, jsonValue } from '../shared/json-text.js'
import { isProblem, type Problem } from '../shared/problem.js'
import {
  ENCRYPTED_LABELS,
  pemBlocks,
  pemLines,
  type PemBlock,
  signingKeyShapeProblem,
  SIGNING_KEY_EXPECTED,
} from './pem.js'
import { parsePublicKey, type PublicKeyInfo } from './public-key.js'

/**
 * The private key of `signing-key`, as `cosign generate-key-pair` writes it (cosign.key): an
 * `ENCRYPTED SIGSTORE PRIVATE KEY` PEM block (`ENCRYPTED COSIGN PRIVATE KEY` before cosign 2)
 * whose body is a JSON envelope (go-securesystemslib's `encrypted` package): the key's PKCS #8 DER,
 * sealed by NaCl's secretbox (XSalsa20-Poly1305) under a key that scrypt derives from the
 * password. Or a key that is not encrypted: `EC PRIVATE KEY` (SEC 1) or `PRIVATE KEY` (PKCS #8).
 * Only ECDSA P-256, the key cosign makes. Node's crypto does scrypt and ECDSA; the secretbox is
 * @noble/ciphers' XSalsa20-Poly1305 (audited, no dependencies, maintained).
 */

/**
 * scrypt's cost as cosign sets it is N=32768…65536, r=8, p=1 (64 MiB, a fraction of a second).
 * Anything far above could keep the step busy for minutes or exhaust the runner's memory.
 */
const MAX_SCRYPT_MEMORY = 512 * 1024 * 1024
const MAX_SCRYPT_P = 16

/** A signing key ready to sign, and what must be masked wherever it could show. */
export interface SigningKey {
  privateKey: KeyObject
  publicKey: PublicKeyInfo
  encrypted: boolean
  /** The forms the key's secret takes once opened: masked like the input (see signingKeySecrets). */
  secrets: string[]
}

/** Which input a problem is about: a wrong password is the password's problem. */
export interface KeyProblem extends Problem {
  input: 'signing-key' | 'signing-key-password'
}

/** The signing key, opened with the password when it is encrypted; never quotes either. */
export function openSigningKey(text: string, password: string): SigningKey | KeyProblem {
  const shape = signingKeyShapeProblem(text)
  if (shape) return { input: 'signing-key', problem: shape }
  const block = pemBlocks(text)[0] as PemBlock
  const encrypted = ENCRYPTED_LABELS.includes(block.label)
  const opened = encrypted ? decrypt(block.body, password) : plainKey(block)
  if (isProblem(opened)) return opened
  const problem = curveProblem(opened.key)
  if (problem) return { input: 'signing-key', problem }
  const publicKey = parsePublicKey(
    createPublicKey(opened.key).export({ format: 'pem', type: 'spki' }).toString(),
  )
  if (isProblem(publicKey)) return { input: 'signing-key', problem: publicKey.problem }
  return {
    privateKey: opened.key,
    publicKey,
    encrypted,
    secrets: [...opened.secrets, ...keySecrets(opened.key)],
  }
}

type Opened = { key: KeyObject; secrets: string[] } | KeyProblem

function plainKey(block: { label: string; body: string }): Opened {
  try {
    const der = Buffer.from(block.body, 'base64')
    const type = block.label === 'EC PRIVATE KEY' ? 'sec1' : 'pkcs8'
    return { key: createPrivateKey({ key: der, format: 'der', type }), secrets: [] }
  } catch {
    return {
      input: 'signing-key',
      problem: `is a '${block.label}' PEM block that cannot be read as a key (damaged, cut short, or encrypted in a way other than cosign's); expected ${SIGNING_KEY_EXPECTED}`,
    }
  }
}

const DAMAGED =
  'is an encrypted cosign key whose envelope cannot be read (damaged or cut short); copy cosign.key again, whole'

function decrypt(body: string, password: string): Opened {
  const envelope = readEnvelope(body)
  if (typeof envelope === 'string') return { input: 'signing-key', problem: envelope }
  const { N, r, p } = envelope.params
  let secretKey: Buffer
  try {
    secretKey = scryptSync(Buffer.from(password, 'utf8'), envelope.salt, 32, {
      N,
      r,
      p,
      maxmem: MAX_SCRYPT_MEMORY,
    })
  } catch {
    return { input: 'signing-key', problem: DAMAGED }
  }
  let der: Uint8Array
  try {
    der = xsalsa20poly1305(secretKey, envelope.nonce).decrypt(envelope.ciphertext)
  } catch {
    return {
      input: 'signing-key-password',
      problem:
        "does not open 'signing-key': the key's authentication fails with it. Give the password that `cosign generate-key-pair` was given (COSIGN_PASSWORD; empty if none was)",
    }
  }
  const secrets = [secretKey.toString('hex'), secretKey.toString('base64')]
  try {
    const key = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' })
    return { key, secrets }
  } catch {
    return { input: 'signing-key', problem: DAMAGED }
  }
}

interface Envelope {
  params: { N: number; r: number; p: number }
  salt: Buffer
  nonce: Buffer
  ciphertext: Buffer
}

/** The JSON envelope of an encrypted key, or why it is not one this step opens. */
function readEnvelope(body: string): Envelope | string {
  const document = jsonValue(Buffer.from(body, 'base64').toString('utf8'))
  if (!isObject(document) || !isObject(document.kdf) || !isObject(document.cipher)) return DAMAGED
  const { kdf, cipher } = document
  if (kdf.name !== 'scrypt' || cipher.name !== 'nacl/secretbox')
    return `is encrypted with '${String(kdf.name)}' and '${String(cipher.name)}'; expected cosign's 'scrypt' and 'nacl/secretbox'`
  const params = isObject(kdf.params) ? kdf.params : {}
  const { N, r, p } = params
  if (!isCount(N) || !isCount(r) || !isCount(p)) return DAMAGED
  if ((N & (N - 1)) !== 0 || N < 2 || 128 * N * r > MAX_SCRYPT_MEMORY / 2 || p > MAX_SCRYPT_P)
    return `asks scrypt for N=${N}, r=${r}, p=${p}, beyond what cosign writes (N up to 65536, r=8, p=1) and what this step spends on a key; make it again with \`cosign generate-key-pair\``
  const salt = base64Field(kdf.salt)
  const nonce = base64Field(cipher.nonce)
  const ciphertext = base64Field(document.ciphertext)
  if (!salt || !nonce || nonce.length !== 24 || !ciphertext || ciphertext.length <= 16)
    return DAMAGED
  return { params: { N, r, p }, salt, nonce, ciphertext }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

function base64Field(value: unknown): Buffer | undefined {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return undefined
  return Buffer.from(value, 'base64')
}

function curveProblem(key: KeyObject): string | undefined {
  if (key.asymmetricKeyType !== 'ec')
    return `is a '${key.asymmetricKeyType}' key; expected an ECDSA P-256 key, as \`cosign generate-key-pair\` makes`
  const curve = key.asymmetricKeyDetails?.namedCurve
  if (curve !== 'prime256v1') return `is an ECDSA key on the curve '${curve}'; expected P-256`
  return undefined
}

/** The key's secret as it could be printed: its DER in PEM bodies, its scalar (JWK, hex). */
function keySecrets(key: KeyObject): string[] {
  const pkcs8 = key.export({ format: 'der', type: 'pkcs8' }).toString('base64')
  const sec1 = key.export({ format: 'der', type: 'sec1' }).toString('base64')
  const { d } = key.export({ format: 'jwk' })
  const scalar = d ? [d, Buffer.from(d, 'base64url').toString('hex')] : []
  return [pkcs8, ...pemLines(pkcs8), sec1, ...pemLines(sec1), ...scalar]
}
