import { Unreachable } from '../registry/ask.js'
import { getBlob } from '../registry/manifests.js'
import type { RegistrySession } from '../registry/session.js'
import { isProblem } from '../shared/problem.js'
import type { LayerDescriptor } from '../signing/cosign-layout.js'
import { readCosignManifest } from '../signing/cosign-manifest.js'
import type { SignatureVerifier } from '../signing/signer.js'
import { envelopeBody, envelopeVerifies, IN_TOTO_PAYLOAD_TYPE, readEnvelope } from './dsse.js'
import { attestationTag, DSSE_LAYER_TYPE, PREDICATE_TYPE_ANNOTATION } from './layout.js'
import { namesDigest, readStatement, subjectDigests, type Statement } from './statement.js'

/** Envelopes read for one digest and type, at most: a rebuild of the same digest adds one. */
const MAX_ENVELOPES = 32
/** A provenance is a few kilobytes, an SBOM up to megabytes (one line per locked package). */
export const MAX_ENVELOPE_BYTES = 32 * 1024 * 1024

/** What the `.att` manifest of a digest holds of one predicate type, judged with one verifier. */
export type AttestationsRead =
  /**
   * The statements of that type whose envelope verifies and whose subject is the digest; those
   * that verify for other digests; and how many envelopes of that type did not verify.
   */
  | { kind: 'read'; statements: Statement[]; otherDigests: string[]; otherKey: number }
  /** No `.att` tag, or one that holds no envelope of that type. */
  | { kind: 'none'; detail: string }
  | { kind: 'unusable' | 'unauthorised' | 'unreachable'; detail: string }

/**
 * The attestations of `predicateType` for `digest` in the session's repository (its
 * `sha256-<hex>.att` tag), each checked as `cosign verify-attestation --key` checks it: an
 * in-toto envelope whose signature verifies over its PAE under the verifier, whose statement is
 * of that type (the layer's annotation only picks what to read), and one of whose subjects is the
 * digest. As with `--insecure-ignore-tlog`, no transparency log entry is required.
 */
export async function readAttestations(
  session: RegistrySession,
  digest: string,
  predicateType: string,
  verifier: SignatureVerifier,
  maxBytes = MAX_ENVELOPE_BYTES,
): Promise<AttestationsRead> {
  const tag = attestationTag(digest)
  const read = await readCosignManifest(session, tag, 'attestation')
  if ('kind' in read)
    return { kind: read.kind === 'missing' ? 'none' : read.kind, detail: read.detail }
  const layers = read.layers.filter((layer) => ofType(layer, predicateType))
  if (layers.length === 0)
    return { kind: 'none', detail: `'${tag}' holds no attestation of type ${predicateType}` }
  try {
    return await judge(session, digest, predicateType, layers.slice(-MAX_ENVELOPES), {
      verifier,
      maxBytes,
    })
  } catch (error) {
    if (error instanceof Unreachable) return { kind: 'unreachable', detail: error.message }
    throw error
  }
}

/** A layer that may hold an envelope of the type: annotated with it, or with no type at all. */
function ofType(layer: LayerDescriptor, predicateType: string): boolean {
  if (layer.mediaType !== DSSE_LAYER_TYPE) return false
  const annotated = layer.annotations?.[PREDICATE_TYPE_ANNOTATION]
  return annotated === undefined || annotated === predicateType
}

async function judge(
  session: RegistrySession,
  digest: string,
  predicateType: string,
  layers: readonly LayerDescriptor[],
  limits: { verifier: SignatureVerifier; maxBytes: number },
): Promise<AttestationsRead> {
  const statements: Statement[] = []
  const otherDigests: string[] = []
  let otherKey = 0
  let ofThatType = 0
  let unreadable: AttestationsRead | undefined
  for (const layer of layers) {
    if (layer.size > limits.maxBytes) {
      unreadable ??= {
        kind: 'unusable',
        detail: `the envelope ${layer.digest} is larger than ${limits.maxBytes} bytes`,
      }
      continue
    }
    const text = await getBlob(
      session,
      layer.digest,
      `the envelope ${layer.digest}`,
      limits.maxBytes,
    )
    if (typeof text !== 'string') {
      unreadable ??= text
      continue
    }
    const opened = await open(text, limits.verifier, layer.annotations ?? {})
    if (opened === 'unread') continue
    if (opened === 'other-key') {
      // Unverified, its type is only the layer's word for it: counted when it said so.
      if (layer.annotations?.[PREDICATE_TYPE_ANNOTATION] === predicateType) otherKey++
      continue
    }
    if (opened.predicateType !== predicateType) continue
    ofThatType++
    if (namesDigest(opened, digest)) statements.push(opened)
    else otherDigests.push(...subjectDigests(opened))
  }
  if (ofThatType > 0 || otherKey > 0) return { kind: 'read', statements, otherDigests, otherKey }
  return (
    unreadable ?? {
      kind: 'none',
      detail: `'${attestationTag(digest)}' holds no attestation of type ${predicateType}`,
    }
  )
}

/** The statement of a verified in-toto envelope; 'other-key' when none of its signatures verify. */
async function open(
  text: string,
  verifier: SignatureVerifier,
  annotations: Readonly<Record<string, string>>,
): Promise<Statement | 'other-key' | 'unread'> {
  const envelope = readEnvelope(text)
  if (isProblem(envelope) || envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE) return 'unread'
  const body = envelopeBody(envelope)
  if (!body) return 'unread'
  if (!(await envelopeVerifies(envelope, body, verifier, annotations))) return 'other-key'
  const statement = readStatement(body.toString('utf8'))
  return isProblem(statement) ? 'unread' : statement
}
