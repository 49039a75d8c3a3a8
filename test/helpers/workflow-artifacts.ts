// actions/upload-artifact and actions/download-artifact (v4 and later), played by what they
// document, on a folder of the workflow run's own (`<store>/<artifact name>/…`) instead of
// GitHub's artifact service: an artifact belongs to the run, its name is unique there (a second
// upload of a name fails unless `overwrite`), and its files sit under the least common ancestor
// of the paths uploaded. A download by `name` extracts into `path`; by `pattern` (or everything),
// each artifact into `path/<name>/`, or all into `path` with `merge-multiple`. What the examples do
// not use (globs and `!` exclusions in `path`, downloads from other runs) throws: a test never
// guesses.
import { existsSync } from 'node:fs'
import { cp, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

export interface ArtifactStep {
  code: number
  /** What the action printed, in the runner's words. */
  texts: Record<string, string>
  outputs: Record<string, string>
}

/** The run's artifacts: each name with its files' relative paths and text. */
export type Artifacts = Record<string, Record<string, string>>

// upload-artifact's own list (its validateArtifactName).
const INVALID_NAME: Array<[string, string]> = [
  ['"', 'Double quote "'],
  [':', 'Colon :'],
  ['<', 'Less than <'],
  ['>', 'Greater than >'],
  ['|', 'Vertical bar |'],
  ['*', 'Asterisk *'],
  ['?', 'Question mark ?'],
  ['\r', 'Carriage return \\r'],
  ['\n', 'Line feed \\n'],
  ['\\', 'Backslash \\'],
  ['/', 'Forward slash /'],
]

const failed = (message: string): ArtifactStep => ({
  code: 1,
  texts: { stdout: `::error::${message}\n` },
  outputs: {},
})

/** Every file under `path` (itself when a file), hidden ones (a `.` name) only when asked. */
async function filesOf(path: string, hidden: boolean): Promise<string[]> {
  if (!hidden && basename(path).startsWith('.')) return []
  if (!(await stat(path)).isDirectory()) return [path]
  const names = (await readdir(path)).sort()
  const nested = await Promise.all(names.map((name) => filesOf(join(path, name), hidden)))
  return nested.flat()
}

function commonAncestor(paths: string[]): string {
  const split = paths.map((path) => dirname(path).split(sep))
  const first = split[0] ?? []
  let length = first.length
  for (const parts of split)
    while (length > 0 && parts.slice(0, length).join(sep) !== first.slice(0, length).join(sep))
      length--
  return first.slice(0, length).join(sep) || sep
}

/** actions/upload-artifact with its inputs (`name`, `path`, `if-no-files-found`, `overwrite`…). */
export async function uploadArtifact(
  inputs: Record<string, string>,
  workspace: string,
  store: string,
): Promise<ArtifactStep> {
  const name = inputs.name || 'artifact'
  const bad = INVALID_NAME.find(([character]) => name.includes(character))
  if (bad)
    return failed(
      `The artifact name is not valid: ${name}. Contains the following character:  ${bad[1]}`,
    )
  const lines = (inputs.path ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  if (lines.some((line) => /[*?[\]{}!]/.test(line)))
    throw new Error(`upload-artifact: globs and exclusions do not run here: '${inputs.path ?? ''}'`)
  const paths = lines.map((line) => (isAbsolute(line) ? line : resolve(workspace, line)))
  const hidden = inputs['include-hidden-files'] === 'true'
  const files = (
    await Promise.all(paths.filter((path) => existsSync(path)).map((path) => filesOf(path, hidden)))
  ).flat()
  if (files.length === 0) {
    const message = `No files were found with the provided path: ${lines.join('\n')}. No artifacts will be uploaded.`
    const found = inputs['if-no-files-found'] || 'warn'
    if (found === 'error') return failed(message)
    return {
      code: 0,
      texts: { stdout: found === 'warn' ? `::warning::${message}\n` : '' },
      outputs: {},
    }
  }
  const folder = join(store, name)
  if (existsSync(folder)) {
    if (inputs.overwrite !== 'true')
      return failed(
        'Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run',
      )
    await rm(folder, { recursive: true })
  }
  // A folder alone is its own root: its files sit at the artifact's top.
  const root =
    paths.length === 1 && (await stat(paths[0] ?? '')).isDirectory()
      ? (paths[0] ?? '')
      : commonAncestor(files)
  for (const file of files) {
    await mkdir(dirname(join(folder, relative(root, file))), { recursive: true })
    await cp(file, join(folder, relative(root, file)))
  }
  return {
    code: 0,
    texts: { stdout: `Artifact ${name} has been successfully uploaded! (${files.length} files)\n` },
    outputs: { 'artifact-id': String(Object.keys(await readArtifacts(store)).indexOf(name) + 1) },
  }
}

/** `*` and `?` of a pattern (minimatch's, as download-artifact uses), and nothing else. */
function matcher(pattern: string): RegExp {
  if (/[[\]{}!]/.test(pattern))
    throw new Error(`download-artifact: only '*' and '?' patterns run here, not '${pattern}'`)
  const escaped = pattern.replace(/[.+^$()|\\]/g, '\\$&')
  return new RegExp(`^${escaped.replace(/\*/g, '.*').replace(/\?/g, '.')}$`)
}

/** actions/download-artifact with its inputs (`name` or `pattern`, `path`, `merge-multiple`). */
export async function downloadArtifact(
  inputs: Record<string, string>,
  workspace: string,
  store: string,
): Promise<ArtifactStep> {
  if (inputs['run-id'] || inputs['github-token'] || inputs['artifact-ids'])
    throw new Error('download-artifact: only this run’s artifacts, by name or pattern, here')
  const target = inputs.path ? resolve(workspace, inputs.path) : workspace
  const names = existsSync(store) ? (await readdir(store)).sort() : []
  const name = inputs.name ?? ''
  if (name !== '' && !names.includes(name))
    return failed(`Unable to download artifact(s): Artifact not found for name: ${name}`)
  const pattern = inputs.pattern ? matcher(inputs.pattern) : undefined
  const chosen = name !== '' ? [name] : names.filter((each) => !pattern || pattern.test(each))
  // One artifact by name, or several merged, lands in `path` itself.
  const merged = name !== '' || inputs['merge-multiple'] === 'true'
  for (const each of chosen) {
    const into = merged ? target : join(target, each)
    await mkdir(into, { recursive: true })
    await cp(join(store, each), into, { recursive: true })
  }
  return {
    code: 0,
    texts: { stdout: `Total of ${chosen.length} artifact(s) downloaded\n` },
    outputs: { 'download-path': target },
  }
}

/** What the run's artifacts hold, for a test to read after the run. */
export async function readArtifacts(store: string): Promise<Artifacts> {
  const artifacts: Artifacts = {}
  if (!existsSync(store)) return artifacts
  for (const name of (await readdir(store)).sort()) {
    const files: Record<string, string> = {}
    for (const file of await filesOf(join(store, name), true))
      files[relative(join(store, name), file)] = await readFile(file, 'utf8')
    artifacts[name] = files
  }
  return artifacts
}
