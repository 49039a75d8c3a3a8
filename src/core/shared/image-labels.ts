/**
 * The image labels build-images writes and deploy, signing and later runs read: each name once,
 * and the one format of the served-files label, which both sides share.
 */
import { isSha256Digest } from './image-ref.js'
import { isObject, jsonValue } from './json-text.js'
import type { Problem } from './problem.js'

/** OCI annotation keys (opencontainers/image-spec annotations.md), read by registries and UIs. */
export const OCI_LABELS = {
  /** The project's version: what the app's `version.json` serves once this image is live. */
  version: 'org.opencontainers.image.version',
  source: 'org.opencontainers.image.source',
  revision: 'org.opencontainers.image.revision',
  created: 'org.opencontainers.image.created',
} as const

/**
 * A version as `version.json` serves it and the labels hold it: 1 to 128 visible ASCII characters,
 * since the log and the outputs print it, and a server or a registry may send any text.
 */
export function isVersionText(text: string): boolean {
  return /^[\x21-\x7e]{1,128}$/.test(text)
}

/**
 * The fingerprint of what the image was built from (build-images' reuse): a later run reuses an
 * image whose label equals its own, and a signature's payload carries it as a claim.
 */
export const FINGERPRINT_LABEL = 'io.olympe.deploy-actions.fingerprint'
/** The label that names the tag the image was built as: what "unchanged since" names. */
export const BUILT_AS_LABEL = 'io.olympe.deploy-actions.built-as'

/**
 * On each image of build-images' `backends`: the backend's name, which deploy rules target. It
 * makes each backend's fingerprint, and so its reuse records, its own.
 */
export const BACKEND_NAME_LABEL = 'io.olympe.deploy-actions.backend'

/** The design tool's version (Olympe's own label name, from its documented CI). */
export const DRAW_VERSION_LABEL = 'draw_version'

/**
 * On the frontend image: the SHA-256 of each file the app serves as it was built (`version.json`,
 * `index.html`, the scripts `index.html` loads), as a JSON object `{"<path>": "sha256:<hex>"}`.
 * The rollout watch compares what the app serves with it when the version did not change.
 */
export const SERVED_FILES_LABEL = 'io.olympe.deploy-actions.served-files'

/** Path below the frontend's root → `sha256:<hex>` of the file's bytes. */
export type ServedFiles = Record<string, string>

/** At most this many files: `version.json`, `index.html` and the scripts it loads. */
export const MAX_SERVED_FILES = 16
/** A path a URL can hold as it is: no `..`, no leading `/`, no query or fragment. */
const SERVED_PATH =
  /^(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9._~!$&'()*+,;=:@-]+(?:\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)*$/

export function isServedPath(path: string): boolean {
  return path.length <= 256 && SERVED_PATH.test(path)
}

/** The label's value, its keys sorted so that the same files always give the same text. */
export function servedFilesLabel(files: ServedFiles): string {
  const sorted = Object.keys(files)
    .sort()
    .map((path) => [path, files[path]])
  return JSON.stringify(Object.fromEntries(sorted))
}

/** The label read back, or why it cannot be used (it comes from a registry: anything goes). */
export function parseServedFilesLabel(value: string): ServedFiles | Problem {
  const parsed = jsonValue(value)
  if (parsed === undefined) return { problem: `the ${SERVED_FILES_LABEL} label is not JSON` }
  if (!isObject(parsed)) return { problem: `the ${SERVED_FILES_LABEL} label is not a JSON object` }
  const entries = Object.entries(parsed)
  if (entries.length === 0 || entries.length > MAX_SERVED_FILES)
    return {
      problem: `the ${SERVED_FILES_LABEL} label names ${entries.length} files (1 to ${MAX_SERVED_FILES} expected)`,
    }
  const files: ServedFiles = {}
  for (const [path, digest] of entries) {
    if (!isServedPath(path) || typeof digest !== 'string' || !isSha256Digest(digest))
      return {
        problem: `the ${SERVED_FILES_LABEL} label holds an entry that is not a relative path and a sha256: digest`,
      }
    files[path] = digest
  }
  return files
}
