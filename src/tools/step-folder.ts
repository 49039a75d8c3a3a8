// The folders a step makes for itself (its Docker config, Buildah's auth file and registries
// configuration): in the job's own temporary folder, removed when the step ends, failed or
// cancelled, and swept up by a later run when the step was killed before it could.
import { rmSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Env } from '../core/shared/env.js'
import type { StepCancellation } from './cancel.js'

/**
 * Where the step keeps what it writes for itself, such as its Docker config with the registry
 * login: the job's own temporary folder, never the machine's shared one, where another job or
 * user of a self-hosted runner could come across it.
 * - GitHub: RUNNER_TEMP, which the runner empties at the start and the end of every job.
 * - GitLab: RUNNER_TEMP_PROJECT_DIR, the runner's temporary folder for the job (where it writes
 *   file-type CI/CD variables): `<project folder>.tmp`, beside the clone. Not CI_BUILDS_DIR nor
 *   the clone's parent, which the runner shares between the projects it builds; not the clone,
 *   where `artifacts: untracked`, a cache, or a later `git add` of the job could take it along.
 *   GitLab removes only its own files there, so the step removes its folder itself (a cancel
 *   included), and a run killed before it could is swept up by the next (see sweepStale).
 * - Elsewhere (a person's terminal, an older GitLab runner): the machine's temporary folder.
 */
export function stepTempRoot(env: Env): string {
  if (env.GITHUB_ACTIONS === 'true' && env.RUNNER_TEMP) return env.RUNNER_TEMP
  if (env.GITLAB_CI === 'true' && env.RUNNER_TEMP_PROJECT_DIR) return env.RUNNER_TEMP_PROJECT_DIR
  return tmpdir()
}

export interface StepFolder {
  dir: string
  /** Removes the folder (links in it, never what they point to). */
  dispose: () => Promise<void>
}

/**
 * A new folder `<prefix><pid>-XXXXXX` under the step's temporary root (see stepTempRoot), which a
 * cancelled step removes at once; folders of the same prefix that killed runs left are removed
 * first. The pid in the name tells a later run whether the run that made it still runs.
 */
export function stepFolder(
  env: Env,
  prefix: string,
  cancel?: StepCancellation,
): Promise<StepFolder> {
  return stepFolderIn(stepTempRoot(env), prefix, cancel)
}

/**
 * stepFolder under `root`, made first when it does not exist yet (mode 0700, as what goes in it
 * is the step's own): a GitLab runner makes RUNNER_TEMP_PROJECT_DIR only when the job has a
 * variable of type File, and a build's scratch folder needs it all the same.
 */
export async function stepFolderIn(
  root: string,
  prefix: string,
  cancel?: StepCancellation,
): Promise<StepFolder> {
  await mkdir(root, { recursive: true, mode: 0o700 })
  await sweepStale(root, prefix)
  const dir = await mkdtemp(join(root, `${prefix}${process.pid}-`))
  const forget = cancel?.atExit(() => rmSync(dir, { recursive: true, force: true }))
  return {
    dir,
    dispose: async () => {
      await rm(dir, { recursive: true, force: true })
      forget?.()
    },
  }
}

/**
 * Removes the folders of `prefix` that earlier runs of the step left in `root` because they were
 * killed (SIGKILL leaves no time to clean up): those whose run is gone. One whose pid answers is
 * left alone, whoever answers.
 */
async function sweepStale(root: string, prefix: string): Promise<void> {
  const names = await readdir(root).catch(() => [])
  const ofPrefix = new RegExp(`^${prefix}(\\d+)-`)
  for (const name of names) {
    const pid = Number(ofPrefix.exec(name)?.[1])
    if (!pid || pid === process.pid || processExists(pid)) continue
    await rm(join(root, name), { recursive: true, force: true })
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
