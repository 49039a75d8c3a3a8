import type { Summary } from '../shared/ports.js'
import { countChanges, describeCounts } from './changes.js'
import type { SnapshotEntry } from './config.js'
import type { FileChange } from './ports.js'
import { describeTarget, type GitTarget } from './plan.js'

export type EntryStatus = 'pushed' | 'unchanged' | 'would-commit' | 'written' | 'exported'

export interface EntryResult {
  entry: SnapshotEntry
  target?: GitTarget
  status: EntryStatus
  changes: FileChange[]
  sha?: string
  /** Push attempts the entry's clone needed (1 when nobody pushed meanwhile). */
  attempts?: number
}

/** The `commits` output: one object per pushed commit, the repository shown without its token. */
export function commitsOutput(results: readonly EntryResult[]): string {
  const commits = results
    .filter((result) => result.status === 'pushed' && result.target)
    .map((result) => ({
      name: result.entry.name,
      repo: result.target?.repo.display,
      branch: result.target?.branch,
      sha: result.sha,
      ...countChanges(result.changes),
    }))
  return JSON.stringify(commits)
}

export function statusText(result: EntryResult): string {
  const dir = result.entry.snapshooter.outputDir
  const where = result.target ? describeTarget(result.target) : 'the working directory'
  const counts = describeCounts(countChanges(result.changes))
  switch (result.status) {
    case 'pushed': {
      const retried =
        result.attempts && result.attempts > 1 ? `, push attempt ${result.attempts}` : ''
      return `pushed ${result.sha?.slice(0, 12) ?? ''} to ${where}: ${dir}, ${counts}${retried}`
    }
    case 'unchanged':
      return `no change in ${dir} on ${where}: nothing committed`
    case 'would-commit':
      return `dry run: would commit ${dir} to ${where}: ${counts}`
    case 'written':
      return `written to ${dir} in ${where} (no git entry)`
    case 'exported':
      return `dry run: exported into a scratch folder; ${dir} in ${where} was left as it is`
  }
}

export function snapshotSummary(results: readonly EntryResult[], dryRun: boolean): Summary {
  const pushed = results.filter((r) => r.status === 'pushed').length
  const notes: string[] = []
  if (dryRun)
    notes.push(
      'Dry run: the snapshot was exported into temporary clones; nothing was committed or pushed.',
    )
  if (!dryRun && pushed === 0 && results.some((r) => r.target))
    notes.push('The platform holds the same code as data as the branches: nothing to commit.')
  return {
    heading: dryRun
      ? 'Olympe snapshot: dry run (nothing pushed)'
      : `Olympe snapshot: ${pushed} commit(s) pushed`,
    rows: results.map((result) => [result.entry.name, statusText(result)]),
    notes,
  }
}
