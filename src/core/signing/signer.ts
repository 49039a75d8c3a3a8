import { sign, verify, type KeyObject } from 'node:crypto'
import { SIGNATURE_ANNOTATION } from './cosign-layout.js'
import type { PublicKeyInfo } from './public-key.js'

/**
 * Signing and checking stand behind these two interfaces, so that a signer of another kind fits
 * beside the key: keyless signing (Sigstore, with the CI's OIDC token) would get a short-lived
 * certificate from Fulcio, record the signature in Rekor, and add the certificate, its chain and
 * the Rekor bundle as the layer's other annotations (`dev.sigstore.cosign/certificate`, `/chain`,
 * `/bundle`); its verifier would check those against Sigstore's roots and an expected identity.
 * Only the key exists today.
 */
export interface Signer {
  /** For the log: `the key of 'signing-key' (ECDSA P-256 key sha256:…)`. */
  readonly shown: string
  /** Accepts what this signer makes: finds the images signed already, checks what was written. */
  readonly verifier: SignatureVerifier
  /** The annotations of the payload's layer: the signature, and whatever else checks it. */
  sign(payload: Buffer): Promise<Record<string, string>>
}

export interface SignatureVerifier {
  /** For messages: `the key of 'verify-signatures' (ECDSA P-256 key sha256:…)`. */
  readonly shown: string
  /** Whether the layer's annotations hold a signature of `payload` that this verifier accepts. */
  verify(payload: Buffer, annotations: Readonly<Record<string, string>>): Promise<boolean>
}

/** Checks the base64 DER signature of the annotation against a public key, as cosign does. */
export function keyVerifier(publicKey: PublicKeyInfo, input: string): SignatureVerifier {
  return {
    shown: `the key of '${input}' (${publicKey.shown})`,
    verify: (payload, annotations) => {
      const encoded = annotations[SIGNATURE_ANNOTATION]
      if (typeof encoded !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded))
        return Promise.resolve(false)
      const signature = Buffer.from(encoded, 'base64')
      try {
        return Promise.resolve(verify(hashOf(publicKey.key), payload, publicKey.key, signature))
      } catch {
        // A signature that is no DER structure, or of the wrong size for the key.
        return Promise.resolve(false)
      }
    },
  }
}

/** Signs with a private key: ECDSA with SHA-256, the signature DER-encoded, as cosign does. */
export function keySigner(privateKey: KeyObject, publicKey: PublicKeyInfo, input: string): Signer {
  return {
    shown: `the key of '${input}' (${publicKey.shown})`,
    verifier: keyVerifier(publicKey, input),
    sign: (payload) =>
      Promise.resolve({
        [SIGNATURE_ANNOTATION]: sign(hashOf(privateKey), payload, privateKey).toString('base64'),
      }),
  }
}

/** SHA-256, as cosign's key verifiers use; Ed25519 hashes inside its own scheme. */
function hashOf(key: KeyObject): string | null {
  return key.asymmetricKeyType === 'ed25519' ? null : 'sha256'
}
