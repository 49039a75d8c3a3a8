import type * as v from 'valibot'
import { REPO_EXPECTED } from './repo-url.js'

const KEYS: Record<string, readonly string[]> = {
  entry: ['snapshooter', 'git'],
  snapshooter: ['name', 'rootTags', 'exclude', 'outputDir'],
  git: ['repo', 'branch', 'commitMessage'],
}

const MISSING_HINTS: Record<string, string> = {
  snapshooter: 'every entry needs {"snapshooter": {"name", "rootTags", "outputDir"}}',
  name: 'give the snapshot a name',
  rootTags: 'list the element ids to snapshot, e.g. ["01850a59bb68c324907a"]',
  outputDir: 'name the folder to write to, e.g. "snapshot/my-project"',
  repo: REPO_EXPECTED,
  branch: 'name an existing branch (required when "git" is present)',
  commitMessage:
    'give a message such as "Snapshot at {date} in {folder}" (required when "git" is present)',
}

/** `[0].snapshooter.rootTags[1]`: how a user finds the place in their file. */
export function jsonPath(keys: readonly unknown[]): string {
  let path = ''
  for (const key of keys) path += typeof key === 'number' ? `[${key}]` : `.${String(key)}`
  return path === '' ? '(the document)' : path.replace(/^\./, '')
}

/**
 * One line per JSON path (the first problem found there), each naming the path and saying what
 * is expected. valibot's own wording is replaced where it would read as jargon.
 */
export function describeConfigIssues(issues: readonly v.BaseIssue<unknown>[]): string[] {
  const byPath = new Map<string, string>()
  for (const issue of issues) {
    const keys = (issue.path ?? []).map((item) => item.key)
    const path = jsonPath(keys)
    if (byPath.has(path)) continue
    byPath.set(path, `at ${path}: ${describeIssue(issue, keys)}`)
  }
  return [...byPath.values()]
}

function describeIssue(issue: v.BaseIssue<unknown>, keys: readonly unknown[]): string {
  if (issue.type !== 'strict_object' && issue.type !== 'object') return issue.message
  const key = keys.at(-1)
  if (issue.expected === 'never') {
    const allowed = KEYS[parentKind(keys)] ?? []
    return `unknown key ${JSON.stringify(key)}: expected only ${allowed.map((k) => JSON.stringify(k)).join(', ')}`
  }
  if (issue.received === 'undefined' && typeof key === 'string') {
    return `is missing: ${MISSING_HINTS[key] ?? 'this key is required'}`
  }
  return `expected an object, got ${issue.received}`
}

function parentKind(keys: readonly unknown[]): string {
  const parent = keys.at(-2)
  return typeof parent === 'string' ? parent : 'entry'
}
