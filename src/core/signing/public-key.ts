import { createHash, createPublicKey, type KeyObject } from 'node:crypto'
import type { Problem } from '../shared/problem.js'
import { pemBlocks } from './pem.js'

/**
 * A public key that checks signatures, as `cosign verify --key` takes it: a PEM `PUBLIC KEY`
 * (cosign.pub). cosign hashes with SHA-256 for ECDSA and RSA (PKCS #1 v1.5) keys; Ed25519
 * signs the payload itself.
 */
export interface PublicKeyInfo {
  key: KeyObject
  /** For messages: `ECDSA P-256 key sha256:1a2b3c4d5e6f7a8b`. */
  shown: string
}

export const PUBLIC_KEY_EXPECTED =
  "a public key in PEM, '-----BEGIN PUBLIC KEY-----' … (the cosign.pub that `cosign generate-key-pair` writes), or the path of that file in the workspace"

/** The public key of a PEM text, or why it is none; never quotes the text. */
export function parsePublicKey(text: string): PublicKeyInfo | Problem {
  const blocks = pemBlocks(text)
  const [block, ...others] = blocks
  if (!block) return { problem: `holds no complete PEM block; expected ${PUBLIC_KEY_EXPECTED}` }
  if (others.length > 0)
    return {
      problem: `holds ${blocks.length} PEM blocks; expected one public key, '-----BEGIN PUBLIC KEY-----'`,
    }
  if (/PRIVATE KEY/.test(block.label))
    return {
      problem: `is a private key ('${block.label}'), which must stay secret; give its public key (cosign.pub, or \`cosign public-key --key cosign.key\`)`,
    }
  if (block.label !== 'PUBLIC KEY')
    return {
      problem: `is a '${block.label}' PEM block; expected ${PUBLIC_KEY_EXPECTED}`,
    }
  let key: KeyObject
  try {
    key = createPublicKey({ key: Buffer.from(block.body, 'base64'), format: 'der', type: 'spki' })
  } catch {
    return { problem: 'is a PEM public key that cannot be read (damaged or cut short)' }
  }
  const kind = keyKind(key)
  if (typeof kind !== 'string') return kind
  return { key, shown: `${kind} key ${keyId(key)}` }
}

/** ECDSA (NIST curves), RSA of 2048 bits or more, Ed25519: the keys cosign verifies with. */
function keyKind(key: KeyObject): string | Problem {
  const details = key.asymmetricKeyDetails
  switch (key.asymmetricKeyType) {
    case 'ec': {
      const curve = CURVES[details?.namedCurve ?? '']
      return curve
        ? `ECDSA ${curve}`
        : { problem: `is an ECDSA key on the curve '${details?.namedCurve}'; expected P-256` }
    }
    case 'rsa':
      return (details?.modulusLength ?? 0) >= 2048
        ? `RSA ${details?.modulusLength}`
        : { problem: `is an RSA key of ${details?.modulusLength} bits; expected 2048 or more` }
    case 'ed25519':
      return 'Ed25519'
    default:
      return {
        problem: `is a '${key.asymmetricKeyType}' key; expected an ECDSA P-256 key, as \`cosign generate-key-pair\` makes`,
      }
  }
}

const CURVES: Record<string, string> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
}

/** `sha256:` and the first 16 hex digits of the key's DER (SubjectPublicKeyInfo): to tell keys apart. */
export function keyId(key: KeyObject): string {
  const der = key.export({ format: 'der', type: 'spki' })
  return `sha256:${createHash('sha256').update(der).digest('hex').slice(0, 16)}`
}
