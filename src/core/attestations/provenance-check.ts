import type { RegistrySession } from '../registry/session.js'
import type { SignatureVerifier } from '../signing/signer.js'
import { SLSA_PROVENANCE_V1 } from './layout.js'
import { readAttestations } from './read.js'
import { sameRepository, statedRepository } from './source-repository.js'

/** A provenance is a few kilobytes: one far larger is not read. */
const MAX_PROVENANCE_BYTES = 1024 * 1024

/** What the registry holds of an image's provenance, judged with one key and the repositories accepted. */
export type ProvenanceVerdict =
  /** A provenance under the key, for this digest, from one of the repositories accepted. */
  | { kind: 'proven'; repository: string }
  /** No `.att` tag, or none of type SLSA provenance v1. */
  | { kind: 'none'; detail: string }
  /** Provenances that the key does not verify. */
  | { kind: 'other-key'; count: number }
  /** Provenances under the key, made for other digests (moved from another image). */
  | { kind: 'other-digest'; digests: string[] }
  /** Provenances under the key for this digest, naming other repositories (undefined: none named). */
  | { kind: 'other-repository'; repositories: Array<string | undefined> }
  | { kind: 'unusable' | 'unauthorised' | 'unreachable'; detail: string }

/** Reads and judges an image's provenance: injected into deploy, which loads it only when asked. */
export type ProvenanceReader = (
  session: RegistrySession,
  digest: string,
  verifier: SignatureVerifier,
  repositories: readonly string[],
) => Promise<ProvenanceVerdict>

/**
 * The provenance of `digest`, as `cosign verify-attestation --key --type slsaprovenance1`
 * verifies it, whose source repository is one of `repositories`: the most telling verdict
 * when none is (another repository, then another digest, then another key, then none).
 */
export const readProvenance: ProvenanceReader = async (session, digest, verifier, repositories) => {
  const read = await readAttestations(
    session,
    digest,
    SLSA_PROVENANCE_V1,
    verifier,
    MAX_PROVENANCE_BYTES,
  )
  if (read.kind !== 'read') return read
  const named = read.statements.map(statedRepository)
  const accepted = named.find(
    (repository) =>
      repository !== undefined && repositories.some((each) => sameRepository(each, repository)),
  )
  if (accepted !== undefined) return { kind: 'proven', repository: accepted }
  if (named.length > 0) return { kind: 'other-repository', repositories: [...new Set(named)] }
  if (read.otherDigests.length > 0)
    return { kind: 'other-digest', digests: [...new Set(read.otherDigests)] }
  return { kind: 'other-key', count: read.otherKey }
}
