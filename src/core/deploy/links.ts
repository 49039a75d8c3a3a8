import { DOCKER_HUB, registryImage } from '../registry/reference.js'
import type { CiContext } from '../shared/context.js'
import type { SummaryLink } from '../shared/ports.js'

export type LinkContext = Partial<Pick<CiContext, 'platform' | 'repository' | 'repositoryUrl'>>

/**
 * A link for each image, for the job page (GitLab's annotations report, GitHub's summary): the
 * project's Container Registry page for an image of the GitLab project's own registry, Docker
 * Hub's page for a Docker Hub image, else the registry API's address of its manifest (by digest
 * when the check gave one), which names exactly what was deployed.
 */
export function imageLinks(
  images: ReadonlyArray<{ role: string; reference: string; digest?: string }>,
  context: LinkContext,
): SummaryLink[] {
  return images.flatMap(({ role, reference, digest }) => {
    const url = imageUrl(reference, digest, context)
    return url ? [{ label: `${role} image ${reference}`, url }] : []
  })
}

function imageUrl(
  reference: string,
  digest: string | undefined,
  context: LinkContext,
): string | undefined {
  const image = registryImage(reference)
  if ('problem' in image) return undefined
  if (image.registry === DOCKER_HUB) {
    const official = image.repository.startsWith('library/')
    return official
      ? `https://hub.docker.com/_/${image.repository.slice('library/'.length)}`
      : `https://hub.docker.com/r/${image.repository}`
  }
  const project = context.repository?.toLowerCase()
  if (
    context.platform === 'gitlab' &&
    context.repositoryUrl &&
    project &&
    (image.repository === project || image.repository.startsWith(`${project}/`))
  )
    return `${context.repositoryUrl}/container_registry`
  return `${image.origin}/v2/${image.repository}/manifests/${digest ?? image.pinned ?? image.lookup}`
}
