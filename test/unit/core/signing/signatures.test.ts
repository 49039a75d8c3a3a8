import { describe, expect, test } from '@jest/globals'
import { signatureTag } from '../../../../src/core/signing/cosign-layout.js'
import { readSignatures } from '../../../../src/core/signing/signatures.js'
import {
  FINGERPRINT,
  OTHER,
  OURS,
  REPOSITORY,
  sign,
  signerOf,
  world,
} from '../../../helpers/signing.js'

describe('readSignatures: what the registry holds for a digest, judged as cosign verify --key judges', () => {
  test('none, ours, another key’s, one made for another digest', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', { labels: { a: '1' } })
    const other = w.registry.put(REPOSITORY, 'other', { labels: { a: '2' } })
    const verifier = signerOf(OURS).verifier
    expect((await readSignatures(w.session, digest, verifier)).verdict).toEqual({
      kind: 'unsigned',
      detail: `no '${signatureTag(digest)}' in its repository`,
    })
    await sign(w, digest, OTHER)
    expect((await readSignatures(w.session, digest, verifier)).verdict).toEqual({
      kind: 'other-key',
      count: 1,
    })
    await sign(w, digest, OURS, digest, { [FINGERPRINT]: 'sha256:f1' })
    expect((await readSignatures(w.session, digest, verifier)).verdict).toEqual({
      kind: 'signed',
      claims: [{ digest, optional: { [FINGERPRINT]: 'sha256:f1' } }],
    })
    // Both kept: the other key's signature still verifies under its own key.
    expect((await readSignatures(w.session, digest, signerOf(OTHER).verifier)).verdict.kind).toBe(
      'signed',
    )
    await sign(w, other, OURS, digest)
    expect((await readSignatures(w.session, other, verifier)).verdict).toEqual({
      kind: 'other-digest',
      digests: [digest],
    })
  })

  test('a .sig tag that names no image manifest is unusable, and nothing is written over it', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', {})
    w.registry.putIndex(REPOSITORY, signatureTag(digest), { 'linux/amd64': {} })
    const read = await readSignatures(w.session, digest, signerOf(OURS).verifier)
    expect(read.verdict).toEqual({
      kind: 'unusable',
      detail: `'${signatureTag(digest)}' is a 'application/vnd.oci.image.index.v1+json', not a signature manifest`,
    })
  })
})
