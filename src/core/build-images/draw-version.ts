import { join } from 'node:path'
import type { Files } from '../shared/ports.js'

/** The design tool's package: its version is the `draw_version` label (spec 1.3 rule 4). */
export const DRAW_PACKAGE_JSON = 'node_modules/@olympeio/draw/package.json'

export interface DrawVersion {
  value: string
  /** Where it came from, for the log: the input, or a project-relative file. */
  source: string
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
}

/**
 * An explicit input wins; then the frontend's version.json (`version`), the code-as-data
 * version.json that buildCodeAsData writes (`drawVersion`), then the installed package.
 */
export async function resolveDrawVersion(
  explicit: string | undefined,
  project: { root: string; frontendSources: string; codeasdataSources: string },
  files: Pick<Files, 'readText'>,
): Promise<DrawVersionLookup> {
  if (explicit)
    return { found: { value: explicit, source: "input 'draw-version'" }, notes: [], looked: [] }
  const candidates: Candidate[] = [
    { file: join(project.frontendSources, 'version.json'), field: 'version' },
    { file: join(project.codeasdataSources, 'version.json'), field: 'drawVersion' },
    { file: DRAW_PACKAGE_JSON, field: 'version' },
  ]
  const notes: string[] = []
  for (const { file, field } of candidates) {
    const text = await files.readText(join(project.root, file)).catch(() => undefined)
    if (text === undefined) continue
    const value = versionField(text, field)
    if (typeof value === 'string') return { found: { value, source: file }, notes, looked: [] }
    notes.push(`${file} ${value.problem}`)
  }
  return { notes, looked: candidates.map(({ file, field }) => `${file} (${field})`) }
}

function versionField(text: string, field: string): string | { problem: string } {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch {
    return { problem: 'is not valid JSON' }
  }
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
