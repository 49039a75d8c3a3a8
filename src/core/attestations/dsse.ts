import { isObject, jsonValue } from '../shared/json-text.js'
import type { Problem } from '../shared/problem.js'
import { SIGNATURE_ANNOTATION } from '../signing/cosign-layout.js'
import type { SignatureVerifier, Signer } from '../signing/signer.js'

/**
 * DSSE, the Dead Simple Signing Envelope (https://github.com/secure-systems-lab/dsse, protocol
 * and envelope v1), as cosign 2.5 writes it for an attestation: the statement in base64, its
 * type, and signatures over its pre-authentication encoding (PAE), never over the JSON. The
 * signer is the one that signs images (signer.ts): what it makes for a payload is the layer
 * annotation cosign reads a signature from; here it signs the PAE, its signature goes into the
 * envelope, and whatever else it adds (a certificate, a bundle) stays on the layer.
 */

/** The payload type of an in-toto statement, the one cosign signs and verifies. */
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json'

/**
 * `PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, lengths as ASCII
 * decimal byte counts: what is signed, so that neither the type nor the body can be swapped.
 */
export function pae(payloadType: string, body: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8')
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'utf8'),
    type,
    Buffer.from(` ${body.length} `, 'utf8'),
    body,
  ])
}

export interface EnvelopeSignature {
  keyid: string
  sig: string
}

export interface Envelope {
  payloadType: string
  /** The body, base64 (standard alphabet, padded). */
  payload: string
  signatures: EnvelopeSignature[]
}

/** A sealed envelope: its JSON text, and the annotations its layer carries besides. */
export interface Sealed {
  text: string
  annotations: Record<string, string>
}

/**
 * The envelope of `body`, signed by `signer`, as go-securesystemslib's encoder writes it (fields
 * in this order, an empty key id: cosign's).
 */
export async function seal(body: string, payloadType: string, signer: Signer): Promise<Sealed> {
  const bytes = Buffer.from(body, 'utf8')
  const { [SIGNATURE_ANNOTATION]: sig = '', ...annotations } = await signer.sign(
    pae(payloadType, bytes),
  )
  const envelope: Envelope = {
    payloadType,
    payload: bytes.toString('base64'),
    signatures: [{ keyid: '', sig }],
  }
  return { text: JSON.stringify(envelope), annotations }
}

/** An envelope's JSON text, read; else why it is none. */
export function readEnvelope(text: string): Envelope | Problem {
  const document = jsonValue(text)
  if (!isObject(document)) return { problem: 'it is not a JSON envelope' }
  const { payloadType, payload, signatures } = document
  if (typeof payloadType !== 'string' || typeof payload !== 'string' || !Array.isArray(signatures))
    return { problem: 'it is not a DSSE envelope (payloadType, payload, signatures)' }
  const valid = signatures.flatMap((each) =>
    isObject(each) && typeof each.sig === 'string'
      ? [{ keyid: typeof each.keyid === 'string' ? each.keyid : '', sig: each.sig }]
      : [],
  )
  return { payloadType, payload, signatures: valid }
}

/** The envelope's body, decoded: base64 that is not, or not UTF-8, is none. */
export function envelopeBody(envelope: Envelope): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(envelope.payload)) return undefined
  return Buffer.from(envelope.payload, 'base64')
}

/**
 * Whether a signature of the envelope verifies over its PAE under `verifier`, as cosign's
 * envelope verifier checks one (any signature, whatever its key id); `annotations` are the
 * layer's, for a verifier that needs more than the signature.
 */
export async function envelopeVerifies(
  envelope: Envelope,
  body: Buffer,
  verifier: SignatureVerifier,
  annotations: Readonly<Record<string, string>> = {},
): Promise<boolean> {
  const signed = pae(envelope.payloadType, body)
  for (const { sig } of envelope.signatures)
    if (await verifier.verify(signed, { ...annotations, [SIGNATURE_ANNOTATION]: sig })) return true
  return false
}
