import { rmSync } from 'node:fs'
import {
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Files } from '../core/shared/ports.js'
import type { StepCancellation } from './cancel.js'

/** The Files port on the real file system. */
export const nodeFiles: Files = {
  async stat(path) {
    const found = await stat(path).catch(() => undefined)
    if (!found) return undefined
    const kind = found.isFile() ? 'file' : found.isDirectory() ? 'directory' : 'other'
    return { kind, size: found.size }
  },
  async linkTarget(path) {
    const found = await lstat(path).catch(() => undefined)
    return found?.isSymbolicLink() ? readlink(path) : undefined
  },
  realpath: (path) => realpath(path),
  readText: (path) => readFile(path, 'utf8'),
  list: (path) => readdir(path),
  async listFilesDeep(path) {
    const entries = await readdir(path, { recursive: true, withFileTypes: true })
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .sort()
  },
  async writeText(path, text) {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
  },
  makeTempDir: (prefix) => mkdtemp(join(tmpdir(), prefix)),
  async makeDir(path) {
    await mkdir(path, { recursive: true })
  },
  async replaceDir(from, to) {
    await rm(to, { recursive: true, force: true })
    if (!(await stat(from).catch(() => undefined))) return
    await mkdir(dirname(to), { recursive: true })
    await cp(from, to, { recursive: true, verbatimSymlinks: true })
  },
  remove: (path) => rm(path, { recursive: true, force: true }),
}

/**
 * The Files port for a step that may be cancelled: each temporary folder it makes is removed at
 * once if the step has to exit before its own code removes it (it can hold clones and the
 * toolkit's configuration).
 */
export function filesFor(cancel: StepCancellation): Files {
  const made = new Map<string, () => void>()
  return {
    ...nodeFiles,
    async makeTempDir(prefix) {
      const dir = await nodeFiles.makeTempDir(prefix)
      made.set(
        dir,
        cancel.atExit(() => rmSync(dir, { recursive: true, force: true })),
      )
      return dir
    },
    async remove(path) {
      await nodeFiles.remove(path)
      made.get(path)?.()
      made.delete(path)
    },
  }
}
