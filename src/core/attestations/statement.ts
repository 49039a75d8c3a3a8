import { isObject, jsonValue } from '../shared/json-text.js'
import type { Problem } from '../shared/problem.js'

/**
 * The in-toto Statement (https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md):
 * what an attestation says (its predicate, of a type named by a URI) about which artifacts (its
 * subjects, each by name and digest). For an image, one subject: the repository as cosign names
 * it, and the digest of the manifest that deploy pins.
 */

export const STATEMENT_V1 = 'https://in-toto.io/Statement/v1'
/** The header `cosign attest` 2.5 still writes (in-toto-golang's v0.1): read, never written. */
export const STATEMENT_V01 = 'https://in-toto.io/Statement/v0.1'

export interface Subject {
  name: string
  /** Algorithm to lowercase hex: `{ "sha256": "…" }`. */
  digest: Record<string, string>
}

export interface Statement {
  _type: string
  subject: Subject[]
  predicateType: string
  predicate: Record<string, unknown>
}

/** The subject of an image: its repository and the digest of its manifest, `sha256:<hex>`. */
export function imageSubject(name: string, digest: string): Subject {
  const [algorithm = '', hex = ''] = digest.split(':')
  return { name, digest: { [algorithm]: hex } }
}

/** A Statement v1 about `subject`, as the JSON text that the envelope carries. */
export function statementText(
  subject: Subject,
  predicateType: string,
  predicate: Record<string, unknown>,
): string {
  const statement: Statement = { _type: STATEMENT_V1, subject: [subject], predicateType, predicate }
  return JSON.stringify(statement)
}

/** A statement's JSON text, read: its header checked, its predicate an object; else why not. */
export function readStatement(text: string): Statement | Problem {
  const document = jsonValue(text)
  if (!isObject(document)) return { problem: 'its payload is not a JSON object' }
  const { _type: type, subject, predicateType, predicate } = document
  if (type !== STATEMENT_V1 && type !== STATEMENT_V01)
    return {
      problem: `its payload is not an in-toto statement ('_type' is ${type === undefined ? 'missing' : JSON.stringify(type)})`,
    }
  if (typeof predicateType !== 'string' || predicateType === '')
    return { problem: 'its statement names no predicate type' }
  if (!Array.isArray(subject) || !subject.every(isSubject))
    return { problem: 'its statement has no valid subject list' }
  if (!isObject(predicate)) return { problem: 'its statement has no predicate object' }
  return { _type: type, subject, predicateType, predicate }
}

function isSubject(value: unknown): value is Subject {
  return (
    isObject(value) &&
    typeof value.name === 'string' &&
    isObject(value.digest) &&
    Object.values(value.digest).every((hex) => typeof hex === 'string')
  )
}

/** Whether a subject of the statement is `digest` (`sha256:<hex>`), as cosign's claim check asks. */
export function namesDigest(statement: Statement, digest: string): boolean {
  const [algorithm = '', hex = ''] = digest.split(':')
  return statement.subject.some((subject) => subject.digest[algorithm] === hex)
}

/** The digests the statement's subjects name, `sha256:<hex>`, for messages. */
export function subjectDigests(statement: Statement): string[] {
  return statement.subject.flatMap((subject) =>
    Object.entries(subject.digest).map(([algorithm, hex]) => `${algorithm}:${hex}`),
  )
}
