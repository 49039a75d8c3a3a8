import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { SnapshotFiles } from '../core/snapshot/ports.js'

/** The snapshot's file operations on the real file system. */
export const toolkitFiles: SnapshotFiles = {
  async kind(path) {
    try {
      return (await stat(path)).isDirectory() ? 'directory' : 'file'
    } catch {
      return 'missing'
    }
  },
  // Like the toolkit: every *.json below the folder, sorted, so entries keep a stable order.
  async listJsonFiles(dir) {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true })
    return entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
      .map((entry) => join(entry.parentPath, entry.name))
      .sort()
  },
  readText: (path) => readFile(path, 'utf8'),
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
    const exists = await stat(from).then(
      () => true,
      () => false,
    )
    if (!exists) return
    await mkdir(dirname(to), { recursive: true })
    await cp(from, to, { recursive: true, verbatimSymlinks: true })
  },
  remove: (path) => rm(path, { recursive: true, force: true }),
}
