import { parseImageReference } from '../shared/image-ref.js'
import type { ImageKind } from './definition.js'

/** Where images go: `docker login` needs the host alone, references need the namespace too. */
export interface RegistryTarget {
  /** `host[:port]`, the `docker login` server. */
  host: string
  /** `host[:port][/namespace]`, the prefix of every image reference. */
  prefix: string
}

export const GITHUB_REGISTRY = 'ghcr.io'
const PROBE_TAG = 'probe'

export const REGISTRY_EXPECTED =
  "expected a registry host with an optional port and namespace, such as 'ghcr.io', 'registry.example.com:5000' or 'ghcr.io/acme' (no scheme, no tag)"

export function parseRegistry(raw: string): RegistryTarget | { problem: string } {
  const prefix = raw.trim().replace(/\/+$/, '')
  if (/^[a-z]+:\/\//i.test(prefix)) return { problem: `has a scheme; ${REGISTRY_EXPECTED}` }
  const slash = prefix.indexOf('/')
  const host = slash === -1 ? prefix : prefix.slice(0, slash)
  const parsed = parseImageReference(`${prefix}/${PROBE_TAG}:${PROBE_TAG}`)
  // Docker takes the first part for a registry only when it looks like a host (a dot, a port
  // or localhost); anything else would silently mean a Docker Hub namespace.
  if (typeof parsed === 'string' || parsed.domain !== host)
    return { problem: `is not a registry host; ${REGISTRY_EXPECTED}` }
  const port = /:(\d+)$/.exec(host)?.[1]
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535))
    return { problem: `has port ${port}, which is not from 1 to 65535; ${REGISTRY_EXPECTED}` }
  return { host, prefix }
}

export const IMAGE_NAME_EXPECTED =
  "expected an image name such as 'acme/shop/frontend': lowercase letters, digits and '.', '_', '-' between them, parts separated by '/', without registry or tag"

export function imageNameProblem(name: string): string | undefined {
  if (name.includes(':') || name.includes('@'))
    return `has a tag or digest; ${IMAGE_NAME_EXPECTED} (tags come from 'tag-template')`
  const parsed = parseImageReference(`registry.invalid/${name}:${PROBE_TAG}`)
  if (typeof parsed === 'string' || parsed.path !== name) return IMAGE_NAME_EXPECTED
  return undefined
}

/**
 * `Acme/My_Shop.` → `acme/my_shop`: each part lowercased, invalid runs turned into `-`, and
 * separators trimmed from both ends, which the name grammar forbids.
 */
export function sanitiseImagePath(path: string): string {
  return path
    .split('/')
    .map((part) =>
      part
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, '-')
        .replace(/^[._-]+|[._-]+$/g, ''),
    )
    .filter((part) => part !== '')
    .join('/')
}

/**
 * `<repository>/<kind>`: the repository path is what GitLab's registry requires as the start
 * of every image name, and a natural namespace on ghcr.io.
 */
export function defaultImageName(repository: string | undefined, kind: ImageKind): string {
  const base = repository ? sanitiseImagePath(repository) : ''
  return base === '' ? kind : `${base}/${kind}`
}

export function imageReference(registry: RegistryTarget, name: string, tag: string): string {
  return `${registry.prefix}/${name}:${tag}`
}
