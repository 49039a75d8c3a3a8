import { join } from 'node:path'
import { parseJsonText } from '../shared/json-text.js'
import type { Files } from '../shared/ports.js'

/** The design tool's package: its version is the `draw_version` label. */
export const DRAW_PACKAGE_JSON = 'node_modules/@olympeio/draw/package.json'

export interface DrawVersion {
  value: string
  /** Where it came from, for the log: the input, or a project-relative file. */
  source: string
  /** The JSON field read in `source` (none for the input). */
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
  field: string
  doubtful?: boolean
}

/**
 * The `draw_version` label holds the design tool's version. An explicit input wins; then the installed
 * package itself; then the code-as-data version.json that buildCodeAsData writes from that same
 * package (`drawVersion`), for jobs that only received dist/. The frontend's version.json comes
 * last: the official template copies Draw's file there but rewrites its `version` with the
 * project's own, so it usually holds the app's version, not Draw's.
 */
export async function resolveDrawVersion(
  explicit: string | undefined,
  project: { root: string; frontendSources: string; codeasdataSources: string },
  files: Pick<Files, 'readText'>,
): Promise<DrawVersionLookup> {
  if (explicit)
    return { found: { value: explicit, source: "input 'draw-version'" }, notes: [], looked: [] }
  const candidates: Candidate[] = [
    { file: DRAW_PACKAGE_JSON, field: 'version' },
    { file: join(project.codeasdataSources, 'version.json'), field: 'drawVersion' },
    { file: join(project.frontendSources, 'version.json'), field: 'version', doubtful: true },
  ]
  const notes: string[] = []
  for (const { file, field, doubtful } of candidates) {
    const text = await files.readText(join(project.root, file)).catch(() => undefined)
    if (text === undefined) continue
    const value = versionField(text, field)
    if (typeof value === 'string') {
      const found = { value, source: file, field, ...(doubtful ? { doubtful } : {}) }
      return { found, notes, looked: [] }
    }
    notes.push(`${file} ${value.problem}`)
  }
  return { notes, looked: candidates.map(({ file, field }) => `${file} (${field})`) }
}

/** The log line that names the winning file, so that a wrong label can be traced to it. */
export function drawVersionMessage(found: DrawVersion): string {
  const where = found.field ? `'${found.field}' in ${found.source}` : found.source
  const line = `draw_version ${found.value} (from ${where})`
  if (!found.doubtful) return line
  return (
    `${line}: neither ${DRAW_PACKAGE_JSON} nor the code-as-data version.json was found, and ` +
    `the official template rewrites this file's version with the project's own; set ` +
    `'draw-version' if ${found.value} is not the Draw version`
  )
}

export function versionField(text: string, field: string): string | { problem: string } {
  const json = parseJsonText(text)
  if ('problem' in json) return { problem: `is ${json.problem}` }
  const document = json.value
  const value =
    typeof document === 'object' && document !== null
      ? (document as Record<string, unknown>)[field]
      : undefined
  if (typeof value !== 'string' || value.trim() === '')
    return { problem: `has no '${field}' string` }
  if (!/^[\x21-\x7e]{1,128}$/.test(value.trim()))
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
 * The project's own version, for the `org.opencontainers.image.version` label: what the app
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
