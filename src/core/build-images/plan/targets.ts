import { join } from 'node:path'
import type { NamedBackend } from '../backends-input.js'
import { imageId, type ImageTarget } from '../image-kinds.js'
import { IMAGE_KINDS, type ImageKind } from '../../shared/project-images.js'

/** An image's Dockerfile by default, relative to the project: `<docker-folder>/<kind>.Dockerfile`. */
export function defaultDockerfile(dockerFolder: string, kind: ImageKind): string {
  return join(dockerFolder, `${kind}.Dockerfile`)
}

/** What the images are made from, as the inputs say it. */
export interface TargetFacts {
  /** The kinds `images` (and `codeasdata`) select. */
  kinds: readonly ImageKind[]
  /** `backends`, as listed: undefined for the one backend of `backend-sources`. */
  backends?: readonly NamedBackend[]
  /** The backends `images` names alone (`backend:<name>`); empty: every backend. */
  only: readonly string[]
  imageNames: Readonly<Record<ImageKind, string>>
  sources: Readonly<Record<ImageKind, string>>
  dockerFolder: string
}

/**
 * Every image the step builds, in the order they are reported: the kinds in IMAGE_KINDS order,
 * the backends of `backends` in their order, each `<backend-image-name>-<name>`.
 */
export function imageTargets(facts: TargetFacts): ImageTarget[] {
  return IMAGE_KINDS.filter((kind) => facts.kinds.includes(kind)).flatMap((kind): ImageTarget[] => {
    if (kind !== 'backend' || !facts.backends)
      return [
        {
          id: kind,
          kind,
          imageName: facts.imageNames[kind],
          sources: facts.sources[kind],
          dockerfile: defaultDockerfile(facts.dockerFolder, kind),
        },
      ]
    return facts.backends
      .filter((backend) => facts.only.length === 0 || facts.only.includes(backend.name))
      .map((backend) => ({
        id: imageId(kind, backend.name),
        kind,
        name: backend.name,
        imageName: `${facts.imageNames.backend}-${backend.name}`,
        sources: backend.sources,
        dockerfile: backend.dockerfile ?? defaultDockerfile(facts.dockerFolder, kind),
      }))
  })
}
