import { join } from 'node:path'
import { ActionError, errorMessage } from '../shared/errors.js'
import { cloneRoot, prepareOutputDirs, stopOnProblems, type OutputRoot } from './boundary.js'
import { toolkitArgv } from './command.js'
import { workingRoot, type CheckedSnapshot } from './check.js'
import type { SnapshotEntry } from './config.js'
import { explainGitFailure } from './git-errors.js'
import type { SnapshotInputs } from './inputs.js'
import type { GitIdentity, GitWorktree, SnapshotPorts } from './ports.js'
import { describeTarget, planSnapshot, type GitTarget, type SnapshotPlan } from './plan.js'
import { previewTarget, publishTarget } from './publish.js'
import { checkTempFolder } from './settings.js'
import { commitsOutput, snapshotSummary, type EntryResult } from './summary.js'
import { exportEntry, toolkitEnv, type ToolkitSettings } from './toolkit.js'
import type { CiContext } from '../shared/context.js'

/** What the core needs to know about the CI run. */
export type SnapshotContext = Pick<CiContext, 'workspace' | 'actor'> & {
  /** The step runs in debug mode (a debug re-run on GitHub, CI_DEBUG_TRACE on GitLab). */
  debug?: boolean
}

/** The run, from what the check phase found (checkSnapshot): clone, export, commit and push. */
export async function runSnapshot(
  checked: CheckedSnapshot,
  context: SnapshotContext,
  ports: SnapshotPorts,
): Promise<void> {
  const { logger, reporter } = ports
  const { inputs, projectDir, entries } = checked
  const temp = await ports.files.makeTempDir('olympe-snapshot-')
  try {
    // The clones, and a dry run's scratch folder, are the toolkit's working folders there.
    if (inputs.dryRun || entries.some((entry) => entry.git)) checkTempFolder(temp)
    const plan = planSnapshot(entries, join(temp, 'clones'))
    const identity = gitIdentity(inputs, context)
    const clones = await logger.group('Git repositories', () => cloneAll(plan, identity, ports))
    const settings: ToolkitSettings = {
      argv: toolkitArgv(inputs.toolkitCommand, projectDir),
      env: toolkitEnv(inputs, context.debug === true),
      tempDir: temp,
      timeoutMinutes: inputs.toolkitTimeoutMinutes,
    }
    // A dry run must leave the working directory as it is: entries without git go to scratch.
    const local = inputs.dryRun
      ? await scratchRoot(join(temp, 'dry-run'), ports)
      : workingRoot(projectDir)
    const placed = entries.map((entry) => ({
      entry,
      root: rootOf(entry, plan, local),
      check: checked.local.get(entry),
    }))
    await logger.group('Output folders', () => prepareOutputDirs(placed, ports))
    const saved = await exportAll(plan, entries, local.dir, settings, ports, temp)
    const results: EntryResult[] = plan.local.map((entry) => ({
      entry,
      status: inputs.dryRun ? 'exported' : 'written',
      changes: [],
    }))
    try {
      for (const clone of clones) results.push(...(await commitClone(clone, inputs, saved, ports)))
    } catch (error) {
      throw withPushedSoFar(error, results)
    } finally {
      report(results, entries, inputs.dryRun, ports)
    }
    await reporter.summary(snapshotSummary(ordered(results, entries), inputs.dryRun))
  } finally {
    await ports.files.remove(temp)
  }
}

/** The dry run's scratch folder, made, where its entries without git are written. */
async function scratchRoot(dir: string, ports: SnapshotPorts): Promise<OutputRoot> {
  await ports.files.makeDir(dir)
  return { dir, label: "the dry run's scratch folder" }
}

/** Every branch is checked before any clone, and every clone made before the toolkit runs. */
async function cloneAll(
  plan: SnapshotPlan,
  identity: GitIdentity,
  ports: SnapshotPorts,
): Promise<Clone[]> {
  if (plan.targets.length === 0) {
    ports.logger.info('No entry has a git object: the toolkit writes into the working directory.')
    return []
  }
  const problems: string[] = []
  for (const target of plan.targets) {
    const problem = await checkBranch(target, ports)
    if (problem) problems.push(problem)
    else ports.logger.info(`Branch '${target.branch}' exists in ${target.repo.display}.`)
  }
  stopOnProblems(problems)
  const clones: Clone[] = []
  for (const target of plan.targets) {
    try {
      const worktree = await ports.git.clone(target.repo, target.branch, target.dir, identity)
      clones.push({ target, worktree })
    } catch (error) {
      throw explainGitFailure(error, `Cloning ${describeTarget(target)}`)
    }
    ports.logger.info(`Cloned ${describeTarget(target)} (shallow, single branch).`)
  }
  return clones
}

interface Clone {
  target: GitTarget
  worktree: GitWorktree
}

/** Commits and pushes one clone's entries, or on a dry run only says what would be committed. */
function commitClone(
  { target, worktree }: Clone,
  inputs: SnapshotInputs,
  saved: ReadonlyMap<SnapshotEntry, string>,
  ports: SnapshotPorts,
): Promise<EntryResult[]> {
  const title = `${inputs.dryRun ? 'Dry run' : 'Commit and push'}: ${describeTarget(target)}`
  return ports.logger.group(title, () => {
    if (inputs.dryRun) return previewTarget(target, worktree, ports)
    const options = { attempts: inputs.pushAttempts, date: ports.clock.now(), saved }
    return publishTarget(target, worktree, options, ports)
  })
}

async function checkBranch(target: GitTarget, ports: SnapshotPorts): Promise<string | undefined> {
  const names = target.entries.map((entry) => `'${entry.name}'`).join(', ')
  let tip: string | undefined
  try {
    tip = await ports.git.branchTip(target.repo, target.branch)
  } catch (error) {
    return explainGitFailure(error, `Reading ${target.repo.display} (entry ${names})`).message
  }
  if (tip !== undefined) return undefined
  return `Branch '${target.branch}' does not exist in ${target.repo.display} (entry ${names}). The snapshot never creates branches: create it first (for example: git push origin HEAD:refs/heads/${target.branch}), or fix git.branch.`
}

function rootOf(entry: SnapshotEntry, plan: SnapshotPlan, local: OutputRoot): OutputRoot {
  const target = plan.targets.find((t) => t.entries.includes(entry))
  return target ? cloneRoot(target) : local
}

/** Runs the toolkit for every entry before anything is committed, keeping a copy of each export. */
async function exportAll(
  plan: SnapshotPlan,
  entries: readonly SnapshotEntry[],
  localDir: string,
  settings: ToolkitSettings,
  ports: SnapshotPorts,
  temp: string,
): Promise<Map<SnapshotEntry, string>> {
  const saved = new Map<SnapshotEntry, string>()
  for (const [index, entry] of entries.entries()) {
    const target = plan.targets.find((t) => t.entries.includes(entry))
    const cwd = target?.dir ?? localDir
    await ports.logger.group(`Export '${entry.name}'`, async () => {
      await exportEntry(entry, index, cwd, settings, ports)
      if (!target) return
      const copy = join(temp, 'exports', String(index + 1))
      await ports.files.replaceDir(join(cwd, entry.snapshooter.outputDir), copy)
      saved.set(entry, copy)
    })
  }
  return saved
}

/** A later clone failing does not undo earlier pushes: say which landed. */
function withPushedSoFar(error: unknown, results: readonly EntryResult[]): unknown {
  const pushed = results.filter((r) => r.status === 'pushed')
  if (pushed.length === 0 || !(error instanceof ActionError)) return error
  const list = pushed.map((r) => `'${r.entry.name}' (${r.sha?.slice(0, 12) ?? ''})`).join(', ')
  return new ActionError(`${errorMessage(error)}\nPushed before this failure: ${list}.`)
}

function gitIdentity(inputs: SnapshotInputs, context: SnapshotContext): GitIdentity {
  return {
    name: inputs.gitUserName ?? context.actor?.name,
    email: inputs.gitUserEmail ?? context.actor?.email,
  }
}

function report(
  results: readonly EntryResult[],
  entries: readonly SnapshotEntry[],
  dryRun: boolean,
  ports: SnapshotPorts,
): void {
  const pushed = results.some((r) => r.status === 'pushed')
  ports.reporter.setOutput('changed', String(pushed && !dryRun))
  ports.reporter.setOutput('commits', dryRun ? '[]' : commitsOutput(ordered(results, entries)))
}

function ordered(
  results: readonly EntryResult[],
  entries: readonly SnapshotEntry[],
): EntryResult[] {
  return [...results].sort((a, b) => entries.indexOf(a.entry) - entries.indexOf(b.entry))
}
