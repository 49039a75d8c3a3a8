import { describe, expect, test } from '@jest/globals'
import type { ReuseCandidate } from '../../../../../src/core/build-images/reuse/proof.js'
import { signatureProof } from '../../../../../src/core/build-images/reuse/signature-proof.js'
import { signatureTag } from '../../../../../src/core/signing/cosign-layout.js'
import {
  FINGERPRINT,
  OTHER,
  OURS,
  REPOSITORY,
  sign,
  signerOf,
  world,
  type World,
} from '../../../../helpers/signing.js'

describe('signatureProof: reuse proof (a)', () => {
  const candidate = (w: World, digest: string, fingerprint: string): ReuseCandidate => ({
    kind: 'frontend',
    digest,
    fingerprint,
    session: w.session,
  })

  test('proven only by a signature under the key with this fingerprint on this digest', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', {})
    const moved = w.registry.put(REPOSITORY, 'moved', { labels: { b: '1' } })
    const proof = signatureProof(signerOf(OURS).verifier)
    const shown = `the key of 'signing-key' (${OURS.publicKey.shown})`
    expect(proof.name).toBe("a signature under 'signing-key'")
    expect(await proof.verify(candidate(w, digest, 'sha256:f1'))).toEqual({
      proven: false,
      said: `no signature (no '${signatureTag(digest)}' in its repository)`,
    })
    await sign(w, digest, OTHER, digest, { [FINGERPRINT]: 'sha256:f1' })
    expect(await proof.verify(candidate(w, digest, 'sha256:f1'))).toEqual({
      proven: false,
      said: `1 signature(s), none under ${shown}`,
    })
    await sign(w, digest, OURS, digest, { [FINGERPRINT]: 'sha256:f0' })
    expect(await proof.verify(candidate(w, digest, 'sha256:f1'))).toEqual({
      proven: false,
      said: `signed under ${shown}, but for another fingerprint than sha256:f1`,
    })
    await sign(w, digest, OURS, digest, { [FINGERPRINT]: 'sha256:f1' })
    expect(await proof.verify(candidate(w, digest, 'sha256:f1'))).toEqual({
      proven: true,
      said: `signed under ${shown}, fingerprint included`,
    })
    await sign(w, moved, OURS, digest, { [FINGERPRINT]: 'sha256:f1' })
    expect(await proof.verify(candidate(w, moved, 'sha256:f1'))).toEqual({
      proven: false,
      said: `a signature under ${shown} for another digest (${digest}), not ${moved}`,
    })
  })
})
