import { describe, expect, test } from '@jest/globals'
import {
  manifestUrl,
  registryImage,
  registryName,
  type RegistryImage,
} from '../../../../src/core/registry/reference.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

const DIGEST = `sha256:${'a'.repeat(64)}`

describe('registryImage: a reference to the registry API that serves it', () => {
  test.each<[string, Omit<RegistryImage, 'reference'>]>([
    [
      'ghcr.io/acme/shop/frontend:main-1a2b3c4',
      {
        registry: 'ghcr.io',
        origin: 'https://ghcr.io',
        repository: 'acme/shop/frontend',
        lookup: 'main-1a2b3c4',
      },
    ],
    [
      'registry.example.com:5050/group/project/backend:1.2.0',
      {
        registry: 'registry.example.com:5050',
        origin: 'https://registry.example.com:5050',
        repository: 'group/project/backend',
        lookup: '1.2.0',
      },
    ],
    [
      'nginx:1.27',
      {
        registry: 'docker.io',
        origin: 'https://registry-1.docker.io',
        repository: 'library/nginx',
        lookup: '1.27',
      },
    ],
    [
      'docker.io/nginx:1.27',
      {
        registry: 'docker.io',
        origin: 'https://registry-1.docker.io',
        repository: 'library/nginx',
        lookup: '1.27',
      },
    ],
    [
      'index.docker.io/olympeio/frontend-base:stable',
      {
        registry: 'docker.io',
        origin: 'https://registry-1.docker.io',
        repository: 'olympeio/frontend-base',
        lookup: 'stable',
      },
    ],
    [
      'olympeio/frontend-base:stable',
      {
        registry: 'docker.io',
        origin: 'https://registry-1.docker.io',
        repository: 'olympeio/frontend-base',
        lookup: 'stable',
      },
    ],
    [
      '127.0.0.1:5000/app/front:v1',
      {
        registry: '127.0.0.1:5000',
        origin: 'http://127.0.0.1:5000',
        repository: 'app/front',
        lookup: 'v1',
      },
    ],
    [
      'localhost:5000/front:v1',
      {
        registry: 'localhost:5000',
        origin: 'http://localhost:5000',
        repository: 'front',
        lookup: 'v1',
      },
    ],
    [
      '[::1]:5000/front:v1',
      { registry: '[::1]:5000', origin: 'http://[::1]:5000', repository: 'front', lookup: 'v1' },
    ],
    [
      'Registry.Example.com/shop/api:1',
      {
        registry: 'registry.example.com',
        origin: 'https://registry.example.com',
        repository: 'shop/api',
        lookup: '1',
      },
    ],
    [
      `ghcr.io/acme/api@${DIGEST}`,
      {
        registry: 'ghcr.io',
        origin: 'https://ghcr.io',
        repository: 'acme/api',
        lookup: DIGEST,
        pinned: DIGEST,
      },
    ],
    [
      `ghcr.io/acme/api:1.4@${DIGEST}`,
      {
        registry: 'ghcr.io',
        origin: 'https://ghcr.io',
        repository: 'acme/api',
        lookup: '1.4',
        pinned: DIGEST,
      },
    ],
    [
      `nginx@${DIGEST}`,
      {
        registry: 'docker.io',
        origin: 'https://registry-1.docker.io',
        repository: 'library/nginx',
        lookup: DIGEST,
        pinned: DIGEST,
      },
    ],
  ])('%s', (reference, expected) => {
    expect(registryImage(reference)).toEqual({ reference, ...expected })
  })

  test('a reference that does not parse says why', () => {
    expect(registryImage('reg.io/Shop/api')).toEqual({
      problem: expect.stringContaining("'reg.io/Shop/api' has an invalid name") as unknown,
    })
  })

  test('the manifest URL asks for the tag, or the digest', () => {
    const byTag = registryImage('nginx:1.27') as RegistryImage
    const byDigest = registryImage(`127.0.0.1:5000/app/api@${DIGEST}`) as RegistryImage
    expect(manifestUrl(byTag).href).toBe(
      'https://registry-1.docker.io/v2/library/nginx/manifests/1.27',
    )
    expect(manifestUrl(byDigest).href).toBe(`http://127.0.0.1:5000/v2/app/api/manifests/${DIGEST}`)
  })
})

describe('registryName: the one name credentials are matched by', () => {
  eachAnswer('%s → %s', registryName, [
    ['docker.io', 'docker.io'],
    ['index.docker.io', 'docker.io'],
    ['registry-1.docker.io', 'docker.io'],
    ['https://index.docker.io/v1/', 'docker.io'],
    ['http://127.0.0.1:5000', '127.0.0.1:5000'],
    ['https://GHCR.io', 'ghcr.io'],
    ['registry.example.com:5050', 'registry.example.com:5050'],
    ['registry.example.com/v2/', 'registry.example.com'],
  ])
})
