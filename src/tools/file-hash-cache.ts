import { createHash } from 'node:crypto'
import type { BigIntStats } from 'node:fs'
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  hashCacheSetting,
  HASH_CACHE_VARIABLE,
  parseHashCache,
  serializeHashCache,
  trustedHash,
  type CachedHash,
  type FileStamp,
} from '../core/build-images/reuse/file-hash-cache.js'
import { errorMessage } from '../core/shared/errors.js'
import { isProblem } from '../core/shared/problem.js'
import type { Files, Logger } from '../core/shared/ports.js'
import { nodeFiles, treeOf } from './files.js'

/**
 * The file-hash cache on disk (the decisions are src/core/build-images/reuse/file-hash-cache.ts):
 * one file per working folder, in a folder of our own, `olympe-deploy-actions/`, made inside the
 * folder the runner names. Only that folder and files named by this code are ever written.
 * Whatever goes wrong with it only means that files are read, as without it.
 */

export interface FileHashCache {
  /** The Files port whose `tree` and `hashFile` use and fill the cache. */
  files: Files
  /** Writes what this run learnt, and says in one line what the cache gave. */
  save(): Promise<void>
}

export interface CacheOptions {
  /** The folder the runner keeps between jobs. */
  folder: string
  /** The working folder: each has a cache file of its own. */
  workspace: string
  say: (line: string) => void
  /** The files read and hashed on a miss (tests count them). */
  inner?: Files
  /** RACY_WINDOW_NS unless a test says otherwise. */
  racyWindowNs?: bigint
}

/**
 * The cache this runner asks for (HASH_CACHE_VARIABLE in its environment), opened; undefined
 * when it asks for none or it cannot be used, which is said in one line.
 */
export async function fileHashCacheFor(
  env: NodeJS.ProcessEnv,
  workspace: string,
  logger: Pick<Logger, 'info' | 'warning'>,
): Promise<FileHashCache | undefined> {
  const setting = hashCacheSetting(env[HASH_CACHE_VARIABLE], env.RUNNER_ENVIRONMENT)
  if (isProblem(setting)) {
    logger.warning(`${setting.problem}.`)
    return undefined
  }
  if ('off' in setting) {
    if (setting.off !== undefined) logger.info(`${setting.off}.`)
    return undefined
  }
  return openFileHashCache({ folder: setting.folder, workspace, say: (line) => logger.info(line) })
}

/** The cache, opened; undefined (said) when its folder cannot be made or written. */
export async function openFileHashCache(options: CacheOptions): Promise<FileHashCache | undefined> {
  const { say, inner = nodeFiles } = options
  const own = join(options.folder, 'olympe-deploy-actions')
  const key = createHash('sha256').update(options.workspace).digest('hex').slice(0, 16)
  const path = join(own, `file-hashes-${key}.json`)
  let startNs: bigint
  try {
    startNs = await fileSystemNow(own)
  } catch (error) {
    say(
      `${HASH_CACHE_VARIABLE}: '${own}' could not be written (${errorMessage(error)}): every file is read.`,
    )
    return undefined
  }
  const earlier = await loadEntries(path, say)
  const stamps = new Map<string, FileStamp>()
  const seen = new Map<string, CachedHash>()
  const walked: string[] = []
  const counts = { taken: 0, read: 0 }
  const files: Files = {
    ...inner,
    async tree(root) {
      walked.push(root)
      return treeOf(root, (full, info) => stamps.set(full, stampOf(info)))
    },
    async hashFile(file) {
      const stamp = stamps.get(file) ?? stampOf(await stat(file, { bigint: true }))
      const cached = earlier.get(file)
      const sha256 = trustedHash(cached, stamp)
      if (sha256 !== undefined) {
        seen.set(file, cached as CachedHash)
        counts.taken++
        return sha256
      }
      const hashed = await inner.hashFile(file)
      seen.set(file, { stamp, sha256: hashed })
      counts.read++
      return hashed
    },
  }
  return {
    files,
    async save() {
      // Kept from earlier runs: the entries of folders this run did not walk (a matrix leg
      // hashes its own image's sources only); those of walked folders are this run's.
      for (const [file, cached] of earlier) {
        const inWalked = walked.some((root) => file === root || file.startsWith(`${root}/`))
        if (!inWalked && !seen.has(file)) seen.set(file, cached)
      }
      const total = counts.taken + counts.read
      const said = `File hashes kept on this runner (${HASH_CACHE_VARIABLE}, '${path}'): ${counts.taken.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} source files unchanged since an earlier run (same device, inode, size, modification and change times), not read again.`
      // Nothing read and nothing dropped: the file on disk already says all of it.
      if (counts.read === 0 && seen.size === earlier.size) {
        say(said)
        return
      }
      const { text } = serializeHashCache(seen, startNs, options.racyWindowNs)
      const temporary = `${path}.${process.pid}.tmp`
      try {
        await writeFile(temporary, text)
        await rename(temporary, path)
      } catch (error) {
        await unlink(temporary).catch(() => undefined)
        say(`${HASH_CACHE_VARIABLE}: '${path}' could not be written (${errorMessage(error)}).`)
        return
      }
      say(said)
    },
  }
}

/**
 * The file system's time now, in nanoseconds: the modification time of a file just written
 * (the clock file times are compared with, which may not be the process's).
 */
async function fileSystemNow(folder: string): Promise<bigint> {
  await mkdir(folder, { recursive: true })
  const probe = join(folder, `.start-${process.pid}`)
  await writeFile(probe, '')
  try {
    return (await stat(probe, { bigint: true })).mtimeNs
  } finally {
    await unlink(probe)
  }
}

async function loadEntries(
  path: string,
  say: (line: string) => void,
): Promise<Map<string, CachedHash>> {
  const text = await readFile(path, 'utf8').catch(() => undefined)
  if (text === undefined) return new Map()
  const entries = parseHashCache(text)
  if (!isProblem(entries)) return entries
  say(`${HASH_CACHE_VARIABLE}: '${path}' is ignored, ${entries.problem}: every file is read.`)
  return new Map()
}

function stampOf(info: BigIntStats): FileStamp {
  return {
    dev: info.dev,
    ino: info.ino,
    size: info.size,
    mtimeNs: info.mtimeNs,
    ctimeNs: info.ctimeNs,
  }
}
