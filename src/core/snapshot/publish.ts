import { join } from 'node:path'
import { ActionError } from '../shared/errors.js'
import { isProblem } from '../shared/problem.js'
import { retry, type AttemptOutcome } from '../shared/retry.js'
import { checkOutputDir, cloneRoot } from './boundary.js'
import { describeCounts, countChanges, listChanges } from './changes.js'
import type { SnapshotEntry } from './config.js'
import { explainGitFailure, indent } from './git-errors.js'
import { renderCommitMessage } from './message.js'
import { GitFailure, type GitWorktree, type SnapshotPorts } from './ports.js'
import { describeTarget, type GitTarget } from './plan.js'
import type { EntryResult } from './summary.js'

export interface PublishOptions {
  attempts: number
  /** The snapshot's time, for `{date}`: the same in every commit of the clone. */
  date: Date
  /** Where each entry's exported folder was kept, to re-apply it after a lost push race. */
  saved: ReadonlyMap<SnapshotEntry, string>
}

type PublishTools = Pick<SnapshotPorts, 'logger' | 'files' | 'clock' | 'random'>

/**
 * Commits each changed entry and pushes the clone, fast-forward only. When someone pushed
 * meanwhile, the clone is reset onto the new tip, each entry's exported folder (its whole
 * desired content) is laid over it again, and whatever still differs is committed and pushed.
 * Only a rejected push is tried again: any other git failure (a refused token, no such
 * repository) would be the same a second later.
 */
export async function publishTarget(
  target: GitTarget,
  worktree: GitWorktree,
  options: PublishOptions,
  tools: PublishTools,
): Promise<EntryResult[]> {
  const where = describeTarget(target)
  const retried = await retry(
    (attempt) => commitAndPush(attempt, target, worktree, options, tools),
    {
      attempts: options.attempts,
      // Spread the retries of runs that collided, so they do not collide again in step.
      backoffMs: () => Math.round(300 + 700 * tools.random()),
      sleep: (ms) => tools.clock.sleep(ms),
      onRetry: (_failure, _waitMs, attempt) =>
        tools.logger.warning(
          `Push ${attempt} of ${options.attempts} to ${where} was rejected: someone pushed meanwhile. Fetching, re-applying the snapshot and trying again (never a force push).`,
        ),
    },
  )
  if (retried.kind === 'done') return retried.value
  throw gaveUp(where, retried.attempts, retried.failure.message)
}

/** One attempt: the snapshot re-applied after a lost race, what changed committed, then pushed. */
async function commitAndPush(
  attempt: number,
  target: GitTarget,
  worktree: GitWorktree,
  options: PublishOptions,
  tools: PublishTools,
): Promise<AttemptOutcome<EntryResult[], GitFailure>> {
  const where = describeTarget(target)
  if (attempt > 1) await reapply(target, worktree, options, tools)
  const results = await commitEntries(target, worktree, options.date, tools)
  const committed = results.filter((r) => r.status === 'pushed')
  if (committed.length === 0) {
    tools.logger.info(`Nothing changed in ${where}: nothing to push.`)
    return { kind: 'done', value: results }
  }
  try {
    await worktree.push(target.branch)
  } catch (error) {
    if (!(error instanceof GitFailure && error.kind === 'rejected'))
      throw explainGitFailure(error, `Pushing to ${where}`)
    return { kind: 'failed', failure: error, retry: true }
  }
  tools.logger.info(`Pushed ${committed.length} commit(s) to ${where}.`)
  return { kind: 'done', value: results.map((r) => ({ ...r, attempts: attempt })) }
}

async function commitEntries(
  target: GitTarget,
  worktree: GitWorktree,
  date: Date,
  tools: PublishTools,
): Promise<EntryResult[]> {
  const results: EntryResult[] = []
  for (const entry of target.entries) {
    const dir = entry.snapshooter.outputDir
    const changes = await stageEntry(target, worktree, entry)
    if (changes.length === 0) {
      tools.logger.info(`'${entry.name}': no change in ${dir}.`)
      results.push({ entry, target, status: 'unchanged', changes })
      continue
    }
    const message = renderCommitMessage(entry.git?.commitMessage ?? '', date, dir)
    const sha = await gitStep(worktree.commit(message), `Committing ${dir}`)
    tools.logger.info(
      `'${entry.name}': committed ${sha.slice(0, 12)} "${message}" (${describeCounts(countChanges(changes))}):\n${listChanges(changes).join('\n')}`,
    )
    results.push({ entry, target, status: 'pushed', changes, sha })
  }
  return results
}

async function reapply(
  target: GitTarget,
  worktree: GitWorktree,
  options: PublishOptions,
  tools: PublishTools,
): Promise<void> {
  const tip = await gitStep(worktree.syncTo(target.branch), `Fetching ${describeTarget(target)}`)
  tools.logger.info(
    `Reset onto the branch's new tip ${tip.slice(0, 12)}; re-applying the snapshot.`,
  )
  for (const entry of target.entries) {
    // The new tip is someone else's commit: it may have put a symbolic link on the way.
    const check = await checkOutputDir(entry, cloneRoot(target), tools.files)
    if (isProblem(check))
      throw new ActionError(
        `${check.problem} It came with the branch's new tip, pushed meanwhile by someone else. Nothing more was pushed.`,
      )
    const saved = options.saved.get(entry)
    if (saved === undefined) throw new Error(`no saved export for entry '${entry.name}'`)
    await tools.files.replaceDir(saved, join(worktree.dir, entry.snapshooter.outputDir))
  }
}

/** Dry run: what each entry would commit, and nothing more. */
export async function previewTarget(
  target: GitTarget,
  worktree: GitWorktree,
  tools: Pick<SnapshotPorts, 'logger'>,
): Promise<EntryResult[]> {
  const results: EntryResult[] = []
  for (const entry of target.entries) {
    const dir = entry.snapshooter.outputDir
    const changes = await stageEntry(target, worktree, entry)
    const status = changes.length === 0 ? 'unchanged' : 'would-commit'
    const detail =
      changes.length === 0 ? 'no change' : `would commit ${describeCounts(countChanges(changes))}`
    tools.logger.info(`'${entry.name}' (${dir} in ${describeTarget(target)}): ${detail}`)
    if (changes.length > 0) tools.logger.info(listChanges(changes).join('\n'))
    results.push({ entry, target, status, changes })
  }
  return results
}

/** Stages the entry's outputDir (added, modified and deleted files) and lists what changed. */
function stageEntry(
  target: GitTarget,
  worktree: GitWorktree,
  entry: SnapshotEntry,
): ReturnType<GitWorktree['stage']> {
  const dir = entry.snapshooter.outputDir
  return gitStep(worktree.stage(dir), `Staging ${dir} in ${describeTarget(target)}`)
}

async function gitStep<T>(promise: Promise<T>, doing: string): Promise<T> {
  try {
    return await promise
  } catch (error) {
    throw explainGitFailure(error, doing)
  }
}

function gaveUp(where: string, attempts: number, message: string): ActionError {
  return new ActionError(
    `Pushing to ${where} was rejected ${attempts} time(s): other pushes kept landing first. Nothing was force-pushed. Run the snapshot again, or raise 'push-attempts'.\n${indent(message)}`,
  )
}
