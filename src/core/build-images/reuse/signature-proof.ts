import { FINGERPRINT_LABEL } from '../../shared/image-labels.js'
import type { SignatureVerifier } from '../../signing/signer.js'
import { readSignatures } from '../../signing/signatures.js'
import type { ProofVerdict, ReuseCandidate, ReuseProof } from './proof.js'

/**
 * Proof (a) that this project's default branch built a candidate: a valid signature under the key
 * of `signing-key` on the candidate's digest, whose payload carries this run's fingerprint. The
 * key is a secret only protected refs' jobs hold (a protected GitLab variable, a GitHub
 * environment secret limited to the default branch), so a pusher without it cannot forge one.
 */
export function signatureProof(verifier: SignatureVerifier): ReuseProof {
  return {
    name: "a signature under 'signing-key'",
    async verify(candidate: ReuseCandidate): Promise<ProofVerdict> {
      const { verdict } = await readSignatures(candidate.session, candidate.digest, verifier)
      switch (verdict.kind) {
        case 'signed': {
          const match = verdict.claims.some(
            (claims) => claims.optional[FINGERPRINT_LABEL] === candidate.fingerprint,
          )
          return match
            ? { proven: true, said: `signed under ${verifier.shown}, fingerprint included` }
            : {
                proven: false,
                said: `signed under ${verifier.shown}, but for another fingerprint than ${candidate.fingerprint}`,
              }
        }
        case 'unsigned':
          return { proven: false, said: `no signature (${verdict.detail})` }
        case 'other-key':
          return {
            proven: false,
            said: `${verdict.count} signature(s), none under ${verifier.shown}`,
          }
        case 'other-digest':
          return {
            proven: false,
            said: `a signature under ${verifier.shown} for another digest (${verdict.digests.join(', ')}), not ${candidate.digest}`,
          }
        default:
          return {
            proven: false,
            said: `its signatures could not be read (${verdict.detail})`,
          }
      }
    },
  }
}
