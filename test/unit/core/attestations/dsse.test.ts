import { describe, expect, test } from '@jest/globals'
import {
  envelopeBody,
  envelopeVerifies,
  IN_TOTO_PAYLOAD_TYPE,
  pae,
  readEnvelope,
  seal,
} from '../../../../src/core/attestations/dsse.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { SIGNATURE_ANNOTATION } from '../../../../src/core/signing/cosign-layout.js'
import type { Signer } from '../../../../src/core/signing/signer.js'
import { newSigningKey, signerOf } from '../../../helpers/attestations.js'

const OURS = signerOf(newSigningKey())
const OTHER = signerOf(newSigningKey())

describe('PAE, the pre-authentication encoding DSSE signs', () => {
  test("the DSSE specification's own example", () => {
    expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe(
      'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
    )
  })

  test('lengths count bytes, not characters', () => {
    expect(pae('t', Buffer.from('é', 'utf8')).toString('utf8')).toBe('DSSEv1 1 t 2 é')
  })
})

describe('seal and open an envelope', () => {
  const statement = '{"_type":"https://in-toto.io/Statement/v1"}'

  test('as cosign writes it: type, base64 payload, one signature with an empty key id', async () => {
    const sealed = await seal(statement, IN_TOTO_PAYLOAD_TYPE, OURS)
    const envelope = JSON.parse(sealed.text) as Record<string, unknown>
    expect(Object.keys(envelope)).toEqual(['payloadType', 'payload', 'signatures'])
    expect(envelope).toEqual({
      payloadType: 'application/vnd.in-toto+json',
      payload: Buffer.from(statement).toString('base64'),
      signatures: [{ keyid: '', sig: expect.stringMatching(/^[A-Za-z0-9+/]+={0,2}$/) }],
    })
    // The signature is inside the envelope: the layer carries nothing else of the key signer.
    expect(sealed.annotations).toEqual({})
  })

  test('its signature verifies over the PAE under its key, and under no other', async () => {
    const sealed = await seal(statement, IN_TOTO_PAYLOAD_TYPE, OURS)
    const envelope = readEnvelope(sealed.text)
    if (isProblem(envelope)) throw new Error(envelope.problem)
    const body = envelopeBody(envelope) ?? Buffer.alloc(0)
    expect(body.toString()).toBe(statement)
    expect(await envelopeVerifies(envelope, body, OURS.verifier)).toBe(true)
    expect(await envelopeVerifies(envelope, body, OTHER.verifier)).toBe(false)
    // Another body, or another payload type, under the same signature: refused.
    expect(await envelopeVerifies(envelope, Buffer.from(`${statement} `), OURS.verifier)).toBe(
      false,
    )
    const retyped = { ...envelope, payloadType: 'application/json' }
    expect(await envelopeVerifies(retyped, body, OURS.verifier)).toBe(false)
  })

  test("a signer's other annotations (a certificate, a bundle) stay on the layer", async () => {
    const keyless: Signer = {
      shown: 'a keyless signer',
      verifier: OURS.verifier,
      sign: () =>
        Promise.resolve({
          [SIGNATURE_ANNOTATION]: 'c2ln',
          'dev.sigstore.cosign/certificate': 'CERT',
        }),
    }
    const sealed = await seal(statement, IN_TOTO_PAYLOAD_TYPE, keyless)
    expect(sealed.annotations).toEqual({ 'dev.sigstore.cosign/certificate': 'CERT' })
    expect(JSON.parse(sealed.text)).toMatchObject({ signatures: [{ keyid: '', sig: 'c2ln' }] })
  })

  test.each([
    ['not JSON', 'nope', 'it is not a JSON envelope'],
    [
      'no signatures',
      '{"payloadType":"t","payload":""}',
      'it is not a DSSE envelope (payloadType, payload, signatures)',
    ],
  ])('an envelope that is %s is none', (_name, text, problem) => {
    expect(readEnvelope(text)).toEqual({ problem })
  })

  test('a payload that is not base64 has no body', () => {
    expect(
      envelopeBody({ payloadType: 't', payload: 'not base64!', signatures: [] }),
    ).toBeUndefined()
  })
})
