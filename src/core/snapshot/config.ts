import { relative } from 'node:path'
import * as v from 'valibot'
import { InputError } from '../shared/errors.js'
import { describeIssues, jsonPath } from '../shared/issues.js'
import { parseJsonText } from '../shared/json-text.js'
import { isProblem } from '../shared/problem.js'
import { CONFIG_WORDING } from './config-wording.js'
import { SnapshotConfigSchema, type SnapshotEntryConfig } from './config-schema.js'
import { normalizeOutputDir, overlaps } from './paths.js'
import type { Files } from '../shared/ports.js'
import type { RemoteRepo } from './ports.js'
import { credentialsInText } from '../shared/url-credentials.js'
import { parseRepoUrl, repoCredentials } from './repo-url.js'

export interface SnapshotEntry {
  name: string
  /** Where the entry is written, for messages: `res/snapshot-config.json [1]`. */
  where: string
  snapshooter: { name: string; rootTags: string[]; exclude?: string[]; outputDir: string }
  git?: { repo: RemoteRepo; branch: string; commitMessage: string }
}

export interface LoadedConfig {
  entries: SnapshotEntry[]
  warnings: string[]
}

export interface ConfigTools {
  files: Files
  registerSecret: (value: string) => void
  variable: (name: string) => string | undefined
}

/** Far above any real configuration; a bigger file is a mistake (or an attack), not a config. */
export const CONFIG_MAX_BYTES = 1_000_000
/** Each entry is one toolkit run of minutes: more than this is a mistake, and slow to check. */
export const MAX_ENTRIES = 100

const HOW_TO_FIX =
  'Fix the configuration (the JSON Schema dist/snapshot-config.schema.json lets an editor check it as you type).'

/**
 * Reads the configuration (a file, or a folder of *.json whose arrays are joined) and validates
 * all of it before anything runs. Credentials are registered as secrets before the text is
 * parsed, so that no message, not even a JSON syntax error, can show them.
 */
export async function loadSnapshotConfig(
  path: string,
  shown: string,
  tools: ConfigTools,
): Promise<LoadedConfig> {
  const files = await configFiles(path, shown, tools.files)
  const problems: string[] = []
  const entries: SnapshotEntry[] = []
  // Within a folder each problem names its file; a single file is named once, in the heading.
  const prefix = (file: { shown: string }): string => (files.length > 1 ? `${file.shown}: ` : '')
  for (const file of files) {
    if (file.size > CONFIG_MAX_BYTES) {
      problems.push(
        `${prefix(file)}is ${file.size} bytes long: a snapshot configuration is at most ${CONFIG_MAX_BYTES} bytes`,
      )
      continue
    }
    const text = await tools.files.readText(file.path)
    for (const secret of credentialsInText(text)) tools.registerSecret(secret)
    // Told by line and column, never by JSON.parse's excerpt of the text, which may be a token.
    const json = parseJsonText(text)
    if (isProblem(json)) {
      problems.push(`${prefix(file)}is ${json.problem}`)
      continue
    }
    const parsed = json.value
    // Once more on the parsed strings: a token holding '"' or a space is escaped in the text.
    for (const repo of repoValues(parsed))
      for (const secret of repoCredentials(repo)) tools.registerSecret(secret)
    const expanded = expandRepoVariables(parsed, tools)
    problems.push(...expanded.problems.map((problem) => `${prefix(file)}${problem}`))
    // One problem per value: later checks never see a value an earlier one refused (too long).
    const result = v.safeParse(SnapshotConfigSchema, expanded.document, { abortPipeEarly: true })
    if (!result.success) {
      problems.push(
        ...describeIssues(result.issues, CONFIG_WORDING).map((line) => `${prefix(file)}${line}`),
      )
      continue
    }
    entries.push(...result.output.map((entry, index) => toEntry(entry, `${file.shown} [${index}]`)))
  }
  if (problems.length === 0 && entries.length === 0)
    problems.push('it holds no entries: add at least one {"snapshooter": {…}} entry')
  if (entries.length > MAX_ENTRIES)
    problems.push(
      `it holds ${entries.length} entries: at most ${MAX_ENTRIES} are run in one step (each is one toolkit run); split the configuration over several steps`,
    )
  problems.push(...overlapProblems(entries))
  if (problems.length > 0) {
    throw new InputError(
      'config',
      `Invalid snapshot configuration '${shown}':\n${problems.map((p) => `  - ${p}`).join('\n')}\n${HOW_TO_FIX}`,
    )
  }
  for (const entry of entries)
    for (const secret of entry.git?.repo.secrets ?? []) tools.registerSecret(secret)
  return { entries, warnings: nameWarnings(entries) }
}

async function configFiles(
  path: string,
  shown: string,
  files: Files,
): Promise<Array<{ path: string; shown: string; size: number }>> {
  const found = await files.stat(path)
  if (found === undefined) {
    throw new InputError(
      'config',
      `Invalid input 'config' '${shown}': no such file or folder (looked for ${path}). Create it (a JSON array of {"snapshooter", "git"} entries) or set 'config' to its path, relative to 'working-directory'.`,
    )
  }
  if (found.kind !== 'directory') return [{ path, shown, size: found.size }]
  // Like the toolkit: every *.json below the folder, in a stable order.
  const jsonFiles = (await files.listFilesDeep(path)).filter((file) => file.endsWith('.json'))
  if (jsonFiles.length === 0) {
    throw new InputError(
      'config',
      `Invalid input 'config' '${shown}': the folder holds no *.json file. Put the snapshot configuration in it, or point 'config' at the file.`,
    )
  }
  const folder = shown.replace(/[/\\]+$/, '')
  const described = []
  for (const file of jsonFiles) {
    described.push({
      path: file,
      shown: `${folder}/${relative(path, file).replace(/\\/g, '/')}`,
      size: (await files.stat(file))?.size ?? 0,
    })
  }
  return described
}

/** `${NAME}` in git.repo is the environment variable NAME, so the token can live in a CI secret. */
function expandRepoVariables(
  document: unknown,
  tools: Pick<ConfigTools, 'registerSecret' | 'variable'>,
): { document: unknown; problems: string[] } {
  if (!Array.isArray(document)) return { document, problems: [] }
  const problems: string[] = []
  const expanded = document.map((entry: unknown, index) => {
    const repo = repoOf(entry)
    if (repo === undefined || !repo.includes('${')) return entry
    const value = repo.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
      const found = tools.variable(name) ?? ''
      if (found === '')
        problems.push(
          `at ${jsonPath([index, 'git', 'repo'])}: the environment variable '${name}' is not set or empty: set it in the job (for example from a CI secret)`,
        )
      else tools.registerSecret(found)
      return found
    })
    const git = (entry as { git: object }).git
    return { ...(entry as object), git: { ...git, repo: value } }
  })
  return { document: expanded, problems }
}

/** Every `git.repo` string of a parsed document, valid or not. */
function repoValues(document: unknown): string[] {
  if (!Array.isArray(document)) return []
  return document.map(repoOf).filter((repo) => repo !== undefined)
}

function repoOf(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null || !('git' in entry)) return undefined
  const git = entry.git
  if (typeof git !== 'object' || git === null || !('repo' in git)) return undefined
  return typeof git.repo === 'string' ? git.repo : undefined
}

function toEntry(entry: SnapshotEntryConfig, where: string): SnapshotEntry {
  const snapshooter = {
    ...entry.snapshooter,
    outputDir: normalizeOutputDir(entry.snapshooter.outputDir),
  }
  if (!entry.git) return { name: snapshooter.name, where, snapshooter }
  const repo = parseRepoUrl(entry.git.repo)
  // The schema has already checked the URL; this only narrows the type.
  if (isProblem(repo)) throw new InputError('config', `${where}: git.repo ${repo.problem}`)
  return {
    name: snapshooter.name,
    where,
    snapshooter,
    git: { repo, branch: entry.git.branch, commitMessage: entry.git.commitMessage },
  }
}

/** Where an entry writes: one clone per repository and branch, or the working directory. */
export function targetKey(entry: SnapshotEntry): string {
  return entry.git ? `${entry.git.repo.url}#${entry.git.branch}` : ''
}

function overlapProblems(entries: readonly SnapshotEntry[]): string[] {
  const problems: string[] = []
  entries.forEach((a, index) => {
    for (const b of entries.slice(index + 1)) {
      if (targetKey(a) !== targetKey(b)) continue
      if (!overlaps(a.snapshooter.outputDir, b.snapshooter.outputDir)) continue
      const place = a.git
        ? `${a.git.repo.display} (branch '${a.git.branch}')`
        : 'the working directory'
      problems.push(
        `${a.where} and ${b.where}: outputDir '${a.snapshooter.outputDir}' and '${b.snapshooter.outputDir}' overlap in ${place}; the toolkit empties each outputDir, so one entry would wipe the other's files. Give each entry its own folder.`,
      )
    }
  })
  return problems
}

function nameWarnings(entries: readonly SnapshotEntry[]): string[] {
  const warnings: string[] = []
  const seen = new Set<string>()
  for (const entry of entries) {
    if (seen.has(entry.name))
      warnings.push(
        `${entry.where}: snapshot name '${entry.name}' is used twice; logs and the job summary cannot tell the entries apart.`,
      )
    seen.add(entry.name)
  }
  return warnings
}
