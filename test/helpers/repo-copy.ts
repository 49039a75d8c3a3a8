// A throwaway copy of this repository's working tree (tracked and new files, not ignored ones)
// and its node_modules, where a test may change a version or make dist/ stale and run the release
// scripts as a maintainer would.
import { existsSync } from 'node:fs'
import { copyFile, mkdir, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { startOwning } from './cleanup.js'
import { ROOT } from './run-action.js'
import { run } from './run-process.js'

export interface RepoCopy {
  dir: string
  stop(): Promise<void>
}

/**
 * `git ls-files` in this checkout. CI runs the suite as root (`sudo bash .ci/run`) in a checkout
 * another user owns, which git refuses unless the command line marks it safe.
 */
export const lsFilesInRoot = ['-c', `safe.directory=${ROOT}`, 'ls-files']

export function copyRepository(): Promise<RepoCopy> {
  return startOwning(async (owned) => {
    const dir = await owned.tempDir('olympe-repo-')
    await copyWorkingTree(dir)
    await copyNodeModules(dir)
    return { dir, stop: () => owned.run() }
  })
}

async function copyWorkingTree(dir: string): Promise<void> {
  const listing = [...lsFilesInRoot, '-z', '--cached', '--others', '--exclude-standard']
  const { stdout } = await run('git', listing, { cwd: ROOT })
  // A file deleted in the working tree is still listed as tracked: skip it.
  const files = stdout.split('\0').filter((file) => file !== '' && existsSync(join(ROOT, file)))
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true })
    await copyFile(join(ROOT, file), join(dir, file))
  }
}

async function copyNodeModules(dir: string): Promise<void> {
  // ncc names modules by their path relative to the project: a symbolic link to node_modules
  // would change the bundles. Hard links copy nothing (cp -a where they cannot be made); they
  // share each file with this checkout, so nothing run in the copy may write into node_modules.
  await run('cp', ['-al', join(ROOT, 'node_modules'), dir]).catch(() =>
    run('cp', ['-a', join(ROOT, 'node_modules'), dir]),
  )
  // ncc rewrites its own code cache files in place on every run: the copy gets its own files.
  const ncc = join(dir, 'node_modules/@vercel/ncc')
  await rm(ncc, { recursive: true, force: true })
  await run('cp', ['-a', join(ROOT, 'node_modules/@vercel/ncc'), ncc])
}
