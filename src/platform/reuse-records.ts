import { isAbsolute, join, relative } from 'node:path'
import {
  recordKey,
  type ReuseRecord,
  type ReuseRecords,
} from '../core/build-images/reuse/ci-record.js'
import type { Platform } from '../core/shared/context.js'
import type { Env } from '../core/shared/env.js'
import { errorMessage } from '../core/shared/errors.js'
import { isObject } from '../core/shared/json-text.js'
import type { Files } from '../core/shared/ports.js'
import { isInside } from '../core/shared/workspace-file.js'
import { stepFolder } from '../tools/step-folder.js'
import type { TrackedFiles } from '../tools/tracked-files.js'

/**
 * Where the CI keeps build-images' records of what the default branch built (reuse/ci-record.ts):
 * GitHub's Actions cache when the runner gives the step its service, the folder the GitLab
 * template keeps with `cache:` (named by OLYMPE_REUSE_RECORDS), and nowhere otherwise (a run by
 * hand, a GitLab job of one's own without that folder): reuse then builds, and says why.
 * `tracked` tells whether that folder came with the GitLab job's checkout.
 */
export function reuseRecordsFor(
  platform: Platform,
  env: Env,
  files: Files,
  workspace: string,
  tracked: TrackedFiles,
): ReuseRecords | undefined {
  if (platform === 'github') return actionsCacheRecords(env, files)
  if (platform === 'gitlab') return cacheFolderRecords(env, files, workspace, tracked)
  return undefined
}

/**
 * The folder each record's file is saved from, relative to the folder the save runs in: the
 * cache entry's version is a hash of the paths as given, so a path that holds the runner's
 * folder would miss on a runner whose folder is elsewhere.
 */
const RECORD_FOLDER = 'olympe-deploy-actions-reuse-record'

/**
 * Records as Actions cache entries, one per image, keyed by its fingerprint and digest: a key
 * is written once and never changed, and a lookup downloads nothing. @actions/cache (and the
 * Azure SDK it uploads with) is loaded only when the step gets here. Trusted on every ref: a run
 * writes only to its own ref's entries, and reads only those and the default branch's (a pull
 * request's, its base branch's too); build-images runs on no pull request.
 */
export function actionsCacheRecords(env: Env, files: Files): ReuseRecords | undefined {
  const service = env.ACTIONS_RESULTS_URL || env.ACTIONS_CACHE_URL
  if (!service || !env.ACTIONS_RUNTIME_TOKEN || !env.RUNNER_TEMP) return undefined
  return {
    where: 'the GitHub Actions cache',
    untrusted: () => Promise.resolve(undefined),
    async has(record) {
      const cache = await import('@actions/cache')
      const key = recordKey(record)
      const found = await cache.restoreCache([RECORD_FOLDER], key, [], { lookupOnly: true })
      return found === key
    },
    async add(records) {
      const cache = await import('@actions/cache')
      // A folder of the step's own in RUNNER_TEMP, removed at the end (a cancel included): the
      // save runs in it, and @actions/cache makes its archive's folder in RUNNER_TEMP and leaves
      // it behind (with a manifest.txt), so RUNNER_TEMP is this folder for the save too. Nothing
      // else of the step runs by then.
      const scratch = await stepFolder(env, 'olympe-reuse-record-')
      const cwd = process.cwd()
      const runnerTemp = process.env.RUNNER_TEMP
      try {
        process.chdir(scratch.dir)
        process.env.RUNNER_TEMP = scratch.dir
        for (const record of records) {
          await files.writeText(join(scratch.dir, RECORD_FOLDER, 'record.json'), recordText(record))
          // Resolves -1 without throwing when the entry could not be saved (it says why).
          if ((await cache.saveCache([RECORD_FOLDER], recordKey(record))) === -1)
            return `the cache entry for ${record.image} was not saved`
        }
        return undefined
      } catch (error) {
        return errorMessage(error)
      } finally {
        process.chdir(cwd)
        if (runnerTemp === undefined) delete process.env.RUNNER_TEMP
        else process.env.RUNNER_TEMP = runnerTemp
        await scratch.dispose()
      }
    },
  }
}

const recordText = (record: ReuseRecord): string => `${JSON.stringify(record, null, 2)}\n`

/** The records file's format: an object whose `records` is a list of ReuseRecord. */
const RECORDS_FILE = 'records.json'
/** Records kept in the GitLab cache folder: the newest, enough for every image of many runs. */
const MAX_RECORDS = 300

/**
 * Records in one JSON file in the folder the GitLab template keeps with `cache:`: inside the
 * project folder, as GitLab caches only paths there, and never through a link. Trusted only on a
 * protected ref, whose cache GitLab keeps apart from the unprotected refs' one, which a job of
 * the same name in any branch's or merge request's pipeline can write; and only when the file
 * did not come with the checkout (committed), where whoever pushes a commit wrote it.
 */
export function cacheFolderRecords(
  env: Env,
  files: Files,
  projectDir: string,
  tracked: TrackedFiles,
): ReuseRecords | undefined {
  const named = env.OLYMPE_REUSE_RECORDS
  if (!named) return undefined
  const folder = isAbsolute(named) ? named : join(projectDir, named)
  const inside = relative(projectDir, folder)
  const where = `the GitLab job cache ('${named}')`
  const file = join(folder, RECORDS_FILE)
  const refuse = async (): Promise<string | undefined> => {
    if (inside === '' || !isInside(projectDir, folder))
      return `OLYMPE_REUSE_RECORDS '${named}' is not a folder inside the project folder`
    for (const path of [folder, file])
      if ((await files.linkTarget(path)) !== undefined)
        return `'${named}' leads through a symbolic link, which is never followed`
    return undefined
  }
  let judged: Promise<string | undefined> | undefined
  const untrusted = (): Promise<string | undefined> =>
    (judged ??= Promise.resolve(unprotectedRef(env) ?? committed(tracked, projectDir, inside)))
  const read = async (): Promise<ReuseRecord[]> => {
    const problem = (await refuse()) ?? (await untrusted())
    if (problem) throw new Error(problem)
    if ((await files.stat(file))?.kind !== 'file') return []
    const parsed: unknown = JSON.parse(await files.readText(file))
    const list = isObject(parsed) ? parsed.records : undefined
    return Array.isArray(list) ? list.filter(isRecord) : []
  }
  return {
    where,
    untrusted,
    async has(record) {
      return (await read()).some((kept) => sameRecord(kept, record))
    },
    async add(records) {
      try {
        const kept = await read().catch((error: unknown) => {
          if (error instanceof SyntaxError) return []
          throw error
        })
        const all = [...kept.filter((old) => !records.some((r) => sameRecord(r, old))), ...records]
        await files.writeText(
          file,
          `${JSON.stringify({ records: all.slice(-MAX_RECORDS) }, null, 2)}\n`,
        )
        return undefined
      } catch (error) {
        return errorMessage(error)
      }
    },
  }
}

/** Why a ref's cache is not trusted: it is not protected (or GitLab does not say it is). */
function unprotectedRef(env: Env): string | undefined {
  const said = env.CI_COMMIT_REF_PROTECTED
  if (said === 'true') return undefined
  const ref = env.CI_COMMIT_REF_NAME || env.CI_COMMIT_BRANCH || env.CI_COMMIT_TAG
  const value = said === undefined ? 'is not set' : `is '${said}'`
  return `is trusted only on protected branches and tags, and ${ref ? `'${ref}'` : 'this ref'} is not protected (CI_COMMIT_REF_PROTECTED ${value}): GitLab gives the jobs of every unprotected ref one cache, which a pipeline of any branch or merge request can write. Protect the ${env.CI_COMMIT_TAG ? 'tag' : 'branch'}, or set 'signing-key' to have images reused on unprotected refs`
}

/**
 * Why the records folder is not trusted when it came with the checkout: a file git tracks there
 * was written by whoever pushed the commit, and the cache, restored over it, may hold nothing.
 */
async function committed(
  tracked: TrackedFiles,
  projectDir: string,
  folder: string,
): Promise<string | undefined> {
  const found = await tracked(projectDir, folder)
  if ('unknown' in found)
    return `is not trusted: whether '${folder}' came with the checkout cannot be told (${found.unknown})`
  const [first] = found.paths
  if (first === undefined) return undefined
  const who = found.by === 'git' ? 'git tracks it' : "the checkout's .git/index lists it"
  return `is not trusted: '${first}' came with the checkout (${who}), and a records file that anyone who can push a commit can write is never trusted. Remove it from git ('git rm -r --cached ${folder}') and add '${folder}/' to .gitignore`
}

type RecordId = Pick<ReuseRecord, 'fingerprint' | 'digest'>

const sameRecord = (a: RecordId, b: RecordId): boolean =>
  a.fingerprint === b.fingerprint && a.digest === b.digest

function isRecord(value: unknown): value is ReuseRecord {
  if (!isObject(value)) return false
  const { fingerprint, digest, image } = value
  return typeof fingerprint === 'string' && typeof digest === 'string' && typeof image === 'string'
}
