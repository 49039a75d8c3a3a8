import type { AttestationKind } from '../../attestations/kinds.js'
import type { RegistrySession } from '../../registry/session.js'
import type { ImageKind } from '../../shared/project-images.js'

/**
 * A label anyone who can push to the registry can write is no proof of where an image came from:
 * reuse gives this run's tags to an earlier image only when a proof says that this project's
 * default branch built it. Each proof says whom it trusts (see the build-images guide).
 */

/** An earlier image whose fingerprint label equals this run's. */
export interface ReuseCandidate {
  kind: ImageKind
  /** The manifest digest that the candidate's tag names. */
  digest: string
  /** This run's fingerprint, which the candidate's label matched. */
  fingerprint: string
  /** A session on the candidate's repository (pull and push), with the run's login. */
  session: RegistrySession
}

export type ProofVerdict = { proven: true; said: string } | { proven: false; said: string }

export interface ReuseProof {
  /** What the proof is, for the log: "a signature under 'signing-key'". */
  readonly name: string
  /** Whether the candidate is an image this project's default branch built. */
  verify(candidate: ReuseCandidate): Promise<ProofVerdict>
}

/** The attestations a candidate carries, as their documents' JSON text (the SBOM for its file). */
export type CarriedDocuments = Partial<Record<AttestationKind, string>>

/**
 * What a proven candidate must also carry to be reused (the attestations `attestations` asks
 * for): judged after the proof, and no part of it. A candidate without them is built again, so
 * that every image of the run carries them.
 */
export interface ReuseRequirement {
  verify(
    candidate: ReuseCandidate,
  ): Promise<{ met: true; documents: CarriedDocuments } | { met: false; said: string }>
}
