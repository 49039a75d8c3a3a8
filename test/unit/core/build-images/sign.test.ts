import { describe, expect, test } from '@jest/globals'
import type { BuiltImage } from '../../../../src/core/build-images/build.js'
import { signImages } from '../../../../src/core/build-images/sign.js'
import { ActionError } from '../../../../src/core/shared/errors.js'
import { signatureTag } from '../../../../src/core/signing/cosign-layout.js'
import { OTHER, OURS, REPOSITORY, sign, world } from '../../../helpers/signing.js'

describe('signImages: the build-images phase', () => {
  const image = (digest: string, fingerprint?: string): BuiltImage => ({
    id: 'frontend',
    kind: 'frontend',
    reference: `reg.example.com/${REPOSITORY}:main-1a2b3c4`,
    references: [`reg.example.com/${REPOSITORY}:main-1a2b3c4`],
    digest,
    ...(fingerprint ? { reused: { since: 'main-0f0f0f0', fingerprint } } : {}),
  })

  test('signs with the fingerprint, then finds the image signed already', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', {})
    const options = { signingKey: OURS, push: true }
    const said = await signImages([image(digest, 'sha256:f1')], [], options, w.ports)
    expect(said).toBe(`signed with the key of 'signing-key' (${OURS.publicKey.shown})`)
    expect(w.lines).toContain(
      `frontend: signed ${digest} (${signatureTag(digest)}, fingerprint sha256:f1).`,
    )
    await signImages([image(digest, 'sha256:f1')], [], options, w.ports)
    expect(w.lines).toContain(
      `frontend: ${digest} is signed already under this key (${signatureTag(digest)}).`,
    )
    expect(w.registry.puts).toEqual([`PUT ${REPOSITORY}:${signatureTag(digest)}`])
  })

  test('another fingerprint is signed beside the first, another key’s signature kept', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', {})
    await sign(w, digest, OTHER)
    await signImages([image(digest, 'sha256:f2')], [], { signingKey: OURS, push: true }, w.ports)
    expect(w.lines).toContain(
      `frontend: signed ${digest} (${signatureTag(digest)}, fingerprint sha256:f2; 1 signature(s) under other keys kept).`,
    )
  })

  test('push false: nothing is signed, and the log says why', async () => {
    const w = world()
    const said = await signImages([image('')], [], { signingKey: OURS, push: false }, w.ports)
    expect(said).toBe("nothing signed ('push' is false)")
    expect(w.lines).toEqual([
      "Nothing is signed: 'push' is false, and only an image in a registry can carry a signature.",
    ])
  })

  test('a .sig tag that cannot take a signature fails the step, naming the image', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', {})
    w.registry.putIndex(REPOSITORY, signatureTag(digest), { 'linux/amd64': {} })
    const signing = signImages([image(digest)], [], { signingKey: OURS, push: true }, w.ports)
    await expect(signing).rejects.toThrow(ActionError)
    await expect(signing).rejects.toThrow(
      `Signing failed for 1 of 1 image(s); they are pushed and tagged, but a deploy that checks signatures ('verify-signatures') refuses them. Run the job again once the registry accepts the signatures:\n- frontend 'reg.example.com/${REPOSITORY}:main-1a2b3c4': its signatures could not be read ('${signatureTag(digest)}' is a 'application/vnd.oci.image.index.v1+json', not a signature manifest)`,
    )
  })
})
