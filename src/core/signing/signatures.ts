import { Unreachable } from '../registry/ask.js'
import { pushBlob } from '../registry/blobs.js'
import { getBlob, getManifest, tagManifest, type Manifest } from '../registry/manifests.js'
import type { RegistrySession } from '../registry/session.js'
import { isObject, jsonValue } from '../shared/json-text.js'
import {
  appendedManifest,
  blobOf,
  existingLayers,
  readPayload,
  SIGNATURE_ANNOTATION,
  signatureLayer,
  signatureTag,
  type PayloadClaims,
} from './cosign-layout.js'
import type { SignatureVerifier } from './signer.js'

/** A payload is a few hundred bytes; cosign's own limit on a signature layer is far above this. */
const MAX_PAYLOAD_BYTES = 128 * 1024
/** Signatures read for one digest, at most: each key that signed it adds one. */
const MAX_SIGNATURES = 32
const IMAGE_MANIFESTS = new Set([
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
])

/** What the registry holds for one digest, judged with one verifier. */
export type SignatureVerdict =
  /** At least one signature verifies and names this digest: the claims of each such one. */
  | { kind: 'signed'; claims: PayloadClaims[] }
  /** No `.sig` tag, or one whose manifest holds no signature. */
  | { kind: 'unsigned'; detail: string }
  /** Signatures that this verifier does not accept: made with another key. */
  | { kind: 'other-key'; count: number }
  /** A signature this verifier accepts, made for another digest (moved from another image). */
  | { kind: 'other-digest'; digests: string[] }
  | { kind: 'unusable' | 'unauthorised' | 'unreachable'; detail: string }

export interface SignaturesRead {
  verdict: SignatureVerdict
  /** The `.sig` manifest as read, to add a signature to; undefined when there is none. */
  manifest?: Record<string, unknown>
}

/**
 * The signatures of `digest` in the session's repository (its `sha256-<hex>.sig` tag), each
 * checked as `cosign verify --key` checks it: the signature over the payload's bytes under the
 * verifier, then the payload's claim that it signs this digest. Annotations besides the
 * signature (a Rekor bundle, a certificate) are not required, as with `--insecure-ignore-tlog`.
 */
export async function readSignatures(
  session: RegistrySession,
  digest: string,
  verifier: SignatureVerifier,
): Promise<SignaturesRead> {
  const tag = signatureTag(digest)
  try {
    const got = await getManifest(session, tag)
    if ('kind' in got) {
      if (got.kind === 'missing')
        return { verdict: { kind: 'unsigned', detail: `no '${tag}' in its repository` } }
      return { verdict: { kind: got.kind, detail: `'${tag}': ${got.detail}` } }
    }
    const document = manifestDocument(got)
    if (typeof document === 'string')
      return { verdict: { kind: 'unusable', detail: `'${tag}' ${document}` } }
    const layers = (existingLayers(document) ?? []).filter(
      (layer) => typeof layer.annotations?.[SIGNATURE_ANNOTATION] === 'string',
    )
    if (layers.length === 0)
      return {
        verdict: { kind: 'unsigned', detail: `'${tag}' holds no signature` },
        manifest: document,
      }
    const verdict = await judge(session, digest, layers.slice(0, MAX_SIGNATURES), verifier)
    return { verdict, manifest: document }
  } catch (error) {
    if (error instanceof Unreachable)
      return { verdict: { kind: 'unreachable', detail: error.message } }
    throw error
  }
}

function manifestDocument(manifest: Manifest): Record<string, unknown> | string {
  if (!IMAGE_MANIFESTS.has(manifest.mediaType))
    return `is a '${manifest.mediaType || 'manifest of no media type'}', not a signature manifest`
  const document = jsonValue(manifest.body)
  return isObject(document) ? document : 'is not a JSON manifest'
}

type Layer = NonNullable<ReturnType<typeof existingLayers>>[number]

async function judge(
  session: RegistrySession,
  digest: string,
  layers: readonly Layer[],
  verifier: SignatureVerifier,
): Promise<SignatureVerdict> {
  const claims: PayloadClaims[] = []
  const otherDigests: string[] = []
  let unreadable: SignatureVerdict | undefined
  for (const layer of layers) {
    if (layer.size > MAX_PAYLOAD_BYTES) continue
    const payload = await getBlob(
      session,
      layer.digest,
      `the signature payload ${layer.digest}`,
      MAX_PAYLOAD_BYTES,
    )
    if (typeof payload !== 'string') {
      unreadable ??= payload
      continue
    }
    if (!(await verifier.verify(Buffer.from(payload, 'utf8'), layer.annotations ?? {}))) continue
    const read = readPayload(payload)
    // cosign's claim check: a payload it cannot read, or of another digest, is refused.
    if ('problem' in read) continue
    if (read.digest === digest) claims.push(read)
    else otherDigests.push(read.digest)
  }
  if (claims.length > 0) return { kind: 'signed', claims }
  if (otherDigests.length > 0) return { kind: 'other-digest', digests: otherDigests }
  if (unreadable) return unreadable
  return { kind: 'other-key', count: layers.length }
}

/**
 * Adds one signature of `payload` to the `.sig` manifest of `digest`: the payload's blob, the
 * manifest with the signatures already there kept, its configuration, then the tag. Undefined
 * once the tag names the new manifest, else why not. Like cosign, a signature another job adds
 * between the read and the write is lost: signing is safe to run again.
 */
export async function addSignature(
  session: RegistrySession,
  digest: string,
  existing: Record<string, unknown> | undefined,
  payload: string,
  annotations: Record<string, string>,
): Promise<string | undefined> {
  const blob = blobOf(payload)
  const problem = await pushBlob(session, blob)
  if (problem) return `uploading the payload failed: ${problem}`
  const manifest = appendedManifest(existing, signatureLayer(blob, annotations))
  const configProblem = await pushBlob(session, manifest.config)
  if (configProblem)
    return `uploading the signature manifest's configuration failed: ${configProblem}`
  const written = blobOf(manifest.text)
  const tagProblem = await tagManifest(
    session,
    { body: manifest.text, mediaType: manifest.mediaType, digest: written.digest },
    signatureTag(digest),
  )
  return tagProblem ? `writing '${signatureTag(digest)}' failed: ${tagProblem}` : undefined
}
