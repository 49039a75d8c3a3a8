import { isValidTag, MAX_TAG_LENGTH } from '../../shared/image-ref.js'

/**
 * Image tags from a template: `{branch}-{short-sha}` and the like. A raw branch name such as
 * `feature/x` breaks the tag grammar (the most common `invalid reference format` in CI), so
 * branch values are made valid first.
 */
export const TAG_EXPECTED = `letters, digits, '_', '.' and '-', not starting with '.' or '-', at most ${MAX_TAG_LENGTH} characters`

export const PLACEHOLDERS = ['branch', 'sha', 'short-sha', 'run-id', 'date'] as const
export type Placeholder = (typeof PLACEHOLDERS)[number]
const SHORT_SHA_LENGTH = 7

/** What the placeholders stand for in this run; unknown facts stay undefined. */
export interface TagFacts {
  branch?: string
  sha?: string
  runId?: string
  date: Date
}

/** `Feature/JIRA-1 fix` → `feature-jira-1-fix`: lowercase, invalid runs become one `-`. */
export function sanitiseBranch(branch: string): string {
  const cleaned = branch
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(0, MAX_TAG_LENGTH)
    .replace(/[.-]+$/, '')
  // A branch made only of invalid characters still needs a non-empty, valid tag part.
  return cleaned === '' ? 'branch' : cleaned
}

const TOKEN_RE = /\{([^{}]*)\}/g

/** Why a template can never give a valid tag, or undefined when it can. */
export function templateProblem(template: string): string | undefined {
  if (template.trim() === '')
    return 'is empty; expected a tag template such as {branch}-{short-sha}'
  for (const match of template.matchAll(TOKEN_RE)) {
    const name = match[1] ?? ''
    if (!(PLACEHOLDERS as readonly string[]).includes(name)) {
      return `has an unknown placeholder '{${name}}'; expected ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`
    }
  }
  const sample = fill(template, {
    branch: 'b',
    sha: 'a'.repeat(40),
    'short-sha': 'a'.repeat(SHORT_SHA_LENGTH),
    'run-id': '1',
    date: '20260101',
  })
  if (/[{}]/.test(sample)) return "has an unmatched '{' or '}'"
  if (!isValidTag(sample))
    return `does not give a valid tag (for example '${sample}'); expected ${TAG_EXPECTED}`
  return undefined
}

export function placeholdersIn(template: string): Placeholder[] {
  return [...template.matchAll(TOKEN_RE)].map((match) => match[1] as Placeholder)
}

export type RenderedTag = { tag: string } | { missing: Placeholder } | { invalid: string }

/**
 * Fills a template checked by templateProblem. A long branch is shortened so that the whole
 * tag fits in 128 characters: the commit part is what keeps tags apart, so it is kept whole.
 */
export function renderTag(template: string, facts: TagFacts): RenderedTag {
  const values = placeholderValues(facts)
  const used = placeholdersIn(template)
  const missing = used.find((name) => values[name] === undefined)
  if (missing) return { missing }
  const branchUses = used.filter((name) => name === 'branch').length
  if (branchUses > 0) {
    const others = fill(template, { ...values, branch: '' }).length
    const room = Math.floor((MAX_TAG_LENGTH - others) / branchUses)
    const branch = (values.branch ?? '').slice(0, Math.max(room, 1)).replace(/[.-]+$/, '')
    values.branch = branch === '' ? 'b' : branch
  }
  const tag = fill(template, values)
  return isValidTag(tag) ? { tag } : { invalid: tag }
}

function placeholderValues(facts: TagFacts): Partial<Record<Placeholder, string>> {
  const sha = facts.sha?.toLowerCase()
  return {
    branch: facts.branch === undefined ? undefined : sanitiseBranch(facts.branch),
    sha,
    'short-sha': sha?.slice(0, SHORT_SHA_LENGTH),
    'run-id': facts.runId,
    date: facts.date.toISOString().slice(0, 10).replace(/-/g, ''),
  }
}

function fill(template: string, values: Partial<Record<Placeholder, string>>): string {
  return template.replace(TOKEN_RE, (token, name: string) => values[name as Placeholder] ?? token)
}

/** What each placeholder needs, for the message when a run lacks it. */
export const PLACEHOLDER_SOURCE: Record<Placeholder, string> = {
  branch: 'the branch is not known (the run is not on a branch)',
  sha: 'the commit is not known',
  'short-sha': 'the commit is not known',
  'run-id': 'there is no run or pipeline id (it exists only in CI)',
  date: 'the date is always known',
}
