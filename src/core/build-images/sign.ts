import { FINGERPRINT_LABEL } from '../shared/image-labels.js'
import { signImageDigests, type SignOptions, type SignPorts } from '../signing/sign-images.js'
import type { BuiltImage } from './build.js'
import type { ImagePlan } from './plan/plan.js'

/**
 * build-images' use of the signing library (src/core/signing): each image this run pushed or
 * gave its tags, signed with its fingerprint, as signImageDigests signs any image.
 */

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
    name: image.kind,
    reference: image.reference,
    digest: image.digest,
    fingerprint: image.reused?.fingerprint ?? fingerprintOf(built, image.kind),
  }))
  return signImageDigests(toSign, options, ports)
}

/** The fingerprint label the image was built with; undefined when it has none. */
function fingerprintOf(built: readonly ImagePlan[], kind: string): string | undefined {
  const plan = built.find((each) => each.kind === kind)
  return plan?.command.labels.find(([name]) => name === FINGERPRINT_LABEL)?.[1]
}
