import { isAbsolute } from 'node:path'
import type { Problem } from '../../shared/problem.js'

/**
 * The sources' file hashes kept between runs on a runner whose disk persists, so that a run
 * with nothing changed reads only what changed: the decisions, pure (src/tools/file-hash-cache.ts
 * does the I/O). A file's hash is taken from the cache only when everything git's index compares
 * is as it was (https://git-scm.com/docs/index-format: device, inode, size, and the modification
 * and change times with their nanoseconds): writing a file changes its change time, which no
 * user can set back, and replacing it changes its inode. A file changed within the file system
 * clock's granularity of being hashed could keep all of those, so, as git does for its "racily
 * clean" entries (https://git-scm.com/docs/racy-git), an entry is kept only for a file last
 * changed well before the run started.
 */

/** The environment variable that turns the cache on: a folder the runner keeps between jobs. */
export const HASH_CACHE_VARIABLE = 'OLYMPE_FILE_HASH_CACHE'
/** The cache file's format; any other is not read. */
export const HASH_CACHE_FORMAT = 'olympe-deploy-actions/file-hashes/1'
/**
 * How long before the run's start a file must have last changed for its hash to be kept: more
 * than any file system's time granularity (2 s on FAT, 1 s on ext3 and HFS+, a clock tick on
 * ext4, XFS and Btrfs), in nanoseconds.
 */
export const RACY_WINDOW_NS = 2_000_000_000n

/** What git's index compares of a file, from lstat with nanoseconds. */
export interface FileStamp {
  dev: bigint
  ino: bigint
  size: bigint
  mtimeNs: bigint
  ctimeNs: bigint
}

export interface CachedHash {
  stamp: FileStamp
  /** SHA-256 of the file's bytes, hex. */
  sha256: string
}

/** Whether the cache is used on this runner, and where; or why not, in a line for the log. */
export type HashCacheSetting = { folder: string } | { off: string | undefined } | Problem

/**
 * The setting, from the variable the runner's administrator sets (never a workflow's input: a
 * workflow cannot know whether its job lands on a runner that keeps its disk). Unset: off,
 * silently. Set on a GitHub-hosted runner (a fresh machine for every job): off, said.
 */
export function hashCacheSetting(
  value: string | undefined,
  runnerEnvironment: string | undefined,
): HashCacheSetting {
  const folder = value?.trim() ?? ''
  if (folder === '') return { off: undefined }
  if (runnerEnvironment === 'github-hosted')
    return {
      off: `${HASH_CACHE_VARIABLE} is set, but this is a GitHub-hosted runner, a fresh machine for every job: no file hashes are kept`,
    }
  if (!isAbsolute(folder))
    return {
      problem: `${HASH_CACHE_VARIABLE} is '${folder}', not an absolute path: expected a folder the runner keeps between jobs, such as /var/cache/olympe; no file hashes are kept`,
    }
  return { folder }
}

/** The cached hash of a file whose stamp is exactly the one it was hashed with; else undefined. */
export function trustedHash(cached: CachedHash | undefined, stamp: FileStamp): string | undefined {
  if (!cached) return undefined
  const was = cached.stamp
  const same =
    was.dev === stamp.dev &&
    was.ino === stamp.ino &&
    was.size === stamp.size &&
    was.mtimeNs === stamp.mtimeNs &&
    was.ctimeNs === stamp.ctimeNs
  return same ? cached.sha256 : undefined
}

/**
 * Whether a hash may be kept for later runs: its file last changed (written, or its times or
 * mode set) at least RACY_WINDOW_NS before the run started (`startNs`, on the file system's
 * clock), so that any later change gives it another time.
 */
export function keepable(
  stamp: FileStamp,
  startNs: bigint,
  windowNs: bigint = RACY_WINDOW_NS,
): boolean {
  const changed = stamp.mtimeNs > stamp.ctimeNs ? stamp.mtimeNs : stamp.ctimeNs
  return changed < startNs - windowNs
}

const HEX = /^[0-9a-f]{64}$/
const DECIMAL = /^\d{1,30}$/

/**
 * The cache file's entries, by absolute path; a problem, worded for the log, when the file is
 * not one this step wrote (another format, or damaged): then nothing of it is trusted.
 */
export function parseHashCache(text: string): Map<string, CachedHash> | Problem {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch {
    return { problem: 'it is not JSON' }
  }
  const { format, files } = (document ?? {}) as { format?: unknown; files?: unknown }
  if (format !== HASH_CACHE_FORMAT) return { problem: `its format is not '${HASH_CACHE_FORMAT}'` }
  if (typeof files !== 'object' || files === null || Array.isArray(files))
    return { problem: 'it has no "files" object' }
  const entries = new Map<string, CachedHash>()
  for (const [path, entry] of Object.entries(files)) {
    const parsed = parseEntry(entry)
    if (!parsed || !isAbsolute(path)) return { problem: `its entry for '${path}' is damaged` }
    entries.set(path, parsed)
  }
  return entries
}

/** An entry is `[dev, ino, size, mtimeNs, ctimeNs, sha256]`, the numbers as decimal strings. */
function parseEntry(entry: unknown): CachedHash | undefined {
  if (!Array.isArray(entry) || entry.length !== 6) return undefined
  const numbers = entry.slice(0, 5) as unknown[]
  const sha256 = entry[5] as unknown
  if (!numbers.every((n) => typeof n === 'string' && DECIMAL.test(n))) return undefined
  if (typeof sha256 !== 'string' || !HEX.test(sha256)) return undefined
  const [dev, ino, size, mtimeNs, ctimeNs] = (numbers as string[]).map((n) => BigInt(n)) as [
    bigint,
    bigint,
    bigint,
    bigint,
    bigint,
  ]
  return { stamp: { dev, ino, size, mtimeNs, ctimeNs }, sha256 }
}

/** The cache file's text: the entries that may be kept (see keepable), sorted by path. */
export function serializeHashCache(
  entries: ReadonlyMap<string, CachedHash>,
  startNs: bigint,
  windowNs: bigint = RACY_WINDOW_NS,
): { text: string; kept: number } {
  const files: Record<string, string[]> = {}
  let kept = 0
  for (const path of [...entries.keys()].sort()) {
    const { stamp, sha256 } = entries.get(path) as CachedHash
    if (!keepable(stamp, startNs, windowNs)) continue
    const { dev, ino, size, mtimeNs, ctimeNs } = stamp
    files[path] = [dev, ino, size, mtimeNs, ctimeNs].map(String).concat(sha256)
    kept++
  }
  return { text: `${JSON.stringify({ format: HASH_CACHE_FORMAT, files })}\n`, kept }
}
