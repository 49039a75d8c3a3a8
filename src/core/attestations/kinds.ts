/**
 * The attestations attached to an image, by the names the `attestations` input takes: a SLSA
 * provenance and a CycloneDX SBOM (layout.ts names their predicate types). Kept apart from the
 * code that makes them, which a run loads only when it attests.
 */
export const ATTESTATION_KINDS = ['provenance', 'sbom'] as const
export type AttestationKind = (typeof ATTESTATION_KINDS)[number]

/** How the log and the summary name each. */
export const ATTESTATION_TITLES: Record<AttestationKind, string> = {
  provenance: 'SLSA provenance',
  sbom: 'CycloneDX SBOM',
}
