import { describe, expect, test } from '@jest/globals'
import {
  HASH_CACHE_FORMAT,
  hashCacheSetting,
  keepable,
  parseHashCache,
  RACY_WINDOW_NS,
  serializeHashCache,
  trustedHash,
  type CachedHash,
  type FileStamp,
} from '../../../../../src/core/build-images/reuse/file-hash-cache.js'

const SECOND = 1_000_000_000n
const START = 1_800_000_000n * SECOND
const STAMP: FileStamp = {
  dev: 2049n,
  ino: 1234567n,
  size: 4096n,
  mtimeNs: START - 3600n * SECOND + 123_456_789n,
  ctimeNs: START - 3600n * SECOND + 223_456_789n,
}
const HASH = 'ab'.repeat(32)
type CacheDocument = { files: Record<string, string[]> }
const CACHED: CachedHash = { stamp: STAMP, sha256: HASH }

describe('trustedHash: what git compares of a file, every field', () => {
  test('the same stamp gives the cached hash', () => {
    expect(trustedHash(CACHED, { ...STAMP })).toBe(HASH)
    expect(trustedHash(undefined, STAMP)).toBeUndefined()
  })

  test.each([
    ['a changed size', { size: STAMP.size + 1n }],
    ['a changed modification time', { mtimeNs: STAMP.mtimeNs + SECOND }],
    ['a modification time changed by one nanosecond', { mtimeNs: STAMP.mtimeNs + 1n }],
    ['the same modification time, a changed change time', { ctimeNs: STAMP.ctimeNs + 1n }],
    ['another inode (a file renamed over it)', { ino: STAMP.ino + 1n }],
    ['another device', { dev: STAMP.dev + 1n }],
  ])('%s: not trusted, the file is read', (_, change) => {
    expect(trustedHash(CACHED, { ...STAMP, ...change })).toBeUndefined()
  })
})

describe('keepable: racily clean files are not kept (git racy-git)', () => {
  test('a file last changed more than the window before the run is kept', () => {
    expect(keepable(STAMP, START)).toBe(true)
    const edge = START - RACY_WINDOW_NS - 1n
    expect(keepable({ ...STAMP, mtimeNs: edge, ctimeNs: edge }, START)).toBe(true)
  })

  test('a file modified, or whose inode changed, within the window before the run (or after it) is not', () => {
    const recent = START - RACY_WINDOW_NS
    expect(keepable({ ...STAMP, mtimeNs: recent }, START)).toBe(false)
    expect(keepable({ ...STAMP, ctimeNs: recent + SECOND }, START)).toBe(false)
    expect(keepable({ ...STAMP, mtimeNs: START + SECOND, ctimeNs: START + SECOND }, START)).toBe(
      false,
    )
  })
})

describe('the cache file', () => {
  test('written and read back, racy entries left out, sorted by path', () => {
    const racy: CachedHash = {
      stamp: { ...STAMP, ctimeNs: START - SECOND },
      sha256: 'cd'.repeat(32),
    }
    const entries = new Map([
      ['/work/b.js', CACHED],
      ['/work/a.js', CACHED],
      ['/work/racy.js', racy],
    ])
    const { text, kept } = serializeHashCache(entries, START)
    const row = ['2049', '1234567', '4096', String(STAMP.mtimeNs), String(STAMP.ctimeNs), HASH]
    expect(kept).toBe(2)
    expect(JSON.parse(text)).toEqual({
      format: HASH_CACHE_FORMAT,
      files: { '/work/a.js': row, '/work/b.js': row },
    })
    expect(Object.keys((JSON.parse(text) as CacheDocument).files)).toEqual([
      '/work/a.js',
      '/work/b.js',
    ])
    expect(parseHashCache(text)).toEqual(
      new Map([
        ['/work/a.js', CACHED],
        ['/work/b.js', CACHED],
      ]),
    )
  })

  const entry = ['1', '2', '3', '4', '5', HASH]
  test.each([
    ['not JSON', '{"format": "olympe', 'it is not JSON'],
    ['JSON null', 'null', `its format is not '${HASH_CACHE_FORMAT}'`],
    [
      'another format (a foreign file)',
      JSON.stringify({ format: 'olympe-deploy-actions/file-hashes/0', files: {} }),
      `its format is not '${HASH_CACHE_FORMAT}'`,
    ],
    [
      'no files',
      JSON.stringify({ format: HASH_CACHE_FORMAT, files: [] }),
      'it has no "files" object',
    ],
    [
      'a short entry',
      JSON.stringify({ format: HASH_CACHE_FORMAT, files: { '/a': entry.slice(1) } }),
      "its entry for '/a' is damaged",
    ],
    [
      'a hash that is not SHA-256 hex',
      JSON.stringify({ format: HASH_CACHE_FORMAT, files: { '/a': [...entry.slice(0, 5), 'x'] } }),
      "its entry for '/a' is damaged",
    ],
    [
      'a number that is not a decimal string',
      JSON.stringify({ format: HASH_CACHE_FORMAT, files: { '/a': [1, ...entry.slice(1)] } }),
      "its entry for '/a' is damaged",
    ],
    [
      'a relative path',
      JSON.stringify({ format: HASH_CACHE_FORMAT, files: { 'a.js': entry } }),
      "its entry for 'a.js' is damaged",
    ],
  ])('%s: nothing of it is trusted', (_, text, problem) => {
    expect(parseHashCache(text)).toEqual({ problem })
  })
})

describe('hashCacheSetting: the runner asks for it', () => {
  test('unset or empty: off, nothing said', () => {
    expect(hashCacheSetting(undefined, 'self-hosted')).toEqual({ off: undefined })
    expect(hashCacheSetting('  ', undefined)).toEqual({ off: undefined })
  })

  test('an absolute folder on a self-hosted runner or a GitLab runner: used', () => {
    expect(hashCacheSetting('/var/cache/olympe', 'self-hosted')).toEqual({
      folder: '/var/cache/olympe',
    })
    expect(hashCacheSetting(' /var/cache/olympe ', undefined)).toEqual({
      folder: '/var/cache/olympe',
    })
  })

  test('on a GitHub-hosted runner: off, said', () => {
    expect(hashCacheSetting('/var/cache/olympe', 'github-hosted')).toEqual({
      off: 'OLYMPE_FILE_HASH_CACHE is set, but this is a GitHub-hosted runner, a fresh machine for every job: no file hashes are kept',
    })
  })

  test('a relative path: refused, named', () => {
    expect(hashCacheSetting('cache', 'self-hosted')).toEqual({
      problem:
        "OLYMPE_FILE_HASH_CACHE is 'cache', not an absolute path: expected a folder the runner keeps between jobs, such as /var/cache/olympe; no file hashes are kept",
    })
  })
})
