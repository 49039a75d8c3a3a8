import { FINGERPRINT_LABEL } from '../shared/image-labels.js'
import type { SigningKey } from '../signing/private-key.js'
import { signImageDigests, type SignOptions, type SignPorts } from '../signing/sign-images.js'
import { keyVerifier } from '../signing/signer.js'
import type { BuiltImage } from './build.js'
import type { ImagePlan } from './plan/plan.js'
import type { ReuseProof } from './reuse/proof.js'
import { signatureProof } from './reuse/signature-proof.js'

/**
 * build-images' use of the signing library (src/core/signing), with 'signing-key': each image
 * this run pushed or gave its tags signed with its fingerprint, as signImageDigests signs any
 * image, and the proof reuse asks of a candidate (a signature under the key). The step loads it
 * only when there is a key: src/actions/build-images.ts gives it as the `signing` port.
 */
export interface KeySigning {
  signImages: typeof signImages
  keyProof: typeof keyProof
}

/** Proof (a) of reuse: a signature under `signing-key` whose payload carries the fingerprint. */
export function keyProof(signingKey: SigningKey): ReuseProof {
  return signatureProof(keyVerifier(signingKey.publicKey, 'signing-key'))
}

/**
 * Signs every image of `images`: a reused image with the fingerprint it was found with, a built
 * one with the fingerprint label of its plan in `built`; resolves to what the summary says.
 */
export function signImages(
  images: readonly BuiltImage[],
  built: readonly ImagePlan[],
  options: SignOptions,
  ports: SignPorts,
): Promise<string> {
  const toSign = images.map((image) => ({
    name: image.id,
    reference: image.reference,
    digest: image.digest,
    fingerprint: image.reused?.fingerprint ?? fingerprintOf(built, image.id),
  }))
  return signImageDigests(toSign, options, ports)
}

/** The fingerprint label the image was built with; undefined when it has none. */
function fingerprintOf(built: readonly ImagePlan[], id: string): string | undefined {
  const plan = built.find((each) => each.id === id)
  return plan?.command.labels.find(([name]) => name === FINGERPRINT_LABEL)?.[1]
}
