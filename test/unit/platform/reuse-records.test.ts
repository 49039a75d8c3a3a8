import { describe, expect, test } from '@jest/globals'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { recordKey } from '../../../src/core/build-images/ci-record.js'
import {
  actionsCacheRecords,
  cacheFolderRecords,
  reuseRecordsFor,
} from '../../../src/platform/reuse-records.js'
import { nodeFiles } from '../../../src/tools/files.js'
import { withCleanup } from '../../helpers/cleanup.js'

const RECORD = {
  fingerprint: `sha256:${'a'.repeat(64)}`,
  digest: `sha256:${'b'.repeat(64)}`,
  image: 'r.io/acme/shop/frontend:main-1a2b3c4',
}

describe('reuseRecordsFor: where the CI keeps what the default branch built', () => {
  test('GitHub: the Actions cache, when the runner gives the step its service', () => {
    const env = {
      ACTIONS_RESULTS_URL: 'http://127.0.0.1:1/',
      ACTIONS_RUNTIME_TOKEN: 't',
      RUNNER_TEMP: '/tmp',
    }
    expect(reuseRecordsFor('github', env, nodeFiles, '/w')?.where).toBe('the GitHub Actions cache')
    expect(actionsCacheRecords({ ...env, ACTIONS_RUNTIME_TOKEN: '' }, nodeFiles)).toBeUndefined()
  })

  test('GitLab: the folder the template keeps with cache:, named by OLYMPE_REUSE_RECORDS; else nowhere', () => {
    expect(
      reuseRecordsFor('gitlab', { OLYMPE_REUSE_RECORDS: '.olympe-reuse' }, nodeFiles, '/w')?.where,
    ).toBe("the GitLab job cache ('.olympe-reuse')")
    expect(reuseRecordsFor('gitlab', {}, nodeFiles, '/w')).toBeUndefined()
    expect(reuseRecordsFor('local', { OLYMPE_REUSE_RECORDS: 'x' }, nodeFiles, '/w')).toBeUndefined()
  })

  test('a record key holds both digests, within the cache key limits', () => {
    const key = recordKey(RECORD)
    expect(key).toBe(`olympe-reuse-${'a'.repeat(64)}-${'b'.repeat(64)}`)
    expect(key.length).toBeLessThan(512)
    expect(key).not.toContain(',')
  })
})

/** The records kept in the folder OLYMPE_REUSE_RECORDS names, in the project folder given. */
const recordsIn = (folder: string, project: string): ReturnType<typeof cacheFolderRecords> =>
  cacheFolderRecords({ OLYMPE_REUSE_RECORDS: folder }, nodeFiles, project)

describe('cacheFolderRecords: one JSON file in the cached folder', () => {
  test('added records are found, exactly; the file keeps the newest', async () => {
    await withCleanup(async (cleanup) => {
      const project = await cleanup.tempDir('olympe-records-')
      const records = recordsIn('.olympe-reuse', project)
      if (!records) throw new Error('no store')
      expect(await records.has(RECORD)).toBe(false)
      expect(await records.add([RECORD])).toBeUndefined()
      expect(await records.add([RECORD])).toBeUndefined()
      expect(await records.has(RECORD)).toBe(true)
      expect(await records.has({ ...RECORD, digest: `sha256:${'c'.repeat(64)}` })).toBe(false)
      const kept = JSON.parse(
        await readFile(join(project, '.olympe-reuse/records.json'), 'utf8'),
      ) as {
        records: unknown[]
      }
      expect(kept.records).toEqual([RECORD])
    })
  })

  test('never through a link, never outside the project folder', async () => {
    await withCleanup(async (cleanup) => {
      const project = await cleanup.tempDir('olympe-records-')
      const outside = await cleanup.tempDir('olympe-outside-')
      await symlink(outside, join(project, '.olympe-reuse'))
      const linked = recordsIn('.olympe-reuse', project)
      expect(await linked?.add([RECORD])).toBe(
        "'.olympe-reuse' leads through a symbolic link, which is never followed",
      )
      await expect(linked?.has(RECORD)).rejects.toThrow(
        "'.olympe-reuse' leads through a symbolic link, which is never followed",
      )
      const escaping = recordsIn('../elsewhere', project)
      expect(await escaping?.add([RECORD])).toBe(
        "OLYMPE_REUSE_RECORDS '../elsewhere' is not a folder inside the project folder",
      )
    })
  })

  test("a folder whose name starts with two dots ('..cache') is inside the project folder", async () => {
    await withCleanup(async (cleanup) => {
      const project = await cleanup.tempDir('olympe-records-')
      const records = recordsIn('..cache', project)
      expect(await records?.add([RECORD])).toBeUndefined()
      expect(await records?.has(RECORD)).toBe(true)
      const kept = JSON.parse(await readFile(join(project, '..cache/records.json'), 'utf8')) as {
        records: unknown[]
      }
      expect(kept.records).toEqual([RECORD])
    })
  })

  test('a damaged file is read as no record, and rewritten', async () => {
    await withCleanup(async (cleanup) => {
      const project = await cleanup.tempDir('olympe-records-')
      await mkdir(join(project, '.olympe-reuse'))
      await writeFile(join(project, '.olympe-reuse/records.json'), '{not json')
      const records = recordsIn('.olympe-reuse', project)
      expect(await records?.add([RECORD])).toBeUndefined()
      expect(await records?.has(RECORD)).toBe(true)
    })
  })
})
