import { describe, expect, test } from '@jest/globals'
import { parseImageReference } from '../../../../src/core/shared/image-ref.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

const DIGEST = `sha256:${'a'.repeat(64)}`
const SHA512 = `sha512:${'0123456789abcdef'.repeat(8)}`

describe('parseImageReference', () => {
  eachAnswer('accepts %s', parseImageReference, [
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
    [`reg.io/a/b@${SHA512}`, { domain: 'reg.io', path: 'a/b', digest: SHA512 }],
    ['reg.io/a__b/c-d.e:Tag_1.0-x', { domain: 'reg.io', path: 'a__b/c-d.e', tag: 'Tag_1.0-x' }],
  ])

  test.each([
    ['', 'is not an image reference'],
    ['reg.io/shop/frontend', 'has no tag or digest'],
    ['reg.io/Shop/frontend:1', "has an invalid name 'Shop/frontend'"],
    ['reg.io/shop/frontend:', "has an invalid tag ''"],
    ['reg.io/shop/frontend:-x', "has an invalid tag '-x'"],
    [`reg.io/shop/frontend:${'x'.repeat(129)}`, 'has an invalid tag'],
    ['reg.io/shop//frontend:1', 'has an invalid name'],
    [
      'reg.io/shop/frontend:1@sha256:abc',
      "has an invalid digest 'sha256:abc' (expected 'sha256:' and 64 lower-case hexadecimal characters, or 'sha512:' and 128)",
    ],
    [`reg.io/a@sha256:${'A'.repeat(64)}`, 'has an invalid digest'],
    [`reg.io/a@sha256:${'a'.repeat(63)}`, 'has an invalid digest'],
    [`reg.io/a@sha256:${'a'.repeat(65)}`, 'has an invalid digest'],
    [`reg.io/a@sha512:${'a'.repeat(64)}`, 'has an invalid digest'],
    [`reg.io/a@sha384:${'a'.repeat(96)}`, 'has an invalid digest'],
    [`reg.io/a@md5:${'a'.repeat(32)}`, 'has an invalid digest'],
    [`reg.io/a@sha256+b64u:${'a'.repeat(64)}`, 'has an invalid digest'],
    ['reg.io/a@b@c', 'is not an image reference'],
    ['-bad.io/app:1', "has an invalid registry '-bad.io'"],
    ['reg.io/feature/x y:1', 'has an invalid name'],
  ])('refuses %j', (reference, problem) => {
    expect(parseImageReference(reference)).toEqual(expect.stringContaining(problem))
  })
})
