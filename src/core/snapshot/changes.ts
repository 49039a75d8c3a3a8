import type { ChangeKind, FileChange } from './ports.js'

const KINDS: Record<string, ChangeKind> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted' }

/**
 * Parses `git diff --cached --name-status --no-renames -z`: status and path alternate, NUL
 * separated. Without rename detection a moved file is one deletion and one addition, which is
 * what the snapshot did (the toolkit rewrites the folder).
 */
export function parseNameStatus(output: string): FileChange[] {
  const fields = output.split('\0')
  const changes: FileChange[] = []
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const status = fields[index] ?? ''
    const path = fields[index + 1] ?? ''
    if (status === '' || path === '') continue
    const kind = KINDS[status.charAt(0)]
    if (!kind) throw new Error(`unexpected git status '${status}' for '${path}'`)
    changes.push({ kind, path })
  }
  return changes
}

export interface ChangeCounts {
  files: number
  added: number
  modified: number
  deleted: number
}

export function countChanges(changes: readonly FileChange[]): ChangeCounts {
  const count = (kind: ChangeKind): number => changes.filter((c) => c.kind === kind).length
  return {
    files: changes.length,
    added: count('added'),
    modified: count('modified'),
    deleted: count('deleted'),
  }
}

/** `3 added, 1 modified, 2 deleted` */
export function describeCounts(counts: ChangeCounts): string {
  return `${counts.added} added, ${counts.modified} modified, ${counts.deleted} deleted`
}

/** The file list for the log, cut so that a first snapshot of thousands of files stays readable. */
export function listChanges(changes: readonly FileChange[], max = 50): string[] {
  const sign: Record<ChangeKind, string> = { added: '+', modified: '~', deleted: '-' }
  const lines = changes.slice(0, max).map((c) => `  ${sign[c.kind]} ${c.path}`)
  if (changes.length > max) lines.push(`  … and ${changes.length - max} more`)
  return lines
}
