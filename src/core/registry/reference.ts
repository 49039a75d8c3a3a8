import { parseImageReference } from '../shared/image-ref.js'
import { isLoopbackHost } from '../shared/loopback.js'
import type { Problem } from '../shared/problem.js'

/** Where and what to ask the registry (OCI distribution spec) about one image reference. */
export interface RegistryImage {
  /** The reference as deployed. */
  reference: string
  /** The registry as people name it: `docker.io` for Docker Hub, else `host[:port]`, lowercase. */
  registry: string
  /** The API's origin: `https://registry-1.docker.io`, `https://ghcr.io`, `http://127.0.0.1:5000`. */
  origin: string
  /** The repository in the API's path (Docker Hub's official images under `library/`). */
  repository: string
  /** The tag or digest of `/v2/<repository>/manifests/<lookup>`. */
  lookup: string
  /** The digest the reference pins, which the registry's answer must match. */
  pinned?: string
}

export const DOCKER_HUB = 'docker.io'
/** GitHub's Container Registry. */
export const GITHUB_REGISTRY = 'ghcr.io'
const DOCKER_HUB_API = 'registry-1.docker.io'
/** The names Docker accepts for Docker Hub, in references and in `docker login`. */
const DOCKER_HUB_ALIASES = new Set([DOCKER_HUB, 'index.docker.io', DOCKER_HUB_API])

/**
 * Maps a reference to its registry API, as Docker does: no registry, `docker.io` and
 * `index.docker.io` are Docker Hub, whose API is `registry-1.docker.io` and whose one-part
 * names are official images (`nginx` → `library/nginx`).
 *
 * Registries are asked over https, except on loopback, where plain http is Docker's own default
 * (127.0.0.0/8 is an insecure registry out of the box) and a local test registry has no TLS.
 *
 * With both a tag and a digest, the tag is asked and must still point at the digest: a reference
 * whose two halves disagree is stale, whichever half the platform would pull.
 */
export function registryImage(reference: string): RegistryImage | Problem {
  const parsed = parseImageReference(reference)
  if (typeof parsed === 'string') return { problem: `'${reference}' ${parsed}` }
  const registry = registryName(parsed.domain ?? DOCKER_HUB)
  const hub = registry === DOCKER_HUB
  const host = hub ? DOCKER_HUB_API : registry
  const repository = hub && !parsed.path.includes('/') ? `library/${parsed.path}` : parsed.path
  const lookup = parsed.tag ?? parsed.digest ?? ''
  return {
    reference,
    registry,
    origin: `${usesPlainHttp(host) ? 'http' : 'https'}://${host}`,
    repository,
    lookup,
    ...(parsed.digest ? { pinned: parsed.digest } : {}),
  }
}

/**
 * The one name of a registry, for matching credentials to it: lowercase `host[:port]`, every
 * Docker Hub alias as `docker.io`. Accepts the keys `docker login` writes to its config too
 * (`https://index.docker.io/v1/`, `http://host:5000`).
 */
export function registryName(server: string): string {
  const host = server
    .trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/\/.*$/, '')
    .toLowerCase()
  return DOCKER_HUB_ALIASES.has(host) ? DOCKER_HUB : host
}

/**
 * Whether a registry at `host[:port]` is asked over plain http: on loopback only, as Docker
 * does (127.0.0.0/8 is an insecure registry out of the box), and as every builder is told.
 */
export function usesPlainHttp(host: string): boolean {
  return isLoopbackHost(hostname(host))
}

/** `host:port` → `host`; `[::1]:5000` → `[::1]`. */
function hostname(host: string): string {
  return host.startsWith('[') ? host.replace(/\]:\d+$/, ']') : host.replace(/:\d+$/, '')
}

/** The manifest URL of one image. */
export function manifestUrl(image: RegistryImage, lookup = image.lookup): URL {
  return repositoryUrl(image, `manifests/${lookup}`)
}

/** A URL of the repository's API: `manifests/<tag or digest>`, `blobs/<digest>`. */
export function repositoryUrl(
  image: Pick<RegistryImage, 'origin' | 'repository'>,
  path: string,
): URL {
  return new URL(`${image.origin}/v2/${image.repository}/${path}`)
}
