import { isAbsolute, relative, resolve, sep } from 'node:path'
import { errorMessage, quote } from './errors.js'
import type { Files, PathKind } from './ports.js'
import { isProblem, type Problem } from './problem.js'

/**
 * Whether `path` is `root` or lies under it, by their text (no link resolved): a name that only
 * starts with two dots, such as `..cache`, is inside.
 */
export function isInside(root: string, path: string): boolean {
  const way = relative(root, path)
  return way !== '..' && !way.startsWith(`..${sep}`) && !isAbsolute(way)
}

/**
 * A file the user names (`payload-file`, a public key) must be in the workspace once every
 * symbolic link on its way is resolved: a repository file that anyone who may push can change (a
 * committed link) must not make the step read the runner's files. The file's real path, to read
 * it by; or the problem, worded once for every such input (each adds what to do).
 */
async function inWorkspace(
  fullPath: string,
  workspace: string,
  files: Pick<Files, 'realpath'>,
): Promise<{ real: string } | Problem> {
  const [real, root] = await Promise.all([
    files.realpath(fullPath).catch(() => fullPath),
    files.realpath(workspace).catch(() => workspace),
  ])
  if (isInside(root, real)) return { real }
  return { problem: `it resolves to ${quote(real)}, outside the workspace ${quote(root)}` }
}

/** What each input adds to the problems of its file: what to do, in its own words. */
export interface WorkspaceFileAdvice {
  /** After `there is no file at '<path>'; `. */
  missing: string
  /** After the problem of a file that resolves outside the workspace. */
  outside: string
  /** The whole problem of a directory or of a file that is not a regular one. */
  notAFile: (kind: Exclude<PathKind, 'file'>) => string
  /** The whole problem of a file larger than `maxBytes`. */
  tooLarge: (size: number) => string
}

/**
 * The text of a file the user names, `path` relative to the workspace: a regular file (a FIFO or
 * a device would block the step forever), inside the workspace (see inWorkspace), of at most
 * `maxBytes`; or the problem, each kind worded once, with what the input's `advice` adds.
 */
export async function readWorkspaceFile(
  path: string,
  workspace: string,
  files: Pick<Files, 'stat' | 'realpath' | 'readText'>,
  maxBytes: number,
  advice: WorkspaceFileAdvice,
): Promise<{ text: string } | Problem> {
  const fullPath = resolve(workspace, path)
  const found = await files.stat(fullPath)
  if (!found) return { problem: `there is no file at ${quote(fullPath)}; ${advice.missing}` }
  const inside = await inWorkspace(fullPath, workspace, files)
  if (isProblem(inside)) return { problem: `${inside.problem}; ${advice.outside}` }
  if (found.kind !== 'file') return { problem: advice.notAFile(found.kind) }
  if (found.size > maxBytes) return { problem: advice.tooLarge(found.size) }
  try {
    return { text: await files.readText(inside.real) }
  } catch (error) {
    return { problem: `cannot read it (${errorMessage(error)})` }
  }
}
