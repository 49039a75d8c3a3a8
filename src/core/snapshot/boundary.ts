import { join } from 'node:path'
import { ActionError } from '../shared/errors.js'
import type { Files, Logger } from '../shared/ports.js'
import { isProblem, type Problem } from '../shared/problem.js'
import type { SnapshotEntry } from './config.js'
import { shown } from './config-schema.js'
import { describeTarget, type GitTarget } from './plan.js'

/** Where an entry's outputDir lives: a clone, or the working directory for entries without git. */
export interface OutputRoot {
  dir: string
  /** `the clone of https://***@host/x.git (branch 'main')`, `the working directory`. */
  label: string
}

export function cloneRoot(target: Pick<GitTarget, 'dir' | 'repo' | 'branch'>): OutputRoot {
  return { dir: target.dir, label: `the clone of ${describeTarget(target)}` }
}

export type OutputDirCheck = Problem | { missing: string[] }

/**
 * The toolkit empties outputDir and writes into it, following symbolic links. The configuration
 * checks only the path's text; this checks the disk, once the clone exists and before the toolkit
 * starts: no folder on the way may be a symbolic link (one committed in the target repository,
 * or one in the user's working tree), nor a file. A link leading outside would make the toolkit
 * empty and write there; one leading inside would let two entries empty each other's files, and
 * git cannot commit what lies behind it. Returns the folders that do not exist yet: nothing on
 * the disk can redirect those, and the action creates all but the last (see createParents).
 */
export async function checkOutputDir(
  entry: SnapshotEntry,
  root: OutputRoot,
  files: Pick<Files, 'stat' | 'linkTarget' | 'realpath'>,
): Promise<OutputDirCheck> {
  const segments = entry.snapshooter.outputDir.split('/')
  const realRoot = await files.realpath(root.dir)
  let current = root.dir
  for (const [index, segment] of segments.entries()) {
    current = join(current, segment)
    const onTheWay = segments.slice(0, index + 1).join('/')
    const link = await files.linkTarget(current)
    if (link !== undefined) {
      const real = await files.realpath(current).catch(() => undefined)
      const where = placeOf(link, real, realRoot, root.label)
      return {
        problem: `${describe(entry, onTheWay, root)} is a symbolic link (to ${shown(link)}, ${where}). The toolkit empties outputDir and writes into it through links, which could delete and write files elsewhere. Make it a real folder${root.label.startsWith('the clone') ? ' in the repository' : ''}, or choose another outputDir.`,
      }
    }
    const found = await files.stat(current)
    if (found === undefined) return { missing: segments.slice(index) }
    if (found.kind !== 'directory') {
      return {
        problem: `${describe(entry, onTheWay, root)} is a file, not a folder, so the toolkit cannot write there. Choose another outputDir, or remove the file.`,
      }
    }
  }
  return { missing: [] }
}

function describe(entry: SnapshotEntry, onTheWay: string, root: OutputRoot): string {
  const dir = entry.snapshooter.outputDir
  const part = onTheWay === dir ? '' : `: ${shown(onTheWay)}, on its way,`
  return `Entry '${entry.name}' (${entry.where}): outputDir ${shown(dir)} in ${root.label}${part}`
}

/**
 * Stops the run before anything is exported when a check found a problem: a problem's text, or an
 * outputDir's check that holds one. The message gives all of them, one a line.
 */
export function stopOnProblems(found: Iterable<string | OutputDirCheck>): void {
  const problems = [...found].flatMap((item) =>
    typeof item === 'string' ? [item] : isProblem(item) ? [item.problem] : [],
  )
  if (problems.length > 0)
    throw new ActionError(`${problems.join('\n')}\nNothing was exported or pushed.`)
}

/**
 * Every outputDir is checked on the disk (clones made, nothing exported yet), all of them before
 * any is touched, but those the check phase checked already (`check`); then the missing parents
 * are created.
 */
export async function prepareOutputDirs(
  placed: ReadonlyArray<{ entry: SnapshotEntry; root: OutputRoot; check?: OutputDirCheck }>,
  tools: { files: Files; logger: Logger },
): Promise<void> {
  const checked = []
  for (const { entry, root, check } of placed)
    checked.push({ entry, root, check: check ?? (await checkOutputDir(entry, root, tools.files)) })
  stopOnProblems(checked.map(({ check }) => check))
  for (const { entry, root, check } of checked) {
    const missing = 'missing' in check ? check.missing : []
    const created = await createParents(entry, root, missing, tools.files)
    const dir = entry.snapshooter.outputDir
    tools.logger.info(
      created === undefined
        ? `'${entry.name}': ${dir} in ${root.label}, no symbolic link on its way.`
        : `'${entry.name}': created '${created}' in ${root.label}, where ${dir} goes (the toolkit creates the last folder only).`,
    )
  }
}

/**
 * The real toolkit creates outputDir without its parents, so a first snapshot into
 * `snapshot/sales` fails when `snapshot/` does not exist. Creates the missing parents that
 * checkOutputDir found; returns them, relative to the root, for the log.
 */
export async function createParents(
  entry: SnapshotEntry,
  root: OutputRoot,
  missing: readonly string[],
  files: Pick<Files, 'makeDir'>,
): Promise<string | undefined> {
  if (missing.length < 2) return undefined
  const segments = entry.snapshooter.outputDir.split('/')
  const parent = segments.slice(0, segments.length - 1).join('/')
  await files.makeDir(join(root.dir, parent))
  return parent
}

/** Where a link leads, once resolved, for the message. */
function placeOf(link: string, real: string | undefined, realRoot: string, label: string): string {
  if (real === undefined) return 'which leads to nothing that exists'
  const slashed = (p: string): string => p.replace(/\\/g, '/').replace(/\/+$/, '')
  if (slashed(real) === slashed(realRoot)) return `which is the root of ${label} itself`
  if (slashed(real).startsWith(`${slashed(realRoot)}/`)) return `which stays inside ${label}`
  return `which leads outside ${label}${real === link ? '' : `, to ${shown(real)}`}`
}
