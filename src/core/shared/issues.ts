import type * as v from 'valibot'

/** How to word the problems of one kind of document (every key is optional). */
export interface IssueWording {
  /** The keys allowed in each object, named by the key that holds it ('' for a top-level item). */
  keys?: Readonly<Record<string, readonly string[]>>
  /** What to say when a required key is missing, by key. */
  missing?: Readonly<Record<string, string>>
}

/** `[0].snapshooter.rootTags[1]`, `backends.images[0]`: how a user finds the place in a file. */
export function jsonPath(keys: readonly unknown[]): string {
  let path = ''
  for (const key of keys) path += typeof key === 'number' ? `[${key}]` : `.${String(key)}`
  return path === '' ? '(the document)' : path.replace(/^\./, '')
}

/**
 * One line per JSON path (the first problem found there), `at <path>: <what is wrong>`, the one
 * style of every validation message about a file or a structured input.
 */
export function describeIssues(
  issues: readonly v.BaseIssue<unknown>[],
  wording: IssueWording = {},
): string[] {
  const byPath = new Map<string, string>()
  for (const issue of issues) {
    const keys = (issue.path ?? []).map((item) => item.key)
    const path = jsonPath(keys)
    if (!byPath.has(path)) byPath.set(path, `at ${path}: ${describeIssue(issue, keys, wording)}`)
  }
  return [...byPath.values()]
}

/**
 * valibot quotes the value it received whole (`"<the string>"`): a file's value can be long, or
 * hold what should not be printed, so only its start is shown.
 */
export function shortReceived(received: string, max = 40): string {
  return received.length > max ? `${received.slice(0, max)}…` : received
}

function describeIssue(
  issue: v.BaseIssue<unknown>,
  keys: readonly unknown[],
  wording: IssueWording,
): string {
  if (issue.type !== 'strict_object' && issue.type !== 'object') {
    const short = shortReceived(issue.received)
    return short === issue.received
      ? issue.message
      : issue.message.split(issue.received).join(short)
  }
  const key = keys.at(-1)
  if (issue.expected === 'never') {
    const allowed = wording.keys?.[holder(keys)]
    const expected = allowed
      ? `: expected only ${allowed.map((k) => JSON.stringify(k)).join(', ')}`
      : ''
    return `unknown key ${JSON.stringify(key)}${expected}`
  }
  if (issue.received === 'undefined' && typeof key === 'string') {
    return `is missing: ${wording.missing?.[key] ?? 'this key is required'}`
  }
  return `expected an object, got ${shortReceived(issue.received)}`
}

/** The key of the object that holds the last key: `rules` for `rules[0].x`, '' at the top. */
function holder(keys: readonly unknown[]): string {
  const parent = keys.slice(0, -1).findLast((key) => typeof key === 'string')
  return typeof parent === 'string' ? parent : ''
}
