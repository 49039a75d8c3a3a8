import { describe, expect, test } from '@jest/globals'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { recordKey } from '../../../src/core/build-images/reuse/ci-record.js'
import {
  actionsCacheRecords,
  cacheFolderRecords,
  reuseRecordsFor,
} from '../../../src/platform/reuse-records.js'
import { exec } from '../../../src/tools/exec.js'
import { nodeFiles } from '../../../src/tools/files.js'
import { trackedFiles, type TrackedFiles } from '../../../src/tools/tracked-files.js'
import { withCleanup, type Cleanup } from '../../helpers/cleanup.js'
import { commitCheckout } from '../../helpers/git-repos.js'

/** What a job's git says: nothing tracked in the records folder. */
const UNTRACKED: TrackedFiles = () => Promise.resolve({ paths: [], by: 'git' })
/** A job on a protected ref, as GitLab says it. */
const PROTECTED = { CI_COMMIT_REF_PROTECTED: 'true', CI_COMMIT_REF_NAME: 'main' }

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
    const records = reuseRecordsFor('github', env, nodeFiles, '/w', UNTRACKED)
    expect(records?.where).toBe('the GitHub Actions cache')
    expect(actionsCacheRecords({ ...env, ACTIONS_RUNTIME_TOKEN: '' }, nodeFiles)).toBeUndefined()
  })

  test('GitLab: the folder the template keeps with cache:, named by OLYMPE_REUSE_RECORDS; else nowhere', () => {
    const named = { ...PROTECTED, OLYMPE_REUSE_RECORDS: '.olympe-reuse' }
    expect(reuseRecordsFor('gitlab', named, nodeFiles, '/w', UNTRACKED)?.where).toBe(
      "the GitLab job cache ('.olympe-reuse')",
    )
    expect(reuseRecordsFor('gitlab', PROTECTED, nodeFiles, '/w', UNTRACKED)).toBeUndefined()
    expect(reuseRecordsFor('local', named, nodeFiles, '/w', UNTRACKED)).toBeUndefined()
  })

  test('a record key holds both digests, within the cache key limits', () => {
    const key = recordKey(RECORD)
    expect(key).toBe(`olympe-reuse-${'a'.repeat(64)}-${'b'.repeat(64)}`)
    expect(key.length).toBeLessThan(512)
    expect(key).not.toContain(',')
  })
})

/**
 * The records kept in the folder OLYMPE_REUSE_RECORDS names, in the project folder given, on a
 * protected ref unless `env` says otherwise.
 */
const recordsIn = (
  folder: string,
  project: string,
  env: Record<string, string> = {},
  tracked = UNTRACKED,
): ReturnType<typeof cacheFolderRecords> =>
  cacheFolderRecords(
    { ...PROTECTED, OLYMPE_REUSE_RECORDS: folder, ...env },
    nodeFiles,
    project,
    tracked,
  )

describe('cacheFolderRecords: one JSON file in the cached folder', () => {
  test('added records are found, exactly; the file keeps the newest', async () => {
    await withCleanup(async (cleanup) => {
      const project = await cleanup.tempDir('olympe-records-')
      const records = recordsIn('.olympe-reuse', project)
      if (!records) throw new Error('no store')
      expect(await records.untrusted()).toBeUndefined()
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

describe('cacheFolderRecords: trusted only on a protected ref, and never from the checkout', () => {
  const UNPROTECTED =
    'GitLab gives the jobs of every unprotected ref one cache, which a pipeline of any branch or merge request can write.'

  test.each<[string, Record<string, string>, string]>([
    [
      'an unprotected branch',
      {
        CI_COMMIT_REF_PROTECTED: 'false',
        CI_COMMIT_REF_NAME: 'feature-b',
        CI_COMMIT_BRANCH: 'feature-b',
      },
      `is trusted only on protected branches and tags, and 'feature-b' is not protected (CI_COMMIT_REF_PROTECTED is 'false'): ${UNPROTECTED} Protect the branch, or set 'signing-key' to have images reused on unprotected refs`,
    ],
    [
      'an unprotected tag',
      { CI_COMMIT_REF_PROTECTED: 'false', CI_COMMIT_REF_NAME: 'v1.2.0', CI_COMMIT_TAG: 'v1.2.0' },
      `is trusted only on protected branches and tags, and 'v1.2.0' is not protected (CI_COMMIT_REF_PROTECTED is 'false'): ${UNPROTECTED} Protect the tag, or set 'signing-key' to have images reused on unprotected refs`,
    ],
    [
      'a GitLab that does not say (CI_COMMIT_REF_PROTECTED unset)',
      { CI_COMMIT_REF_NAME: 'main' },
      `is trusted only on protected branches and tags, and 'main' is not protected (CI_COMMIT_REF_PROTECTED is not set): ${UNPROTECTED} Protect the branch, or set 'signing-key' to have images reused on unprotected refs`,
    ],
  ])('%s: neither read nor written, and why', async (_, env, why) => {
    await withCleanup(async (cleanup) => {
      const project = await cleanup.tempDir('olympe-records-')
      // The unprotected refs' cache holds a record: whoever wrote it is not known.
      await mkdir(join(project, '.olympe-reuse'))
      const planted = `${JSON.stringify({ records: [RECORD] })}\n`
      await writeFile(join(project, '.olympe-reuse/records.json'), planted)
      const records = cacheFolderRecords(
        { ...env, OLYMPE_REUSE_RECORDS: '.olympe-reuse' },
        nodeFiles,
        project,
        UNTRACKED,
      )
      expect(await records?.untrusted()).toBe(why)
      await expect(records?.has(RECORD)).rejects.toThrow(why)
      expect(await records?.add([{ ...RECORD, digest: `sha256:${'c'.repeat(64)}` }])).toBe(why)
      expect(await readFile(join(project, '.olympe-reuse/records.json'), 'utf8')).toBe(planted)
    })
  })

  /** A git checkout in a new folder, `committed` in its commit. */
  async function checkout(cleanup: Cleanup, committed: Record<string, string>): Promise<string> {
    const project = await cleanup.tempDir('olympe-records-checkout-')
    await commitCheckout(project, committed)
    return project
  }

  const COMMITTED = `is not trusted: '.olympe-reuse/records.json' came with the checkout (git tracks it), and a records file that anyone who can push a commit can write is never trusted. Remove it from git ('git rm -r --cached .olympe-reuse') and add '.olympe-reuse/' to .gitignore`

  test('a records file that came with the checkout: not trusted, on a protected ref too', async () => {
    await withCleanup(async (cleanup) => {
      const project = await checkout(cleanup, {
        '.olympe-reuse/records.json': `${JSON.stringify({ records: [RECORD] })}\n`,
      })
      const records = recordsIn('.olympe-reuse', project, {}, trackedFiles(exec))
      expect(await records?.untrusted()).toBe(COMMITTED)
      await expect(records?.has(RECORD)).rejects.toThrow(COMMITTED)
    })
  })

  test("without git, the checkout's .git/index tells, and the message says so", async () => {
    await withCleanup(async (cleanup) => {
      const project = await checkout(cleanup, {
        '.olympe-reuse/records.json': `${JSON.stringify({ records: [RECORD] })}\n`,
      })
      // A job image without git: the exec port cannot find the program.
      const noGit = trackedFiles(() =>
        Promise.reject(
          new Error(
            'Unable to locate executable file: git. Please verify either the file path exists or the file can be found within a directory specified by the PATH environment variable.',
          ),
        ),
      )
      expect(await recordsIn('.olympe-reuse', project, {}, noGit)?.untrusted()).toBe(
        COMMITTED.replace('(git tracks it)', "(the checkout's .git/index lists it)"),
      )
    })
  })

  test('a folder git does not track (the cache restored it, or the step wrote it) is trusted', async () => {
    await withCleanup(async (cleanup) => {
      const project = await checkout(cleanup, { 'docker/frontend.Dockerfile': 'FROM x\n' })
      await mkdir(join(project, '.olympe-reuse'))
      await writeFile(
        join(project, '.olympe-reuse/records.json'),
        `${JSON.stringify({ records: [RECORD] })}\n`,
      )
      const records = recordsIn('.olympe-reuse', project, {}, trackedFiles(exec))
      expect(await records?.untrusted()).toBeUndefined()
      expect(await records?.has(RECORD)).toBe(true)
    })
  })

  test('no checkout to tell from (GIT_STRATEGY: none): not trusted', async () => {
    await withCleanup(async (cleanup) => {
      const project = await cleanup.tempDir('olympe-records-')
      const records = recordsIn('.olympe-reuse', project, {}, trackedFiles(exec))
      expect(await records?.untrusted()).toBe(
        `is not trusted: whether '.olympe-reuse' came with the checkout cannot be told ('${project}' is no git checkout (no .git there))`,
      )
    })
  })
})
