import { Unreachable } from '../registry/ask.js'
import { getBlob } from '../registry/manifests.js'
import type { RegistrySession } from '../registry/session.js'
import { isProblem } from '../shared/problem.js'
import {
  blobOf,
  readPayload,
  SIGNATURE_ANNOTATION,
  signatureLayer,
  signatureTag,
  type LayerDescriptor,
  type PayloadClaims,
} from './cosign-layout.js'
import { appendToCosignManifest, readCosignManifest } from './cosign-manifest.js'
import type { SignatureVerifier } from './signer.js'

/** A payload is a few hundred bytes; cosign's own limit on a signature layer is far above this. */
const MAX_PAYLOAD_BYTES = 128 * 1024
/** Signatures read for one digest, at most: each key that signed it adds one. */
const MAX_SIGNATURES = 32

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

/** Reads the signatures of a digest (readSignatures), for those who are given it. */
export type SignaturesReader = typeof readSignatures

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
  const read = await readCosignManifest(session, tag, 'signature')
  if ('kind' in read)
    return {
      verdict: { kind: read.kind === 'missing' ? 'unsigned' : read.kind, detail: read.detail },
    }
  const layers = read.layers.filter(
    (layer) => typeof layer.annotations?.[SIGNATURE_ANNOTATION] === 'string',
  )
  if (layers.length === 0)
    return {
      verdict: { kind: 'unsigned', detail: `'${tag}' holds no signature` },
      manifest: read.document,
    }
  try {
    const verdict = await judge(session, digest, layers.slice(0, MAX_SIGNATURES), verifier)
    return { verdict, manifest: read.document }
  } catch (error) {
    if (error instanceof Unreachable)
      return { verdict: { kind: 'unreachable', detail: error.message } }
    throw error
  }
}

async function judge(
  session: RegistrySession,
  digest: string,
  layers: readonly LayerDescriptor[],
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
    if (isProblem(read)) continue
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
export function addSignature(
  session: RegistrySession,
  digest: string,
  existing: Record<string, unknown> | undefined,
  payload: string,
  annotations: Record<string, string>,
): Promise<string | undefined> {
  const blob = blobOf(payload)
  return appendToCosignManifest(
    session,
    signatureTag(digest),
    existing,
    [{ blob, layer: signatureLayer(blob, annotations) }],
    { blob: 'payload', manifest: 'signature' },
  )
}
