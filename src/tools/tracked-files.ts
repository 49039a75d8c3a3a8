// Whether a path of a checkout came with it: what git tracks there. Asked of git when the job has
// it; in a job image without git, read from the checkout's index file.
import { readFile, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { errorMessage } from '../core/shared/errors.js'
import type { Exec } from '../core/shared/exec.js'
import { indexPaths } from '../core/shared/git-index.js'
import { isProblem, type Problem } from '../core/shared/problem.js'

/** The tracked files at or below a path, and who said so; or why nobody can tell. */
export type Tracked = { paths: string[]; by: 'git' | 'index' } | { unknown: string }

/** Asks `(root, path)`: what git tracks at or below `path` (relative to `root`, a checkout's root). */
export type TrackedFiles = (root: string, path: string) => Promise<Tracked>

export function trackedFiles(exec: Exec): TrackedFiles {
  return async (root, path) => {
    const gitDir = await gitDirOf(root)
    if ('unknown' in gitDir) return gitDir
    // The repository named, not searched for: a folder above the checkout holds no answer.
    const args = ['--git-dir', gitDir.path, '--work-tree', root, 'ls-files', '-z', '--']
    let said: string
    try {
      const listed = await exec('git', [...args, `:(literal)${path}`], { cwd: root })
      if (listed.code === 0) return { paths: listed.stdout.split('\0').filter(Boolean), by: 'git' }
      said = listed.stderr.trim().split('\n')[0] || `git ls-files exited with ${listed.code}`
    } catch (error) {
      said = errorMessage(error)
    }
    const index = await readIndex(gitDir.path)
    if (isProblem(index))
      return {
        unknown: `git could not tell (${said}), and ${join(gitDir.path, 'index')} could not be read: ${index.problem}`,
      }
    const below = `${path}/`
    return {
      paths: index.paths.filter((each) => each === path || each.startsWith(below)),
      by: 'index',
    }
  }
}

/** `<root>/.git`, or the folder a `.git` file names (`gitdir: …`, as in a worktree). */
async function gitDirOf(root: string): Promise<{ path: string } | { unknown: string }> {
  const dotGit = join(root, '.git')
  const found = await stat(dotGit).catch(() => undefined)
  if (found?.isDirectory()) return { path: dotGit }
  if (found?.isFile()) {
    const named = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8'))?.[1]?.trim()
    if (named) return { path: resolve(root, named) }
  }
  return { unknown: `'${root}' is no git checkout (no .git there)` }
}

async function readIndex(gitDir: string): Promise<{ paths: string[] } | Problem> {
  try {
    const config = await readFile(join(gitDir, 'config'), 'utf8').catch(() => '')
    const hashBytes = /^\s*objectformat\s*=\s*sha256\s*$/im.test(config) ? 32 : 20
    return indexPaths(await readFile(join(gitDir, 'index')), hashBytes)
  } catch (error) {
    return { problem: errorMessage(error) }
  }
}
