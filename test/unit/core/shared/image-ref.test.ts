import { describe, expect, test } from '@jest/globals'
import { parseImageReference } from '../../../../src/core/shared/image-ref.js'

const DIGEST = `sha256:${'a'.repeat(64)}`

describe('parseImageReference', () => {
  test.each([
    [
      'registry.example.com/shop/frontend:1.2.0',
      { domain: 'registry.example.com', path: 'shop/frontend', tag: '1.2.0' },
    ],
    [
      '127.0.0.1:5000/app/backend:main-1a2b3c4',
      { domain: '127.0.0.1:5000', path: 'app/backend', tag: 'main-1a2b3c4' },
    ],
    ['localhost/front:latest', { domain: 'localhost', path: 'front', tag: 'latest' }],
    ['olympeio/frontend-base:stable', { path: 'olympeio/frontend-base', tag: 'stable' }],
    [`reg.io/a/b@${DIGEST}`, { domain: 'reg.io', path: 'a/b', digest: DIGEST }],
    [`reg.io/a/b:1@${DIGEST}`, { domain: 'reg.io', path: 'a/b', tag: '1', digest: DIGEST }],
    ['reg.io/a__b/c-d.e:Tag_1.0-x', { domain: 'reg.io', path: 'a__b/c-d.e', tag: 'Tag_1.0-x' }],
  ])('accepts %s', (reference, expected) => {
    expect(parseImageReference(reference)).toEqual(expected)
  })

  test.each([
    ['', 'is not an image reference'],
    ['reg.io/shop/frontend', 'has no tag or digest'],
    ['reg.io/Shop/frontend:1', "has an invalid name 'Shop/frontend'"],
    ['reg.io/shop/frontend:', "has an invalid tag ''"],
    ['reg.io/shop/frontend:-x', "has an invalid tag '-x'"],
    [`reg.io/shop/frontend:${'x'.repeat(129)}`, 'has an invalid tag'],
    ['reg.io/shop//frontend:1', 'has an invalid name'],
    ['reg.io/shop/frontend:1@sha256:abc', "has an invalid digest 'sha256:abc'"],
    ['reg.io/a@b@c', 'is not an image reference'],
    ['-bad.io/app:1', "has an invalid registry '-bad.io'"],
    ['reg.io/feature/x y:1', 'has an invalid name'],
  ])('refuses %j', (reference, problem) => {
    expect(parseImageReference(reference)).toEqual(expect.stringContaining(problem))
  })
})
