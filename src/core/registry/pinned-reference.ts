import { parseImageReference } from '../shared/image-ref.js'
import type { Problem } from '../shared/problem.js'
import { validDigest } from './manifests.js'

/**
 * An image reference bound to the manifest the image check read and hashed. A tag can be moved
 * to another image at any time, and two requests for it can be answered differently; a digest
 * names one manifest, byte for byte. What deploy sends when it pins, and what is checked about an
 * image (its signatures, its labels) is checked for `digest`.
 */
export interface PinnedReference {
  /** The reference as given: an input, or `payload-file`. */
  given: string
  /** The digest of the manifest (or index) whose bytes were read and hashed. */
  digest: string
  /**
   * The reference that names that manifest: `<name>:<tag>@<digest>`, the tag kept for people (a
   * registry pulls by the digest alone); a reference given with a digest, as given.
   */
  reference: string
}

/**
 * `given` pinned to `digest`: the digest appended, or `given` itself when it already names that
 * digest. A problem when `given` is no image reference, `digest` no digest, or `given` names
 * another digest (the check refuses such an image before it gets here).
 */
export function pinReference(given: string, digest: string): PinnedReference | Problem {
  const parsed = parseImageReference(given)
  if (typeof parsed === 'string') return { problem: `'${given}' ${parsed}` }
  if (validDigest(digest) !== digest) return { problem: `'${digest}' is not a digest` }
  if (parsed.digest === undefined) return { given, digest, reference: `${given}@${digest}` }
  if (parsed.digest !== digest)
    return { problem: `'${given}' names ${parsed.digest}, not the digest read, ${digest}` }
  return { given, digest, reference: given }
}
