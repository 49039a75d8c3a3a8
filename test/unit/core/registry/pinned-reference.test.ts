import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import { pinReference } from '../../../../src/core/registry/pinned-reference.js'
import { registryImage } from '../../../../src/core/registry/reference.js'
import { parseImageReference } from '../../../../src/core/shared/image-ref.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { imageReference } from '../../../helpers/image-arbitraries.js'

const DIGEST = `sha256:${'a'.repeat(64)}`
const OTHER = `sha256:${'b'.repeat(64)}`

describe('pinReference', () => {
  test.each([
    [
      'a tag: the digest appended, the tag kept',
      'ghcr.io/acme/web:v1',
      `ghcr.io/acme/web:v1@${DIGEST}`,
    ],
    ['Docker Hub, as written', 'nginx:1.27', `nginx:1.27@${DIGEST}`],
    [
      'a port and a path',
      '127.0.0.1:5000/a/b/c:main-1a2b3c4',
      `127.0.0.1:5000/a/b/c:main-1a2b3c4@${DIGEST}`,
    ],
    ['the digest already, alone', `ghcr.io/acme/web@${DIGEST}`, `ghcr.io/acme/web@${DIGEST}`],
    ['a tag and the digest', `ghcr.io/acme/web:v1@${DIGEST}`, `ghcr.io/acme/web:v1@${DIGEST}`],
  ])('%s', (_name, given, reference) => {
    expect(pinReference(given, DIGEST)).toEqual({ given, digest: DIGEST, reference })
  })

  test('a sha512 digest is kept as it is', () => {
    const sha512 = `sha512:${'c'.repeat(128)}`
    expect(pinReference('r.io/a:1', sha512)).toEqual({
      given: 'r.io/a:1',
      digest: sha512,
      reference: `r.io/a:1@${sha512}`,
    })
  })

  test.each([
    [
      'a reference that pins another digest',
      `r.io/a:1@${OTHER}`,
      DIGEST,
      `'r.io/a:1@${OTHER}' names ${OTHER}, not the digest read, ${DIGEST}`,
    ],
    [
      'no image reference',
      'r.io/A:1',
      DIGEST,
      "'r.io/A:1' has an invalid name 'A' (lowercase letters, digits and separators only)",
    ],
    ['no digest', 'r.io/a:1', 'sha256:abc', "'sha256:abc' is not a digest"],
  ])('%s: a problem, not a reference', (_name, given, digest, problem) => {
    expect(pinReference(given, digest)).toEqual({ problem })
  })

  const reference = imageReference(['reg.example.com', '127.0.0.1:5000', 'docker.io'])
  const digest = fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `sha256:${hex}`)

  test('property: the pinned reference names the same image, its tag, and the digest; the registry is asked for that digest', () => {
    fc.assert(
      fc.property(reference, digest, (given, pinnedDigest) => {
        const pin = pinReference(given, pinnedDigest)
        if (isProblem(pin)) return false
        const before = parseImageReference(given)
        const after = parseImageReference(pin.reference)
        const target = registryImage(pin.reference)
        const origin = registryImage(given)
        return (
          typeof before !== 'string' &&
          typeof after !== 'string' &&
          after.domain === before.domain &&
          after.path === before.path &&
          after.tag === before.tag &&
          after.digest === pinnedDigest &&
          !isProblem(target) &&
          !isProblem(origin) &&
          target.registry === origin.registry &&
          target.repository === origin.repository &&
          target.pinned === pinnedDigest &&
          // Pinning a pinned reference again changes nothing.
          JSON.stringify(pinReference(pin.reference, pinnedDigest)) ===
            JSON.stringify({ ...pin, given: pin.reference })
        )
      }),
    )
  })
})
