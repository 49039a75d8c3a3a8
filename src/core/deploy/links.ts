import {
  DOCKER_HUB,
  GITHUB_REGISTRY,
  registryImage,
  registryName,
  type RegistryImage,
} from '../registry/reference.js'
import type { CiContext } from '../shared/context.js'
import type { SummaryLink } from '../shared/ports.js'
import { isProblem } from '../shared/problem.js'

export type LinkContext = Partial<
  Pick<CiContext, 'platform' | 'repository' | 'repositoryUrl' | 'containerRegistry'>
>

/**
 * A link for each image, for the job page (GitLab's annotations report, GitHub's summary), to a
 * page a person can read: the project's Container Registry page for an image of the GitLab
 * project's own registry, the package's page for a GHCR image of the repository's owner, Docker
 * Hub's page for a Docker Hub image. Any other registry has no page we could know: no link (the
 * summary names each reference and its digest). Never the registry API, which answers JSON to a
 * browser at best.
 */
export function imageLinks(
  images: ReadonlyArray<{ role: string; reference: string }>,
  context: LinkContext,
): SummaryLink[] {
  return images.flatMap(({ role, reference }) => {
    const url = imageUrl(reference, context)
    return url ? [{ label: `${role} image ${reference}`, url }] : []
  })
}

function imageUrl(reference: string, context: LinkContext): string | undefined {
  const image = registryImage(reference)
  if (isProblem(image)) return undefined
  if (image.registry === DOCKER_HUB) {
    const official = image.repository.startsWith('library/')
    return official
      ? `https://hub.docker.com/_/${image.repository.slice('library/'.length)}`
      : `https://hub.docker.com/r/${image.repository}`
  }
  return gitlabPage(image, context) ?? githubPage(image, context)
}

/**
 * The GitLab project's Container Registry page, for an image of its own registry and path (only
 * GitLab names the CI's own registry, CI_REGISTRY).
 */
function gitlabPage(image: RegistryImage, context: LinkContext): string | undefined {
  const project = context.repository?.toLowerCase()
  const own = context.containerRegistry && registryName(context.containerRegistry)
  if (!context.repositoryUrl || !project || !own) return undefined
  if (image.registry !== own) return undefined
  if (image.repository !== project && !image.repository.startsWith(`${project}/`)) return undefined
  return `${context.repositoryUrl}/container_registry`
}

/**
 * A GHCR package's page, for an image of the repository's owner: `ghcr.io/<owner>/<package>`,
 * a package that build-images links to the repository (its `org.opencontainers.image.source`
 * label), whose page GitHub serves under the repository.
 */
function githubPage(image: RegistryImage, context: LinkContext): string | undefined {
  const [owner, name] = context.repository?.toLowerCase().split('/') ?? []
  if (context.platform !== 'github' || image.registry !== GITHUB_REGISTRY || !owner || !name)
    return undefined
  const [imageOwner, ...packageParts] = image.repository.split('/')
  if (imageOwner !== owner || packageParts.length === 0) return undefined
  return `https://github.com/${owner}/${name}/pkgs/container/${encodeURIComponent(packageParts.join('/'))}`
}
