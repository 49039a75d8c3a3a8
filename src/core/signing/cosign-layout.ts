import { createHash } from 'node:crypto'
import { isObject, jsonValue } from '../shared/json-text.js'
import type { Blob } from '../registry/blobs.js'
import type { Problem } from '../shared/problem.js'

/**
 * Cosign's key-based signatures as cosign 2 writes and reads them (sigstore's "simple signing"):
 * for the image `<repository>@sha256:<hex>`, the tag `sha256-<hex>.sig` in the same repository
 * names an OCI image manifest whose layers are the signed payloads, each layer's annotation
 * `dev.cosignproject.cosign/signature` holding the base64 signature of that layer's bytes.
 * Written byte for byte as cosign writes them, so that `cosign verify`, Kyverno and Sigstore's
 * policy-controller read ours, and we read theirs.
 */

export const SIGNATURE_ANNOTATION = 'dev.cosignproject.cosign/signature'
export const SIMPLE_SIGNING_TYPE = 'application/vnd.dev.cosign.simplesigning.v1+json'
/** The `critical.type` every cosign payload names. */
export const COSIGN_SIGNATURE_TYPE = 'cosign container image signature'
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json'
const OCI_CONFIG = 'application/vnd.oci.image.config.v1+json'
/** The time go-containerregistry writes for an image with none: Go's zero time. */
const ZERO_TIME = '0001-01-01T00:00:00Z'

/** `sha256:<hex>` → `sha256-<hex>.sig`: where cosign keeps the signatures of that digest. */
export function signatureTag(digest: string): string {
  return `${digest.replace(':', '-')}.sig`
}

/**
 * The payload cosign signs (sigstore's SimpleContainerImage), as Go's encoding/json writes it:
 * fields in declaration order, map keys sorted, `optional` null when there is nothing in it.
 * `dockerReference` is the repository as cosign names it (see dockerReference).
 */
export function simpleSigningPayload(
  dockerReference: string,
  digest: string,
  optional: Readonly<Record<string, string>> = {},
): string {
  const keys = Object.keys(optional).sort()
  const annotations =
    keys.length === 0
      ? 'null'
      : `{${keys.map((key) => `${goString(key)}:${goString(optional[key] ?? '')}`).join(',')}}`
  return `{"critical":{"identity":{"docker-reference":${goString(dockerReference)}},"image":{"docker-manifest-digest":${goString(digest)}},"type":${goString(COSIGN_SIGNATURE_TYPE)}},"optional":${annotations}}`
}

/**
 * The repository as go-containerregistry names it in the payload (`ref.Context().Name()`):
 * `<registry>/<repository>`, Docker Hub as `index.docker.io`.
 */
export function dockerReference(registry: string, repository: string): string {
  return `${registry === 'docker.io' ? 'index.docker.io' : registry}/${repository}`
}

/** JSON.stringify, then the characters Go's encoder escapes besides (HTML-safe output). */
function goString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** What a payload claims, as cosign's claim check reads it. */
export interface PayloadClaims {
  /** `critical.image.docker-manifest-digest`: the one claim `cosign verify` checks. */
  digest: string
  /** `optional`: the annotations given at signing (`cosign sign -a key=value`). */
  optional: Record<string, string>
}

export function readPayload(text: string): PayloadClaims | Problem {
  const document = jsonValue(text)
  if (document === undefined) return { problem: 'its payload is not JSON' }
  const critical = field(document, 'critical')
  const digest = field(field(critical, 'image'), 'docker-manifest-digest')
  if (typeof digest !== 'string' || digest === '')
    return { problem: 'its payload names no image digest' }
  const optional = field(document, 'optional')
  const strings = isObject(optional)
    ? Object.entries(optional).filter((entry): entry is [string, string] => {
        return typeof entry[1] === 'string'
      })
    : []
  return { digest, optional: Object.fromEntries(strings) }
}

/** A layer of the `.sig` manifest: a payload blob and its annotations. */
export interface LayerDescriptor {
  mediaType: string
  size: number
  digest: string
  annotations?: Record<string, string>
}

/** A payload as the blob it is stored in: SHA-256 of its UTF-8 bytes. */
export function blobOf(text: string): Blob & { size: number } {
  const bytes = Buffer.from(text, 'utf8')
  return {
    digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    size: bytes.length,
    text,
  }
}

/** The layer of a signed payload, as cosign describes it. */
export function signatureLayer(
  payload: Blob & { size: number },
  annotations: Record<string, string>,
): LayerDescriptor {
  return {
    mediaType: SIMPLE_SIGNING_TYPE,
    size: payload.size,
    digest: payload.digest,
    annotations,
  }
}

/** A `.sig` manifest to write: its text, media type, and the configuration blob it names. */
export interface SignatureManifest {
  text: string
  mediaType: string
  config: Blob
}

/**
 * The `.sig` (or `.att`) manifest with `added` appended: the layers of `existing` (another key's
 * signatures, earlier ones of ours, other attestations) kept as they are, and the configuration
 * go-containerregistry computes for them (one history entry and one diff id per layer). Without
 * `existing`, an OCI manifest, as cosign 2 writes by default.
 */
export function appendedManifest(
  existing: Record<string, unknown> | undefined,
  ...added: LayerDescriptor[]
): SignatureManifest {
  const layers = [...(existingLayers(existing) ?? []), ...added]
  const config = blobOf(configText(layers.map((each) => each.digest)))
  const previousConfig = existing?.config
  const configType =
    isObject(previousConfig) && typeof previousConfig.mediaType === 'string'
      ? previousConfig.mediaType
      : OCI_CONFIG
  const mediaType = typeof existing?.mediaType === 'string' ? existing.mediaType : OCI_MANIFEST
  const manifest = {
    ...(existing ?? { schemaVersion: 2 }),
    mediaType,
    config: { mediaType: configType, size: config.size, digest: config.digest },
    layers,
  }
  return { text: JSON.stringify(manifest), mediaType, config }
}

/** The layers of a `.sig` manifest read from the registry; undefined when it has none usable. */
export function existingLayers(
  manifest: Record<string, unknown> | undefined,
): LayerDescriptor[] | undefined {
  const layers = manifest?.layers
  if (!Array.isArray(layers)) return undefined
  return layers.filter(
    (layer): layer is LayerDescriptor =>
      isObject(layer) && typeof layer.digest === 'string' && typeof layer.size === 'number',
  )
}

/** go-containerregistry's configuration of an image of `diffIds` layers with nothing else set. */
function configText(diffIds: readonly string[]): string {
  const history = diffIds.map(() => `{"created":"${ZERO_TIME}"}`).join(',')
  return `{"architecture":"","created":"${ZERO_TIME}","history":[${history}],"os":"","rootfs":{"type":"layers","diff_ids":${JSON.stringify(diffIds)}},"config":{}}`
}

function field(value: unknown, name: string): unknown {
  return isObject(value) ? value[name] : undefined
}
