import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { sourceDigest } from '../../../src/core/build-images/reuse/fingerprint.js'
import type { Files } from '../../../src/core/shared/ports.js'
import { fileHashCacheFor, openFileHashCache } from '../../../src/tools/file-hash-cache.js'
import { nodeFiles } from '../../../src/tools/files.js'
import { withCleanup, type Cleanup } from '../../helpers/cleanup.js'

const PAST = new Date('2020-01-01T00:00:00Z')
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

interface Run {
  digest: string | null
  /** The files read and hashed, not taken from the cache. */
  read: string[]
  said: string[]
}

/** A project with two source files, and a folder for the cache; files' times in the past. */
async function setUp(cleanup: Cleanup): Promise<{ root: string; folder: string }> {
  const root = await cleanup.tempDir('olympe-hash-cache-')
  await mkdir(join(root, 'project/dist/web/js'), { recursive: true })
  await writeFile(join(root, 'project/dist/web/index.html'), '<html>')
  await writeFile(join(root, 'project/dist/web/js/app.js'), 'app(1)')
  // Whole seconds, which utimes can set back exactly.
  for (const file of ['index.html', 'js/app.js'])
    await utimes(join(root, 'project/dist/web', file), PAST, PAST)
  // Past the file system clock's tick: the files' change times are before the run's start.
  await sleep(50)
  return { root: join(root, 'project'), folder: join(root, 'runner-cache') }
}

/** One run of the fingerprint's hashing of dist/web, through the cache. */
async function hashRun(
  root: string,
  folder: string,
  racyWindowNs: bigint | 'default' = 0n,
): Promise<Run> {
  const read: string[] = []
  const said: string[] = []
  const inner: Files = {
    ...nodeFiles,
    hashFile: (path) => {
      read.push(path.slice(root.length + 1))
      return nodeFiles.hashFile(path)
    },
  }
  const cache = await openFileHashCache({
    folder,
    workspace: root,
    say: (line) => said.push(line),
    inner,
    ...(racyWindowNs === 'default' ? {} : { racyWindowNs }),
  })
  if (!cache) throw new Error(`no cache: ${said.join('\n')}`)
  const found = await sourceDigest('dist/web', { root, files: cache.files })
  if ('problem' in found) throw new Error(found.problem)
  await cache.save()
  return { digest: found.digest, read: read.sort(), said }
}

/** What the fingerprint's hashing gives without any cache. */
async function uncached(root: string): Promise<string | null> {
  const found = await sourceDigest('dist/web', { root, files: nodeFiles })
  if ('problem' in found) throw new Error(found.problem)
  return found.digest
}

/** The entries of the cache file, as written. */
async function cachedEntries(file: string): Promise<Record<string, string[]>> {
  return (JSON.parse(await readFile(file, 'utf8')) as { files: Record<string, string[]> }).files
}

async function cacheFile(folder: string): Promise<string> {
  const [name = ''] = await readdir(join(folder, 'olympe-deploy-actions'))
  return join(folder, 'olympe-deploy-actions', name)
}

describe('the file-hash cache on disk', () => {
  test('a second run reads no unchanged file, says so in one line, and gives the same fingerprint as no cache', async () => {
    await withCleanup(async (cleanup) => {
      const { root, folder } = await setUp(cleanup)
      const first = await hashRun(root, folder)
      expect(first.read).toEqual(['dist/web/index.html', 'dist/web/js/app.js'])
      const second = await hashRun(root, folder)
      expect(second.read).toEqual([])
      expect(second.digest).toBe(first.digest)
      expect(second.digest).toBe(await uncached(root))
      const file = await cacheFile(folder)
      expect(file).toMatch(/\/olympe-deploy-actions\/file-hashes-[0-9a-f]{16}\.json$/)
      expect(second.said).toEqual([
        `File hashes kept on this runner (OLYMPE_FILE_HASH_CACHE, '${file}'): 2 of 2 source files unchanged since an earlier run (same device, inode, size, modification and change times), not read again.`,
      ])
      // Only the cache's own file is left in its folder: no probe, no temporary file.
      expect(await readdir(join(folder, 'olympe-deploy-actions'))).toHaveLength(1)
    })
  })

  test.each<[string, (file: string) => Promise<void>]>([
    ['a changed size', (file) => writeFile(file, 'app(10)')],
    [
      'a changed modification time, the same size',
      async (file) => {
        await writeFile(file, 'app(2)')
        await utimes(file, new Date('2030-01-01'), new Date('2030-01-01'))
      },
    ],
    [
      'the same modification time, a changed change time (the content rewritten, then its time set back)',
      async (file) => {
        await writeFile(file, 'app(3)')
        await utimes(file, PAST, PAST)
      },
    ],
    [
      'another inode: a file of the same size and times renamed over it',
      async (file) => {
        await writeFile(`${file}.new`, 'app(4)')
        await utimes(`${file}.new`, PAST, PAST)
        await rename(`${file}.new`, file)
      },
    ],
  ])('%s: the file is read again, and the fingerprint follows it', async (_, change) => {
    await withCleanup(async (cleanup) => {
      const { root, folder } = await setUp(cleanup)
      const first = await hashRun(root, folder)
      const app = join(root, 'dist/web/js/app.js')
      const mtimeBefore = (await stat(app, { bigint: true })).mtimeNs
      await change(app)
      const second = await hashRun(root, folder)
      expect(second.read).toEqual(['dist/web/js/app.js'])
      expect(second.digest).not.toBe(first.digest)
      expect(second.digest).toBe(await uncached(root))
      if (_.startsWith('the same modification time'))
        expect((await stat(app, { bigint: true })).mtimeNs).toBe(mtimeBefore)
    })
  })

  test('a file changed within the racy window of the run is not kept: the next run reads it again', async () => {
    await withCleanup(async (cleanup) => {
      const { root, folder } = await setUp(cleanup)
      // The default window (2 s): the files were written just now.
      await hashRun(root, folder, 'default')
      const second = await hashRun(root, folder, 'default')
      expect(second.read).toEqual(['dist/web/index.html', 'dist/web/js/app.js'])
      expect(await cachedEntries(await cacheFile(folder))).toEqual({})
    })
  })

  test.each([
    ['damaged', '{"format": "olympe-deploy', 'it is not JSON'],
    [
      'foreign',
      JSON.stringify({
        format: 'someone-else/hashes',
        files: { '/etc/passwd': ['1', '2', '3', '4', '5', 'ab'.repeat(32)] },
      }),
      "its format is not 'olympe-deploy-actions/file-hashes/1'",
    ],
  ])(
    'a %s cache file is ignored with one line, every file read, and replaced',
    async (_, text, why) => {
      await withCleanup(async (cleanup) => {
        const { root, folder } = await setUp(cleanup)
        await hashRun(root, folder)
        const file = await cacheFile(folder)
        await writeFile(file, text)
        const run = await hashRun(root, folder)
        expect(run.read).toEqual(['dist/web/index.html', 'dist/web/js/app.js'])
        expect(run.digest).toBe(await uncached(root))
        expect(run.said[0]).toBe(
          `OLYMPE_FILE_HASH_CACHE: '${file}' is ignored, ${why}: every file is read.`,
        )
        expect(Object.keys(await cachedEntries(file))).toHaveLength(2)
      })
    },
  )

  test('a cached hash is the SHA-256 of the file, as nodeFiles gives it', async () => {
    await withCleanup(async (cleanup) => {
      const { root, folder } = await setUp(cleanup)
      await hashRun(root, folder)
      const entries = await cachedEntries(await cacheFile(folder))
      expect(entries[join(root, 'dist/web/index.html')]?.[5]).toBe(sha256('<html>'))
    })
  })
})

describe('fileHashCacheFor: what the runner asks for', () => {
  const logger = (): {
    lines: string[]
    info: (l: string) => void
    warning: (l: string) => void
  } => {
    const lines: string[] = []
    return {
      lines,
      info: (line) => lines.push(`info: ${line}`),
      warning: (line) => lines.push(`warning: ${line}`),
    }
  }

  test('unset: no cache, nothing said; on a GitHub-hosted runner or a relative path: none, said', async () => {
    const quiet = logger()
    expect(await fileHashCacheFor({}, '/work', quiet)).toBeUndefined()
    expect(quiet.lines).toEqual([])
    const hosted = logger()
    expect(
      await fileHashCacheFor(
        { OLYMPE_FILE_HASH_CACHE: '/var/cache/olympe', RUNNER_ENVIRONMENT: 'github-hosted' },
        '/work',
        hosted,
      ),
    ).toBeUndefined()
    expect(hosted.lines).toEqual([
      'info: OLYMPE_FILE_HASH_CACHE is set, but this is a GitHub-hosted runner, a fresh machine for every job: no file hashes are kept.',
    ])
    const relative = logger()
    expect(
      await fileHashCacheFor({ OLYMPE_FILE_HASH_CACHE: 'cache' }, '/work', relative),
    ).toBeUndefined()
    expect(relative.lines).toEqual([
      "warning: OLYMPE_FILE_HASH_CACHE is 'cache', not an absolute path: expected a folder the runner keeps between jobs, such as /var/cache/olympe; no file hashes are kept.",
    ])
  })

  test('a folder that cannot be made: none, said', async () => {
    await withCleanup(async (cleanup) => {
      const root = await cleanup.tempDir('olympe-hash-cache-')
      await writeFile(join(root, 'a-file'), '')
      const said = logger()
      expect(
        await fileHashCacheFor({ OLYMPE_FILE_HASH_CACHE: join(root, 'a-file') }, root, said),
      ).toBeUndefined()
      expect(said.lines).toEqual([
        `info: OLYMPE_FILE_HASH_CACHE: '${join(root, 'a-file/olympe-deploy-actions')}' could not be written (Error: ENOTDIR: not a directory, mkdir '${join(root, 'a-file/olympe-deploy-actions')}'): every file is read.`,
      ])
    })
  })
})
