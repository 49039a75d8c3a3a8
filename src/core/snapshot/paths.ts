import { posix } from 'node:path'

/**
 * The toolkit empties `outputDir` before writing, so it must name a folder strictly inside the
 * repository (or working directory): never the root itself (that would wipe `.git` and every
 * file), never outside it, never inside `.git`.
 */
export function outputDirProblem(dir: string): string | undefined {
  if (dir.trim() === '') return 'is empty: expected a folder path relative to the repository'
  const slashed = dir.replace(/\\/g, '/')
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed))
    return 'is absolute: expected a folder path relative to the repository, such as snapshot/my-project'
  const normal = posix.normalize(slashed).replace(/\/+$/, '')
  if (normal === '..' || normal.startsWith('../'))
    return 'leaves the repository through ..: expected a folder inside it, such as snapshot/my-project'
  if (normal === '.' || normal === '')
    return 'is the repository root, which the toolkit would empty (deleting every file): name a sub-folder, such as snapshot'
  if (normal === '.git' || normal.startsWith('.git/'))
    return "is inside .git: name a folder of the repository's files, such as snapshot"
  return undefined
}

/** `./snapshot//sales/` → `snapshot/sales`: the form used for git pathspecs and comparisons. */
export function normalizeOutputDir(dir: string): string {
  return posix.normalize(dir.replace(/\\/g, '/')).replace(/\/+$/, '')
}

/** Equal folders, or one inside the other: the toolkit emptying one would wipe the other's files. */
export function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`)
}
