import { registryImage } from '../registry/reference.js'
import type { RegistrySession } from '../registry/session.js'
import { isObject, jsonValue } from '../shared/json-text.js'
import { isProblem, type Problem } from '../shared/problem.js'
import { blobOf, dockerReference } from '../signing/cosign-layout.js'
import { appendToCosignManifest, readCosignManifest } from '../signing/cosign-manifest.js'
import type { Signer } from '../signing/signer.js'
import { IN_TOTO_PAYLOAD_TYPE, seal } from './dsse.js'
import type { AttestationFacts } from './facts.js'
import { ATTESTATION_KINDS, type AttestationKind } from './kinds.js'
import { attestationLayer, attestationTag, CYCLONEDX_BOM, SLSA_PROVENANCE_V1 } from './layout.js'
import { provenancePredicate } from './provenance.js'
import { readAttestations } from './read.js'
import type { CycloneDxWriter } from './sbom.js'
import { imageSubject, statementText } from './statement.js'

export const PREDICATE_TYPES: Record<AttestationKind, string> = {
  provenance: SLSA_PROVENANCE_V1,
  sbom: CYCLONEDX_BOM,
}

/** The image to attest: its reference, and the digest of its manifest (a PinnedReference fits). */
export interface AttestedImage {
  reference: string
  digest: string
}

export interface AttachPorts {
  /** A session on the image's repository that may push. */
  session: RegistrySession
  /**
   * Makes the SBOM (sbom.ts's cycloneDxSbom): the CycloneDX library is large, so the caller
   * loads it, and only when an SBOM is asked for.
   */
  cycloneDx?: CycloneDxWriter
}

/** What was attached: the tag, each document attested (JSON text, for files and summaries). */
export interface Attached {
  tag: string
  /** The predicate of each attestation written: the provenance, and the SBOM as CycloneDX JSON. */
  documents: Partial<Record<AttestationKind, string>>
  /** Attestations the manifest held before, kept beside the new ones. */
  kept: number
}

/**
 * Attaches the attestations of `kinds` to the image, as `cosign attest --key` would, in one
 * write: each an in-toto statement about the image's digest in a DSSE envelope signed by
 * `signer`, the envelopes appended to its `.att` manifest (other attestations kept), then read
 * back as `cosign verify-attestation` reads them. Logs nothing: says what was attached, or why not.
 */
export async function attachAttestations(
  image: AttestedImage,
  facts: AttestationFacts,
  signer: Signer,
  ports: AttachPorts,
  kinds: readonly AttestationKind[] = ATTESTATION_KINDS,
): Promise<Attached | Problem> {
  const target = registryImage(image.reference)
  if (isProblem(target)) return target
  const subject = imageSubject(dockerReference(target.registry, target.repository), image.digest)
  const documents: Partial<Record<AttestationKind, string>> = {}
  const added = []
  for (const kind of kinds) {
    const predicate = predicateOf(kind, image, facts, ports)
    if (isProblem(predicate)) return predicate
    documents[kind] = JSON.stringify(predicate.value)
    const statement = statementText(subject, PREDICATE_TYPES[kind], predicate.value)
    const sealed = await seal(statement, IN_TOTO_PAYLOAD_TYPE, signer)
    const blob = blobOf(sealed.text)
    added.push({ blob, layer: attestationLayer(blob, PREDICATE_TYPES[kind], sealed.annotations) })
  }
  const tag = attestationTag(image.digest)
  const before = await readCosignManifest(ports.session, tag, 'attestation')
  if ('kind' in before && before.kind !== 'missing')
    return { problem: `its attestations could not be read (${before.detail})` }
  const existing = 'kind' in before ? undefined : before
  const problem = await appendToCosignManifest(ports.session, tag, existing?.document, added, {
    blob: 'attestation envelope',
    manifest: 'attestation',
  })
  if (problem) return { problem }
  // What a verifier will find: read back, as `cosign verify-attestation` would read it.
  for (const kind of kinds) {
    const read = await readAttestations(
      ports.session,
      image.digest,
      PREDICATE_TYPES[kind],
      signer.verifier,
    )
    if (read.kind !== 'read' || read.statements.length === 0)
      return {
        problem: `the attestations were written, but reading '${tag}' back does not find the ${kind} (${read.kind === 'read' ? `${read.otherKey} under other keys` : read.detail})`,
      }
  }
  return { tag, documents, kept: existing?.layers.length ?? 0 }
}

function predicateOf(
  kind: AttestationKind,
  image: AttestedImage,
  facts: AttestationFacts,
  ports: AttachPorts,
): { value: Record<string, unknown> } | Problem {
  if (kind === 'provenance') return { value: provenancePredicate(facts) }
  if (!ports.cycloneDx) return { problem: 'no SBOM writer was given to make the SBOM' }
  const bom = jsonValue(ports.cycloneDx(image, facts))
  return isObject(bom) ? { value: bom } : { problem: 'the SBOM writer made no JSON object' }
}
