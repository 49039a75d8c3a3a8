import { describe, expect, test } from '@jest/globals'
import { imageLinks } from '../../../../src/core/deploy/links.js'

const DIGEST = `sha256:${'c'.repeat(64)}`

describe('the job page links of the images', () => {
  test.each<[string, string, string | undefined, string]>([
    [
      "the GitLab project's own registry: its Container Registry page",
      'registry.gitlab.example.com/acme/shop/frontend:main-1a2b3c4',
      DIGEST,
      'https://gitlab.example.com/acme/shop/container_registry',
    ],
    [
      'a Docker Hub image',
      'acme/shop-frontend:1',
      undefined,
      'https://hub.docker.com/r/acme/shop-frontend',
    ],
    ['an official Docker Hub image', 'nginx:1.27', undefined, 'https://hub.docker.com/_/nginx'],
    [
      'another registry: the manifest the check found, by digest',
      'ghcr.io/other/app/frontend:1',
      DIGEST,
      `https://ghcr.io/v2/other/app/frontend/manifests/${DIGEST}`,
    ],
    [
      'unchecked: the manifest by tag',
      '127.0.0.1:5000/other/frontend:1',
      undefined,
      'http://127.0.0.1:5000/v2/other/frontend/manifests/1',
    ],
  ])('%s', (_name, reference, digest, url) => {
    const links = imageLinks([{ role: 'frontend', reference, ...(digest ? { digest } : {}) }], {
      platform: 'gitlab',
      repository: 'acme/shop',
      repositoryUrl: 'https://gitlab.example.com/acme/shop',
    })
    expect(links).toEqual([{ label: `frontend image ${reference}`, url }])
  })
})
