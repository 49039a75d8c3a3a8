import { describe, expect, test } from '@jest/globals'
import { rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Exec } from '../../../src/core/shared/exec.js'
import { exec } from '../../../src/tools/exec.js'
import { trackedFiles } from '../../../src/tools/tracked-files.js'
import { withCleanup, type Cleanup } from '../../helpers/cleanup.js'
import { commitCheckout } from '../../helpers/git-repos.js'

const COMMITTED = [
  '.olympe-reuse/records.json',
  '.olympe-reuse/old/records.json',
  '.olympe-reuse-other/records.json',
  'docker/frontend.Dockerfile',
]
const RECORDS = ['.olympe-reuse/old/records.json', '.olympe-reuse/records.json']

/** A job image without git: the exec port cannot find the program, as @actions/exec says. */
const NO_GIT: Exec = () =>
  Promise.reject(new Error('Unable to locate executable file: git. Please verify …'))

/** A checkout of COMMITTED in a new folder, then `after`'s git commands. */
async function checkout(cleanup: Cleanup, after: string[][] = []): Promise<string> {
  const dir = await cleanup.tempDir('olympe-tracked-')
  await commitCheckout(dir, Object.fromEntries(COMMITTED.map((file) => [file, 'x\n'])), { after })
  return dir
}

describe('trackedFiles: what git tracks at or below a path of a checkout', () => {
  test('asked of git: the files below the folder, not those of a folder that shares its prefix', async () => {
    await withCleanup(async (cleanup) => {
      const dir = await checkout(cleanup)
      const tracked = trackedFiles(exec)
      expect(await tracked(dir, '.olympe-reuse')).toEqual({ paths: RECORDS, by: 'git' })
      expect(await tracked(dir, '.olympe-reuse/records.json')).toEqual({
        paths: ['.olympe-reuse/records.json'],
        by: 'git',
      })
      expect(await tracked(dir, 'dist')).toEqual({ paths: [], by: 'git' })
    })
  })

  test("without git: read from the checkout's .git/index, with the same answer", async () => {
    await withCleanup(async (cleanup) => {
      const dir = await checkout(cleanup)
      const tracked = trackedFiles(NO_GIT)
      expect(await tracked(dir, '.olympe-reuse')).toEqual({ paths: RECORDS, by: 'index' })
      expect(await tracked(dir, 'dist')).toEqual({ paths: [], by: 'index' })
    })
  })

  test('a .git file that names the repository (a worktree, a submodule) is followed', async () => {
    await withCleanup(async (cleanup) => {
      const dir = await checkout(cleanup)
      const elsewhere = join(await cleanup.tempDir('olympe-tracked-gitdir-'), 'repo.git')
      await rename(join(dir, '.git'), elsewhere)
      await writeFile(join(dir, '.git'), `gitdir: ${elsewhere}\n`)
      expect(await trackedFiles(exec)(dir, '.olympe-reuse')).toEqual({ paths: RECORDS, by: 'git' })
      expect(await trackedFiles(NO_GIT)(dir, '.olympe-reuse')).toEqual({
        paths: RECORDS,
        by: 'index',
      })
    })
  })

  test('nobody can tell: no checkout, or no git and an index that says nothing alone', async () => {
    await withCleanup(async (cleanup) => {
      const bare = await cleanup.tempDir('olympe-tracked-none-')
      expect(await trackedFiles(exec)(bare, '.olympe-reuse')).toEqual({
        unknown: `'${bare}' is no git checkout (no .git there)`,
      })
      const split = await checkout(cleanup, [['update-index', '--split-index']])
      expect(await trackedFiles(NO_GIT)(split, '.olympe-reuse')).toEqual({
        unknown: `git could not tell (Unable to locate executable file: git. Please verify …), and ${join(split, '.git/index')} could not be read: it is a split index, whose entries are kept in another file too`,
      })
      // git itself reads a split index.
      expect(await trackedFiles(exec)(split, '.olympe-reuse')).toEqual({
        paths: RECORDS,
        by: 'git',
      })
    })
  })
})
