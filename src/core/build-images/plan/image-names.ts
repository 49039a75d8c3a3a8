import type { RegistryTarget } from '../../registry/credentials.js'
import { parseImageReference } from '../../shared/image-ref.js'
import type { ImageKind } from '../../shared/project-images.js'

const PROBE_TAG = 'probe'

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

/**
 * The warning for a registry whose namespace the image name repeats: `ghcr.io/acme` with
 * `acme/shop/frontend` makes `ghcr.io/acme/acme/shop/frontend`, a path nobody meant.
 */
export function repeatedNamespace(registry: RegistryTarget, name: string): string | undefined {
  const namespace = registry.prefix.slice(registry.host.length + 1)
  const last = namespace.split('/').at(-1) ?? ''
  if (last === '' || name.split('/')[0] !== last) return undefined
  return `The registry '${registry.prefix}' ends with '${last}', and the image name '${name}' starts with it: the image is '${registry.prefix}/${name}'. If '${last}' should appear once, set 'registry' to '${registry.prefix.slice(0, -last.length - 1)}' (the default image names start with the repository's owner), or set the image names.`
}
