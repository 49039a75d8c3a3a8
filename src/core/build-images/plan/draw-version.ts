import { join } from 'node:path'
import { parseJsonText } from '../../shared/json-text.js'
import { DRAW_VERSION_LABEL, isVersionText } from '../../shared/image-labels.js'
import type { Files } from '../../shared/ports.js'
import { isProblem, type Problem } from '../../shared/problem.js'

/** The design tool's package: its version is the `draw_version` label. */
export const DRAW_PACKAGE_JSON = 'node_modules/@olympeio/draw/package.json'

export interface DrawVersion {
  value: string
  /** Where it came from, for the log: the input, or a project-relative file. */
  source: string
  /** What was read in `source`: a JSON field, or a lock file's entry (none for the input). */
  field?: string
  /** Read from the frontend's version.json, which may hold the project's own version. */
  doubtful?: boolean
}

export interface DrawVersionLookup {
  found?: DrawVersion
  /** Files that were there but unusable (bad JSON, no such field): worth a line in the log. */
  notes: string[]
  /** Every place looked at, in order, for the "none found" message. */
  looked: string[]
}

interface Candidate {
  file: string
  /** What is read there, as the log names it. */
  field: string
  pick: (document: Record<string, unknown>) => unknown
  doubtful?: boolean
}

/** The lock files npm installs from: a shrinkwrap wins over package-lock.json, as in npm. */
export const LOCK_FILES = ['npm-shrinkwrap.json', 'package-lock.json'] as const
const DRAW_PACKAGE = '@olympeio/draw'
/** How the log names the lock file's entry for Draw. */
export const LOCK_ENTRY = `packages["node_modules/${DRAW_PACKAGE}"].version`

/**
 * The `draw_version` label holds the design tool's version. An explicit input wins; then the
 * installed package itself; then the lock file npm installed from, which a project commits, or
 * which the build job hands over (npm install writes one where none was committed); then the
 * code-as-data version.json that buildCodeAsData writes from that same package (`drawVersion`).
 * The frontend's version.json comes last: the official template copies Draw's file there but
 * rewrites its `version` with the project's own, so it usually holds the app's version, not
 * Draw's.
 */
export async function resolveDrawVersion(
  explicit: string | undefined,
  project: { root: string; frontendSources: string; codeasdataSources: string },
  files: Pick<Files, 'readText'>,
): Promise<DrawVersionLookup> {
  if (explicit)
    return { found: { value: explicit, source: "input 'draw-version'" }, notes: [], looked: [] }
  const field =
    (name: string) =>
    (document: Record<string, unknown>): unknown =>
      document[name]
  const candidates: Candidate[] = [
    { file: DRAW_PACKAGE_JSON, field: 'version', pick: field('version') },
    ...LOCK_FILES.map((file) => ({ file, field: LOCK_ENTRY, pick: lockedDraw })),
    {
      file: join(project.codeasdataSources, 'version.json'),
      field: 'drawVersion',
      pick: field('drawVersion'),
    },
    {
      file: join(project.frontendSources, 'version.json'),
      field: 'version',
      pick: field('version'),
      doubtful: true,
    },
  ]
  const notes: string[] = []
  let shrinkwrapped = false
  for (const { file, field: read, pick, doubtful } of candidates) {
    // npm installs from the shrinkwrap alone when there is one.
    if (file === 'package-lock.json' && shrinkwrapped) continue
    const text = await files.readText(join(project.root, file)).catch(() => undefined)
    if (text === undefined) continue
    shrinkwrapped ||= file === 'npm-shrinkwrap.json'
    const value = versionAt(text, read, pick)
    if (typeof value === 'string') {
      const found = { value, source: file, field: read, ...(doubtful ? { doubtful } : {}) }
      return { found, notes, looked: [] }
    }
    notes.push(`${file} ${value.problem}`)
  }
  return { notes, looked: candidates.map(({ file, field: read }) => `${file} (${read})`) }
}

/** Draw's entry in an npm lock file: `packages` (lockfileVersion 2 and 3), else `dependencies` (1). */
function lockedDraw(document: Record<string, unknown>): unknown {
  const entry = (group: unknown, key: string): unknown =>
    typeof group === 'object' && group !== null
      ? (group as Record<string, unknown>)[key]
      : undefined
  const version = (value: unknown): unknown => entry(value, 'version')
  return (
    version(entry(document.packages, `node_modules/${DRAW_PACKAGE}`)) ??
    version(entry(document.dependencies, DRAW_PACKAGE))
  )
}

/** The log line that names the winning file, so that a wrong label can be traced to it. */
export function drawVersionMessage(found: DrawVersion): string {
  const where = found.field ? `'${found.field}' in ${found.source}` : found.source
  const line = `${DRAW_VERSION_LABEL} ${found.value} (from ${where})`
  if (!found.doubtful) return line
  return (
    `${line}: neither ${DRAW_PACKAGE_JSON}, a lock file, nor the code-as-data version.json was ` +
    `found, and the official template rewrites this file's version with the project's own; set ` +
    `'draw-version' if ${found.value} is not the Draw version`
  )
}

export function versionField(text: string, field: string): string | Problem {
  return versionAt(text, field, (document) => document[field])
}

function versionAt(
  text: string,
  field: string,
  pick: (document: Record<string, unknown>) => unknown,
): string | Problem {
  const json = parseJsonText(text)
  if (isProblem(json)) return { problem: `is ${json.problem}` }
  const document = json.value
  const value =
    typeof document === 'object' && document !== null
      ? pick(document as Record<string, unknown>)
      : undefined
  if (typeof value !== 'string' || value.trim() === '')
    return { problem: `has no '${field}' string` }
  if (!isVersionText(value.trim()))
    return {
      problem: `has a '${field}' that is not a version: ${JSON.stringify(value).slice(0, 60)}`,
    }
  return value.trim()
}

export interface AppVersionLookup {
  found?: { value: string; source: string }
  /** Files that were there but unusable, for the log. */
  notes: string[]
}

/**
 * The project's own version, for the version label (OCI_LABELS.version): what the app
 * serves in `version.json` (the project template's webpack build writes the project's version
 * there), else the project's `package.json`. The deploy action waits for the app to serve it.
 */
export async function resolveAppVersion(
  project: { root: string; frontendSources: string },
  files: Pick<Files, 'readText'>,
): Promise<AppVersionLookup> {
  const candidates = [join(project.frontendSources, 'version.json'), 'package.json']
  const notes: string[] = []
  for (const file of candidates) {
    const text = await files.readText(join(project.root, file)).catch(() => undefined)
    if (text === undefined) continue
    const value = versionField(text, 'version')
    if (typeof value === 'string') return { found: { value, source: file }, notes }
    notes.push(`${file} ${value.problem}`)
  }
  return { notes }
}
