import { posix } from 'node:path'

/** Longer than any real folder path of a repository, short enough for every file system. */
export const OUTPUT_DIR_MAX = 200

/**
 * The toolkit empties `outputDir` before writing, so it must name a folder strictly inside the
 * repository (or working directory): never the root itself (that would wipe `.git` and every
 * file), never outside it, never a `.git` folder at any depth and in any case (`sub/.git` is a
 * submodule's or a nested repository's, and `.GIT` is `.git` on case-insensitive file systems).
 * The toolkit passes the resolved folder on a command line that it splits on spaces, so a space
 * would cut the path and send the files elsewhere.
 */
export function outputDirProblem(dir: string): string | undefined {
  if (dir.trim() === '') return 'is empty: expected a folder path relative to the repository'
  if (dir.length > OUTPUT_DIR_MAX)
    return `is ${dir.length} characters long: expected a folder path of at most ${OUTPUT_DIR_MAX} characters`
  if (hasControlCharacter(dir))
    return 'holds a control character (a line break, a tab, an escape…): expected a plain folder path'
  if (/\s/.test(dir))
    return `holds a space: the toolkit splits its command line on spaces, so the path would be cut and the files written elsewhere. Use '-' or '_' instead, such as '${dir.trim().replace(/\s+/g, '-')}'`
  const slashed = dir.replace(/\\/g, '/')
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed))
    return 'is absolute: expected a folder path relative to the repository, such as snapshot/my-project'
  const normal = posix.normalize(slashed).replace(/\/+$/, '')
  if (normal === '..' || normal.startsWith('../'))
    return 'leaves the repository through ..: expected a folder inside it, such as snapshot/my-project'
  if (normal === '.' || normal === '')
    return 'is the repository root, which the toolkit would empty (deleting every file): name a sub-folder, such as snapshot'
  if (normal.split('/').some(isGitFolderName))
    return "goes into a .git folder (git's own data): name a folder of the repository's files, such as snapshot"
  return undefined
}

/** `.git`, `.GIT`, and `.git.` (which Windows reads as `.git`). */
function isGitFolderName(segment: string): boolean {
  return /^\.git\.*$/i.test(segment)
}

/** C0 controls, DEL and C1 controls: line breaks, tabs, and the escapes that colour a terminal. */
export function hasControlCharacter(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- finding them is the point
  return /[\u0000-\u001f\u007f-\u009f]/.test(text)
}

/** `./snapshot//sales/` → `snapshot/sales`: the form used for git pathspecs and comparisons. */
export function normalizeOutputDir(dir: string): string {
  return posix.normalize(dir.replace(/\\/g, '/')).replace(/\/+$/, '')
}

/** Equal folders, or one inside the other: the toolkit emptying one would wipe the other's files. */
export function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`)
}
