import { join } from 'node:path'
import { targetKey, type SnapshotEntry } from './config.js'
import type { RemoteRepo } from './ports.js'

/** One clone: every entry that writes to the same repository and branch shares it. */
export interface GitTarget {
  repo: RemoteRepo
  branch: string
  dir: string
  entries: SnapshotEntry[]
}

export interface SnapshotPlan {
  targets: GitTarget[]
  /** Entries without `git`: written into the working directory, no git work. */
  local: SnapshotEntry[]
}

export function planSnapshot(entries: readonly SnapshotEntry[], cloneRoot: string): SnapshotPlan {
  const targets = new Map<string, GitTarget>()
  const local: SnapshotEntry[] = []
  for (const entry of entries) {
    if (!entry.git) {
      local.push(entry)
      continue
    }
    const key = targetKey(entry)
    let target = targets.get(key)
    if (!target) {
      // The first entry's credentials serve the clone; the same URL means the same repository.
      target = {
        repo: entry.git.repo,
        branch: entry.git.branch,
        dir: join(cloneRoot, `clone-${targets.size + 1}`),
        entries: [],
      }
      targets.set(key, target)
    }
    target.entries.push(entry)
  }
  return { targets: [...targets.values()], local }
}

/** `http://***@host/org/repo.git (branch 'main')` */
export function describeTarget(target: Pick<GitTarget, 'repo' | 'branch'>): string {
  return `${target.repo.display} (branch '${target.branch}')`
}
