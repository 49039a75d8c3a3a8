import { rmSync } from 'node:fs'
import {
  cp,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises'
import { createHash } from 'node:crypto'
import type { BigIntStats, Stats } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { mapLimit } from '../core/shared/concurrency.js'
import type { Files, PathKind, TreeEntry } from '../core/shared/ports.js'
import type { StepCancellation } from './cancel.js'

/** lstat calls at once: a backend folder holds some 15,000 entries. */
const STAT_CALLS = 64
/** Files up to this size are hashed from one read; larger ones as a stream. */
const WHOLE_READ_BYTES = 8 * 1024 * 1024

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
  tree: (path) => treeOf(path),
  async hashFile(path) {
    const hash = createHash('sha256')
    const handle = await open(path, 'r')
    try {
      // One read for most files: a stream per file costs several times the hashing itself.
      if ((await handle.stat()).size <= WHOLE_READ_BYTES) hash.update(await handle.readFile())
      else await pipeline(handle.createReadStream({ autoClose: false }), hash)
    } finally {
      await handle.close()
    }
    return hash.digest('hex')
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

/**
 * nodeFiles.tree; `onFile`, when given, is told each regular file below the path with its lstat
 * in nanoseconds (what src/tools/file-hash-cache.ts compares), from the same call.
 */
export async function treeOf(
  path: string,
  onFile?: (fullPath: string, info: BigIntStats) => void,
): Promise<TreeEntry[] | undefined> {
  const top = await stat(path).catch(() => undefined)
  if (!top) return undefined
  const entries: TreeEntry[] = [entryOf('', top)]
  if (!top.isDirectory()) return entries
  const found = await readdir(path, { recursive: true })
  const below = await mapLimit(found, STAT_CALLS, async (name) => {
    const full = join(path, name)
    const info = onFile ? await lstat(full, { bigint: true }) : await lstat(full)
    const entry = entryOf(relative(path, full).split(sep).join('/'), info)
    if (info.isSymbolicLink()) entry.target = await readlink(full)
    else if (onFile && info.isFile()) onFile(full, info as BigIntStats)
    return entry
  })
  entries.push(...below.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)))
  return entries
}

function entryOf(path: string, info: Stats | BigIntStats): TreeEntry {
  const kind: PathKind | 'link' = info.isSymbolicLink()
    ? 'link'
    : info.isFile()
      ? 'file'
      : info.isDirectory()
        ? 'directory'
        : 'other'
  const [mode, uid, gid, size] = [info.mode, info.uid, info.gid, info.size].map(Number) as [
    number,
    number,
    number,
    number,
  ]
  return { path, kind, mode: mode & 0o7777, uid, gid, size }
}
