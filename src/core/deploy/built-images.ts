import * as v from 'valibot'
import { escapeRegExp } from '../shared/regexp.js'
import { BACKEND_NAME_EXPECTED, IMAGE_KINDS, isBackendName } from '../shared/project-images.js'
import { quote } from '../shared/errors.js'
import {
  IMAGE_REFERENCE_EXPECTED,
  isSha256Digest,
  parseImageReference,
} from '../shared/image-ref.js'
import { refine } from '../shared/inputs.js'
import { describeIssues, shortReceived } from '../shared/issues.js'
import { parseJsonText } from '../shared/json-text.js'
import { isProblem, type Problem } from '../shared/problem.js'
import { evaluate, type TooSlow } from './patterns.js'
import type { DeployRule } from './payload-schema.js'

/**
 * `built-images`: build-images' `images` output as it is, or several of them, one JSON list per
 * line (what a fan-in job gathers from its legs). Each entry is sent as `<reference>@<digest>`:
 * the digest build-images pushed, which the image check then asks its registry for (one GET of
 * the manifest by that digest, its bytes hashed), so no tag is resolved again and the platform
 * pulls what was built, or nothing.
 */

/** One backend image of `built-images`, with its name when build-images' `backends` gave one. */
export interface BuiltBackend {
  name?: string
  /** `<reference>@<digest>`, as sent. */
  reference: string
}

export interface BuiltImages {
  frontend?: string
  backends: BuiltBackend[]
  codeasdata?: string
}

const EXAMPLE = `'[{"kind": "backend", "name": "api", "reference": "reg.example.com/shop/backend-api:1.4.0", "digest": "sha256:…"}]'`
const EXPECTED = `expected build-images' 'images' output as it is, or several, one JSON list per line, such as ${EXAMPLE}`

const got =
  (expected: string) =>
  (issue: v.BaseIssue<unknown>): string =>
    `expected ${expected}, got ${shortReceived(issue.received)}`

/** What build-images writes; keys it may add later (`references`, `size`) are not read. */
const EntrySchema = v.object({
  kind: v.picklist(
    IMAGE_KINDS,
    (issue) =>
      `expected one of ${IMAGE_KINDS.map((kind) => `'${kind}'`).join(', ')}, got ${shortReceived(issue.received)}`,
  ),
  name: v.optional(v.string(got('a string'))),
  reference: v.string(got('a string')),
  digest: v.string(got('a string')),
})
type Entry = v.InferOutput<typeof EntrySchema>

const WORDING = {
  missing: {
    kind: "the image's kind: 'frontend', 'backend' or 'codeasdata'",
    reference: 'the image reference build-images pushed',
    digest: "the digest build-images pushed ('sha256:…')",
  },
}

export const builtImages = refine<BuiltImages | undefined>((raw) =>
  raw.trim() === '' ? undefined : parseBuiltImages(raw),
)

export function parseBuiltImages(raw: string): BuiltImages | Problem {
  const images: BuiltImages = { backends: [] }
  const named = new Set<string>()
  const lines = raw.split(/\r?\n/)
  for (const [index, text] of lines.entries()) {
    if (text.trim() === '') continue
    const line = `line ${index + 1}`
    const parsed = parseJsonText(text.trim())
    if (isProblem(parsed)) return { problem: `${line} is ${oneLine(parsed.problem)}; ${EXPECTED}` }
    if (!Array.isArray(parsed.value)) return { problem: `${line} is not a JSON list; ${EXPECTED}` }
    const result = v.safeParse(v.array(EntrySchema), parsed.value)
    if (!result.success)
      return { problem: `${line}: ${describeIssues(result.issues, WORDING).join('; ')}` }
    for (const [position, entry] of result.output.entries()) {
      const where = `${line}, entry [${position}]`
      const problem = add(images, named, entry, where)
      if (problem) return { problem }
    }
  }
  return images
}

/** A syntax error of one line, told by column: the line is the document. */
function oneLine(problem: string): string {
  return problem.replace('at line 1, column', 'at column').replace('after line 1', 'at its end')
}

/** Adds one entry, or says why it cannot be deployed. */
function add(
  images: BuiltImages,
  named: Set<string>,
  entry: Entry,
  where: string,
): string | undefined {
  const sent = sentReference(entry)
  if (typeof sent !== 'string') return `${where}: ${sent.problem}`
  const { kind, name } = entry
  if (name !== undefined) {
    if (kind !== 'backend')
      return `${where}: a ${kind} image has no name; only backend images carry one (build-images' 'backends')`
    if (!isBackendName(name))
      return `${where}: the backend name ${quote(name, 100)} is not one the platform can hold (${BACKEND_NAME_EXPECTED})`
    if (named.has(name))
      return `${where}: the backend '${name}' is listed twice; each named backend takes one image (a fan-in gathers each leg's list once)`
    named.add(name)
  }
  const twice = (input: string): string =>
    `${where}: a second ${kind} image (${quote(entry.reference, 100)}, after ${quote(input, 100)}); a deployment takes one`
  if (kind === 'frontend') {
    if (images.frontend !== undefined) return twice(images.frontend)
    images.frontend = sent
  } else if (kind === 'codeasdata') {
    if (images.codeasdata !== undefined) return twice(images.codeasdata)
    images.codeasdata = sent
  } else images.backends.push({ ...(name === undefined ? {} : { name }), reference: sent })
  return undefined
}

/** `<reference>@<digest>`: the reference build-images pushed, bound to the digest it pushed. */
function sentReference({ reference, digest }: Entry): string | Problem {
  const parsed = parseImageReference(reference)
  if (typeof parsed === 'string')
    return {
      problem: `the reference ${quote(reference, 100)} ${parsed}; ${IMAGE_REFERENCE_EXPECTED}`,
    }
  if (digest === '')
    return {
      problem: `${quote(reference, 100)} has no digest: build-images did not push it ('push: false'), and an image is deployed by the digest pushed; deploy from a run that pushes`,
    }
  if (!isSha256Digest(digest))
    return {
      problem: `the digest ${quote(digest, 100)} of ${quote(reference, 100)} is not one build-images writes; expected 'sha256:' and 64 lower-case hexadecimal characters`,
    }
  if (parsed.digest === undefined) return `${reference}@${digest}`
  if (parsed.digest !== digest)
    return {
      problem: `${quote(reference, 100)} names ${parsed.digest}, but its digest is ${digest}; give build-images' output as it is`,
    }
  return reference
}

/** The named backends, in their order. */
export function namedBackends(images: BuiltImages | undefined): Required<BuiltBackend>[] {
  return (images?.backends ?? []).flatMap((backend) =>
    backend.name === undefined ? [] : [{ name: backend.name, reference: backend.reference }],
  )
}

/** Every reference of `built-images`, as sent. */
export function builtReferences(images: BuiltImages | undefined): Set<string> {
  if (!images) return new Set()
  const { frontend, backends, codeasdata } = images
  return new Set([
    ...(frontend ? [frontend] : []),
    ...backends.map((backend) => backend.reference),
    ...(codeasdata ? [codeasdata] : []),
  ])
}

/**
 * Without `deploy-rules`: one rule per named backend, whose source matches its image and no
 * other's, by tag, by digest, both or neither (`^<repository>(:<tag>)?(@<digest>)?$`), and whose
 * target is its name alone: a backend of another name gets nothing.
 */
export function namedBackendRules(backends: readonly Required<BuiltBackend>[]): DeployRule[] {
  return backends.map(({ name, reference }) => ({
    source: imagePattern(reference),
    target: `^${escapeRegExp(name)}$`,
  }))
}

function imagePattern(reference: string): string {
  const parsed = parseImageReference(reference)
  if (typeof parsed === 'string') throw new Error(`'${reference}' was checked, and ${parsed}`)
  const repository = parsed.domain === undefined ? parsed.path : `${parsed.domain}/${parsed.path}`
  const tag = parsed.tag === undefined ? '' : `(:${escapeRegExp(parsed.tag)})?`
  const digest = parsed.digest === undefined ? '' : `(@${escapeRegExp(parsed.digest)})?`
  return `^${escapeRegExp(repository)}${tag}${digest}$`
}

/**
 * With `deploy-rules`: the named backends no rule gives an image to (no rule whose target matches
 * the name has a source that matches one of the payload's backend images), or the first pattern
 * stopped. Bounded as every evaluation of a user's pattern is (patterns.ts).
 */
export function unreachedBackends(
  backends: readonly Required<BuiltBackend>[],
  rules: readonly DeployRule[],
  images: readonly string[],
  remainingMs: () => number,
): { unreached: Required<BuiltBackend>[] } | { tooSlow: TooSlow } {
  const unreached: Required<BuiltBackend>[] = []
  for (const backend of backends) {
    let reached = false
    for (const [rule, { source, target }] of rules.entries()) {
      const targeted = evaluate(target, backend.name, remainingMs)
      if (typeof targeted === 'object') return { tooSlow: { rule, ...targeted, field: 'target' } }
      if (!targeted) continue
      for (const image of images) {
        const matched = evaluate(source, image, remainingMs)
        if (typeof matched === 'object') return { tooSlow: { rule, ...matched } }
        if (matched) reached = true
        if (reached) break
      }
      if (reached) break
    }
    if (!reached) unreached.push(backend)
  }
  return { unreached }
}

export function unreachedWarning({ name, reference }: Required<BuiltBackend>): string {
  return `The backend '${name}' of 'built-images' gets no image from 'deploy-rules': no rule whose target matches '${name}' has a source that matches a backend image of the payload, so the platform does not update it (its image is '${reference}'). Add a rule for it, or leave 'deploy-rules' empty to give each named backend its own image.`
}
