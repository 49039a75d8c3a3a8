import { describe, expect, test } from '@jest/globals'
import { imageLinks, type LinkContext } from '../../../../src/core/deploy/links.js'

const GITLAB: LinkContext = {
  platform: 'gitlab',
  repository: 'acme/shop',
  repositoryUrl: 'https://gitlab.example.com/acme/shop',
  containerRegistry: 'registry.gitlab.example.com',
}
const GITHUB: LinkContext = {
  platform: 'github',
  repository: 'Acme/shop',
  repositoryUrl: 'https://github.com/Acme/shop',
}

/** Every link opens a page a person can read, or there is none: never the registry API. */
describe('the job page links of the images', () => {
  test.each<[string, string, LinkContext, string | undefined]>([
    [
      "the GitLab project's own registry: its Container Registry page",
      'registry.gitlab.example.com/acme/shop/frontend:main-1a2b3c4',
      GITLAB,
      'https://gitlab.example.com/acme/shop/container_registry',
    ],
    [
      "another project's image in the GitLab registry: no page we could name",
      'registry.gitlab.example.com/acme/other/frontend:1',
      GITLAB,
      undefined,
    ],
    [
      "the project's path in another registry, on GitLab: not its Container Registry",
      'ghcr.io/acme/shop/frontend:1',
      GITLAB,
      undefined,
    ],
    [
      "a GHCR image of the repository's owner: its package page",
      'ghcr.io/acme/shop/frontend:main-1a2b3c4',
      GITHUB,
      'https://github.com/acme/shop/pkgs/container/shop%2Ffrontend',
    ],
    ['a GHCR image of another owner: no link', 'ghcr.io/other/app/frontend:1', GITHUB, undefined],
    [
      'a Docker Hub image',
      'acme/shop-frontend:1',
      GITLAB,
      'https://hub.docker.com/r/acme/shop-frontend',
    ],
    ['an official Docker Hub image', 'nginx:1.27', GITHUB, 'https://hub.docker.com/_/nginx'],
    ['a registry of its own: no link', '127.0.0.1:5000/other/frontend:1', GITLAB, undefined],
    ['a registry of its own, on GitHub: no link', 'r.example.com/acme/shop:1', GITHUB, undefined],
  ])('%s', (_name, reference, context, url) => {
    const links = imageLinks([{ role: 'frontend', reference }], context)
    expect(links).toEqual(url ? [{ label: `frontend image ${reference}`, url }] : [])
  })
})
