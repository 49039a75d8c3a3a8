import type { Blob } from '../registry/blobs.js'
import { SIGNATURE_ANNOTATION, type LayerDescriptor } from '../signing/cosign-layout.js'

/**
 * Attestations as cosign 2.5 stores them (`cosign attest`, pkg/oci/static and
 * pkg/oci/remote): for the image `<repository>@sha256:<hex>`, the tag `sha256-<hex>.att` in the
 * same repository names an OCI image manifest, beside the `.sig` of its signatures, whose layers
 * are DSSE envelopes, one per attestation, each annotated with its statement's predicate type
 * and an empty signature annotation (the signature is inside the envelope). A new attestation is
 * appended, the others kept. `cosign verify-attestation`, Kyverno and Sigstore's
 * policy-controller read them there.
 */

/** The media type of a layer that holds a DSSE envelope. */
export const DSSE_LAYER_TYPE = 'application/vnd.dsse.envelope.v1+json'
/** The layer annotation naming the statement's predicate type, as cosign writes it. */
export const PREDICATE_TYPE_ANNOTATION = 'predicateType'

/** SLSA provenance v1 (https://slsa.dev/spec/v1.0/provenance): `--type slsaprovenance1`. */
export const SLSA_PROVENANCE_V1 = 'https://slsa.dev/provenance/v1'
/** A CycloneDX BOM (https://cyclonedx.org/bom): `--type cyclonedx`. */
export const CYCLONEDX_BOM = 'https://cyclonedx.org/bom'

/** `sha256:<hex>` → `sha256-<hex>.att`: where cosign keeps the attestations of that digest. */
export function attestationTag(digest: string): string {
  return `${digest.replace(':', '-')}.att`
}

/**
 * The layer of an envelope, as cosign describes it: its annotations in the order Go's encoder
 * writes a map's keys (sorted), the signer's others (a certificate, a bundle) among them.
 */
export function attestationLayer(
  envelope: Blob & { size: number },
  predicateType: string,
  annotations: Readonly<Record<string, string>> = {},
): LayerDescriptor {
  const all: Record<string, string> = {
    ...annotations,
    [SIGNATURE_ANNOTATION]: '',
    [PREDICATE_TYPE_ANNOTATION]: predicateType,
  }
  const sorted = Object.fromEntries(
    Object.keys(all)
      .sort()
      .map((key) => [key, all[key] ?? '']),
  )
  return {
    mediaType: DSSE_LAYER_TYPE,
    size: envelope.size,
    digest: envelope.digest,
    annotations: sorted,
  }
}
