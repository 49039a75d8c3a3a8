import { describe, expect, test } from '@jest/globals'
import {
  imageSubject,
  namesDigest,
  readStatement,
  statementText,
  subjectDigests,
} from '../../../../src/core/attestations/statement.js'
import { isProblem } from '../../../../src/core/shared/problem.js'

const DIGEST = `sha256:${'a'.repeat(64)}`

describe('an in-toto Statement v1 about an image', () => {
  test('its subject is the repository and the digest of its manifest', () => {
    const text = statementText(
      imageSubject('reg.example.com/acme/shop/frontend', DIGEST),
      'https://slsa.dev/provenance/v1',
      { x: 1 },
    )
    expect(JSON.parse(text)).toEqual({
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{ name: 'reg.example.com/acme/shop/frontend', digest: { sha256: 'a'.repeat(64) } }],
      predicateType: 'https://slsa.dev/provenance/v1',
      predicate: { x: 1 },
    })
  })

  test('read back: it names its digest, and no other', () => {
    const read = readStatement(statementText(imageSubject('r/x', DIGEST), 'p', {}))
    if (isProblem(read)) throw new Error(read.problem)
    expect(namesDigest(read, DIGEST)).toBe(true)
    expect(namesDigest(read, `sha256:${'b'.repeat(64)}`)).toBe(false)
    expect(subjectDigests(read)).toEqual([DIGEST])
  })

  test("cosign attest's v0.1 header is read too", () => {
    const text = JSON.stringify({
      _type: 'https://in-toto.io/Statement/v0.1',
      predicateType: 'p',
      subject: [{ name: 'r/x', digest: { sha256: 'a'.repeat(64) } }],
      predicate: {},
    })
    expect(readStatement(text)).toMatchObject({ _type: 'https://in-toto.io/Statement/v0.1' })
  })

  test.each([
    ['not JSON', '[1', 'its payload is not a JSON object'],
    [
      'of another type',
      '{"_type":"https://example.com/x"}',
      `its payload is not an in-toto statement ('_type' is "https://example.com/x")`,
    ],
    ['without a type', '{}', "its payload is not an in-toto statement ('_type' is missing)"],
    [
      'without a predicate type',
      '{"_type":"https://in-toto.io/Statement/v1","subject":[],"predicate":{}}',
      'its statement names no predicate type',
    ],
    [
      'with a subject of no digest',
      '{"_type":"https://in-toto.io/Statement/v1","predicateType":"p","subject":[{"name":"x"}],"predicate":{}}',
      'its statement has no valid subject list',
    ],
    [
      'without a predicate',
      '{"_type":"https://in-toto.io/Statement/v1","predicateType":"p","subject":[]}',
      'its statement has no predicate object',
    ],
  ])('a payload %s is refused', (_name, text, problem) => {
    expect(readStatement(text)).toEqual({ problem })
  })
})
