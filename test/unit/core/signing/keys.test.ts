import { describe, expect, test } from '@jest/globals'
import { generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { openSigningKey, type SigningKey } from '../../../../src/core/signing/private-key.js'
import {
  privateKeySecrets,
  signingKeySecrets,
  signingKeyShapeProblem,
} from '../../../../src/core/signing/pem.js'
import { parsePublicKey } from '../../../../src/core/signing/public-key.js'
import { keySigner, keyVerifier } from '../../../../src/core/signing/signer.js'
import { fixture } from '../../../helpers/run-action.js'

// `COSIGN_PASSWORD=secretpw cosign generate-key-pair` (test/fixtures/cosign/README.md).
const COSIGN_KEY = readFileSync(fixture('cosign', 'cosign.key'), 'utf8')
const COSIGN_PUB = readFileSync(fixture('cosign', 'cosign.pub'), 'utf8')
const OTHER_PUB = readFileSync(fixture('cosign', 'other.pub'), 'utf8')
const PAYLOAD = readFileSync(fixture('cosign', 'payload-with-annotation.txt'))
const COSIGN_SIGNATURE =
  'MEUCIEaIZSgBONuFfz2HJ8f0sBpvmMOkiMLoVx2qHyVNTqxNAiEA1w84HLY6LomY3x7IHR3dgKkvgho2MA/WlLWhMk9xlsI='
const SIGNATURE = 'dev.cosignproject.cosign/signature'
const EXPECTED_KEY =
  "the private key that `cosign generate-key-pair` writes (cosign.key, '-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----' …), or an unencrypted ECDSA P-256 key in PEM ('EC PRIVATE KEY' or 'PRIVATE KEY')"

function opened(text: string, password: string): SigningKey {
  const key = openSigningKey(text, password)
  if (isProblem(key)) throw new Error(key.problem)
  return key
}

function pem(label: string, body: string): string {
  return `-----BEGIN ${label}-----\n${body.match(/.{1,64}/g)?.join('\n')}\n-----END ${label}-----\n`
}

function envelope(document: unknown): string {
  return pem(
    'ENCRYPTED SIGSTORE PRIVATE KEY',
    Buffer.from(JSON.stringify(document)).toString('base64'),
  )
}

describe('signing keys as cosign generate-key-pair writes them', () => {
  test('an encrypted key opens with its password: its public key is cosign.pub', () => {
    const key = opened(COSIGN_KEY, 'secretpw')
    const pub = parsePublicKey(COSIGN_PUB)
    if (isProblem(pub)) throw new Error(pub.problem)
    expect(key.encrypted).toBe(true)
    expect(key.publicKey.shown).toBe(pub.shown)
    expect(key.publicKey.shown).toMatch(/^ECDSA P-256 key sha256:[0-9a-f]{16}$/)
  })

  test('a wrong password is the password input’s problem, worded without the key', () => {
    expect(openSigningKey(COSIGN_KEY, 'secretpW')).toEqual({
      input: 'signing-key-password',
      problem:
        "does not open 'signing-key': the key's authentication fails with it. Give the password that `cosign generate-key-pair` was given (COSIGN_PASSWORD; empty if none was)",
    })
  })

  test('the key cosign signed with signs what cosign verifies, and ours verifies under cosign.pub', async () => {
    const key = opened(COSIGN_KEY, 'secretpw')
    const signer = keySigner(key.privateKey, key.publicKey, 'signing-key')
    const annotations = await signer.sign(PAYLOAD)
    expect(annotations[SIGNATURE]).toMatch(/^MEU|^MEQ|^MEY/)
    const pub = parsePublicKey(COSIGN_PUB)
    if (isProblem(pub)) throw new Error(pub.problem)
    const verifier = keyVerifier(pub, 'verify-signatures')
    expect(await verifier.verify(PAYLOAD, annotations)).toBe(true)
    expect(await verifier.verify(PAYLOAD, { [SIGNATURE]: COSIGN_SIGNATURE })).toBe(true)
    // One byte changed, another key, a damaged or missing signature: refused.
    const changed = Buffer.from(PAYLOAD.toString('utf8').replace('abc', 'abd'))
    expect(await verifier.verify(changed, annotations)).toBe(false)
    const other = parsePublicKey(OTHER_PUB)
    if (isProblem(other)) throw new Error(other.problem)
    expect(await keyVerifier(other, 'x').verify(PAYLOAD, annotations)).toBe(false)
    expect(await verifier.verify(PAYLOAD, { [SIGNATURE]: 'bm90IGEgc2lnbmF0dXJl' })).toBe(false)
    expect(await verifier.verify(PAYLOAD, { [SIGNATURE]: 'not base64!' })).toBe(false)
    expect(await verifier.verify(PAYLOAD, {})).toBe(false)
  })

  test('the masked forms: the PEM body whole and line by line, and the opened key’s forms', () => {
    const key = opened(COSIGN_KEY, 'secretpw')
    const lines = COSIGN_KEY.split('\n').filter((line) => line !== '' && !line.startsWith('-----'))
    expect(signingKeySecrets(COSIGN_KEY)).toEqual([lines.join(''), ...lines])
    const pkcs8 = key.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')
    const d = key.privateKey.export({ format: 'jwk' }).d ?? ''
    expect(key.secrets).toEqual(
      expect.arrayContaining([pkcs8, d, Buffer.from(d, 'base64url').toString('hex')]),
    )
    expect(signingKeySecrets('no pem here')).toEqual([])
  })
})

describe('unencrypted PEM keys', () => {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  test.each([
    ['EC PRIVATE KEY (SEC 1)', pair.privateKey.export({ format: 'pem', type: 'sec1' }).toString()],
    ['PRIVATE KEY (PKCS #8)', pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()],
  ])('%s opens without a password, and signs', async (_label, text) => {
    const key = opened(text, '')
    expect(key.encrypted).toBe(false)
    const signer = keySigner(key.privateKey, key.publicKey, 'signing-key')
    const pub = parsePublicKey(pair.publicKey.export({ format: 'pem', type: 'spki' }).toString())
    if (isProblem(pub)) throw new Error(pub.problem)
    expect(await keyVerifier(pub, 'x').verify(PAYLOAD, await signer.sign(PAYLOAD))).toBe(true)
  })
})

describe('what signing-key refuses, naming the input, never quoting the key', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
  const cases: Array<[string, string, string, string]> = [
    [
      'garbage',
      'a-token-pasted-by-mistake',
      'signing-key',
      `holds no complete PEM block; expected ${EXPECTED_KEY}`,
    ],
    [
      'the public key',
      COSIGN_PUB,
      'signing-key',
      "is a public key (cosign.pub); give the private key (cosign.key) here, and its public key to deploy's 'verify-signatures'",
    ],
    [
      'two keys',
      `${COSIGN_KEY}\n${COSIGN_KEY}`,
      'signing-key',
      `holds 2 PEM blocks; expected one private key, ${EXPECTED_KEY}`,
    ],
    [
      'an RSA key',
      rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      'signing-key',
      "is a 'rsa' key; expected an ECDSA P-256 key, as `cosign generate-key-pair` makes",
    ],
    [
      'a P-384 key',
      p384.privateKey.export({ format: 'pem', type: 'sec1' }).toString(),
      'signing-key',
      "is an ECDSA key on the curve 'secp384r1'; expected P-256",
    ],
    [
      'a damaged PKCS #8 body',
      pem('PRIVATE KEY', Buffer.from('not a key at all').toString('base64')),
      'signing-key',
      `is a 'PRIVATE KEY' PEM block that cannot be read as a key (damaged, cut short, or encrypted in a way other than cosign's); expected ${EXPECTED_KEY}`,
    ],
    [
      'a damaged envelope',
      envelope({ kdf: {} }),
      'signing-key',
      'is an encrypted cosign key whose envelope cannot be read (damaged or cut short); copy cosign.key again, whole',
    ],
    [
      'another cipher',
      envelope({ kdf: { name: 'pbkdf2' }, cipher: { name: 'aes-gcm' } }),
      'signing-key',
      "is encrypted with 'pbkdf2' and 'aes-gcm'; expected cosign's 'scrypt' and 'nacl/secretbox'",
    ],
    [
      'a scrypt cost that would take the runner’s memory',
      envelope({
        kdf: { name: 'scrypt', params: { N: 2 ** 22, r: 8, p: 1 }, salt: 'c2FsdA==' },
        cipher: { name: 'nacl/secretbox', nonce: Buffer.alloc(24).toString('base64') },
        ciphertext: Buffer.alloc(64).toString('base64'),
      }),
      'signing-key',
      'asks scrypt for N=4194304, r=8, p=1, beyond what cosign writes (N up to 65536, r=8, p=1) and what this step spends on a key; make it again with `cosign generate-key-pair`',
    ],
  ]
  test.each(cases)('%s', (_name, text, input, problem) => {
    expect(openSigningKey(text, 'pw')).toEqual({ input, problem })
  })

  test('the input’s own parser tells what is no private key PEM at all, before any password', () => {
    for (const [name, text, , problem] of cases.slice(0, 3))
      expect({ name, problem: signingKeyShapeProblem(text) }).toEqual({ name, problem })
    for (const [name, text] of cases.slice(3))
      expect({ name, problem: signingKeyShapeProblem(text) }).toEqual({ name, problem: undefined })
  })
})

describe('public keys for verify-signatures', () => {
  test('cosign.pub, and the kinds cosign verifies with', () => {
    expect(parsePublicKey(COSIGN_PUB)).toEqual({
      key: expect.anything(),
      shown: expect.stringMatching(/^ECDSA P-256 key sha256:[0-9a-f]{16}$/),
    })
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const ed = generateKeyPairSync('ed25519')
    const spki = (key: typeof rsa.publicKey): string =>
      key.export({ format: 'pem', type: 'spki' }).toString()
    expect(parsePublicKey(spki(rsa.publicKey))).toMatchObject({
      shown: expect.stringMatching(/^RSA 2048 key/),
    })
    expect(parsePublicKey(spki(ed.publicKey))).toMatchObject({
      shown: expect.stringMatching(/^Ed25519 key/),
    })
  })

  test('Ed25519 and RSA signatures as cosign makes them verify', async () => {
    for (const pair of [
      generateKeyPairSync('ed25519'),
      generateKeyPairSync('rsa', { modulusLength: 2048 }),
    ]) {
      const text = pair.publicKey.export({ format: 'pem', type: 'spki' }).toString()
      const pub = parsePublicKey(text)
      if (isProblem(pub)) throw new Error(pub.problem)
      const { sign } = await import('node:crypto')
      const hash = pair.publicKey.asymmetricKeyType === 'ed25519' ? null : 'sha256'
      const signature = sign(hash, PAYLOAD, pair.privateKey).toString('base64')
      expect(await keyVerifier(pub, 'x').verify(PAYLOAD, { [SIGNATURE]: signature })).toBe(true)
    }
  })

  test.each([
    [
      'no PEM',
      'cosign.pub',
      "holds no complete PEM block; expected a public key in PEM, '-----BEGIN PUBLIC KEY-----' … (the cosign.pub that `cosign generate-key-pair` writes), or the path of that file in the workspace",
    ],
    [
      'a private key',
      COSIGN_KEY,
      "is a private key ('ENCRYPTED SIGSTORE PRIVATE KEY'), which must stay secret; give its public key (cosign.pub, or `cosign public-key --key cosign.key`)",
    ],
    [
      'two keys',
      `${COSIGN_PUB}${OTHER_PUB}`,
      "holds 2 PEM blocks; expected one public key, '-----BEGIN PUBLIC KEY-----'",
    ],
    [
      'a damaged key',
      pem('PUBLIC KEY', 'AAAA'),
      'is a PEM public key that cannot be read (damaged or cut short)',
    ],
    [
      'a short RSA key',
      generateKeyPairSync('rsa', { modulusLength: 1024 })
        .publicKey.export({ format: 'pem', type: 'spki' })
        .toString(),
      'is an RSA key of 1024 bits; expected 2048 or more',
    ],
  ])('refused: %s', (_name, text, problem) => {
    expect(parsePublicKey(text)).toEqual({ problem })
  })

  test('a private key pasted where the public key belongs is masked, line by line', () => {
    const lines = COSIGN_KEY.split('\n').filter((line) => line !== '' && !line.startsWith('-----'))
    expect(privateKeySecrets(COSIGN_KEY)).toEqual([lines.join(''), ...lines])
    expect(privateKeySecrets(COSIGN_PUB)).toEqual([])
  })
})
