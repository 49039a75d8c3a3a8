import { quote } from './errors.js'

/**
 * The Docker image reference grammar (distribution/reference): `[domain[:port]/]path[:tag][@digest]`.
 * Deployments need a pinned reference, so a tag or a digest is required.
 */
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])'
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:]+\\])(?::[0-9]+)?`
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*'
/** A tag: letters, digits, '_', '.' and '-', not starting with '.' or '-', at most 128 characters. */
export const MAX_TAG_LENGTH = 128
const TAG = `[\\w][\\w.-]{0,${MAX_TAG_LENGTH - 1}}`
const SHA256 = 'sha256:[0-9a-f]{64}'
/** The OCI digests registries use: sha256 with 64 lower-case hex characters, sha512 with 128. */
const DIGEST = `${SHA256}|sha512:[0-9a-f]{128}`
export const DIGEST_EXPECTED =
  "expected 'sha256:' and 64 lower-case hexadecimal characters, or 'sha512:' and 128"

const DOMAIN_RE = new RegExp(`^${DOMAIN}$`)
const PATH_RE = new RegExp(`^${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`)
const TAG_RE = new RegExp(`^${TAG}$`)
const DIGEST_RE = new RegExp(`^(?:${DIGEST})$`)
const SHA256_RE = new RegExp(`^${SHA256}$`)
const MAX_NAME_LENGTH = 255

/** `sha256:` and 64 lower-case hex characters: the digest builders print and file labels hold. */
export function isSha256Digest(text: string): boolean {
  return SHA256_RE.test(text)
}

export function isValidTag(tag: string): boolean {
  return TAG_RE.test(tag)
}

export interface ImageReference {
  domain?: string
  path: string
  tag?: string
  digest?: string
}

export const IMAGE_REFERENCE_EXPECTED =
  "expected '<registry>/<name>:<tag>' or '<registry>/<name>@sha256:<digest>' (lowercase name, tag of letters, digits, '_', '.', '-')"

/** Returns the parsed reference, or a sentence saying what is wrong with it. */
export function parseImageReference(reference: string): ImageReference | string {
  const [withoutDigest, digest, extra] = reference.split('@')
  if (extra !== undefined || withoutDigest === undefined || withoutDigest === '')
    return 'is not an image reference'
  if (digest !== undefined && !DIGEST_RE.test(digest))
    return `has an invalid digest ${quote(digest, 140)} (${DIGEST_EXPECTED})`

  const lastSlash = withoutDigest.lastIndexOf('/')
  const lastColon = withoutDigest.lastIndexOf(':')
  const hasTag = lastColon > lastSlash
  const name = hasTag ? withoutDigest.slice(0, lastColon) : withoutDigest
  const tag = hasTag ? withoutDigest.slice(lastColon + 1) : undefined
  if (tag !== undefined && !TAG_RE.test(tag)) return `has an invalid tag '${tag}'`
  if (name.length > MAX_NAME_LENGTH) return `has a name longer than ${MAX_NAME_LENGTH} characters`

  const { domain, path } = splitDomain(name)
  if (domain !== undefined && !DOMAIN_RE.test(domain)) return `has an invalid registry '${domain}'`
  if (!PATH_RE.test(path))
    return `has an invalid name '${path}' (lowercase letters, digits and separators only)`
  if (tag === undefined && digest === undefined) return 'has no tag or digest'
  return { domain, path, tag, digest }
}

/** As Docker decides it: the first component is a registry when it looks like a host. */
function splitDomain(name: string): { domain?: string; path: string } {
  const slash = name.indexOf('/')
  if (slash === -1) return { path: name }
  const first = name.slice(0, slash)
  const isDomain =
    first.includes('.') ||
    first.includes(':') ||
    first === 'localhost' ||
    first !== first.toLowerCase()
  return isDomain ? { domain: first, path: name.slice(slash + 1) } : { path: name }
}

/**
 * An image reference as Docker reads it, where one with neither tag nor digest means `:latest`;
 * undefined when it is no image reference.
 */
export function parseImageName(reference: string): ImageReference | undefined {
  const parsed = parseImageReference(reference)
  const read = typeof parsed === 'string' ? parseImageReference(`${reference}:latest`) : parsed
  return typeof read === 'string' ? undefined : read
}

/** The tag of `host[:port]/name:tag`, as the image reference grammar reads it; '' without one. */
export function tagOf(reference: string): string {
  return parseImageName(reference)?.tag ?? ''
}
