import { ActionError } from '../shared/errors.js'
import { untrustedText } from '../shared/untrusted-text.js'
import { GitFailure, type GitFailureKind } from './ports.js'

const PATTERNS: Array<[GitFailureKind, RegExp]> = [
  [
    'auth',
    /Authentication failed|could not read (Username|Password)|HTTP (401|403)|returned error: (401|403)|Permission to .* denied|Invalid username or password/i,
  ],
  [
    'not-found',
    /repository '.*' not found|not found: did you run git update-server-info|returned error: 404|HTTP 404/i,
  ],
  [
    'rejected',
    /\[rejected\].*\((fetch first|non-fast-forward)\)|\(failed to update ref\)|cannot lock ref/i,
  ],
  [
    'identity',
    /Author identity unknown|Please tell me who you are|empty ident name|unable to auto-detect email/i,
  ],
]

/** Sorts a git error message into the few cases the snapshot reacts to differently. */
export function classifyGitMessage(message: string): GitFailureKind {
  for (const [kind, pattern] of PATTERNS) if (pattern.test(message)) return kind
  return 'other'
}

/** A line of git's message may be long (URLs, paths), but not a flood. */
const GIT_LINE_CHARS = 1000

/**
 * Git's stderr as a user should see it: credentials taken out of any URL (git prints the user
 * part of a URL it was given, token included, in "could not read Password for '…'"), hints and
 * progress dropped, cut to a few lines. Its `remote:` lines are the server's text: in each line,
 * carriage returns and escape sequences are shown escaped (see untrustedText).
 */
export function cleanGitMessage(message: string, maxLines = 8): string {
  const lines = stripUrlCredentials(message)
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '' && !line.startsWith('hint:'))
    .map((line) => untrustedText(line, GIT_LINE_CHARS))
  const kept = lines.slice(0, maxLines)
  if (lines.length > maxLines) kept.push('…')
  return kept.join('\n') || 'git failed without a message'
}

/**
 * The user part runs to the last '@' before the path, as in parseRepoUrl (a token may hold '@').
 * A scheme starts only where a word does: trying every letter of a long word would be quadratic.
 */
export function stripUrlCredentials(text: string): string {
  return text.replace(/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/'"]*@/gi, '$1***@')
}

const ADVICE: Record<GitFailureKind, string> = {
  auth: "the server refused the credentials. Check the token in the entry's git.repo: it must be valid, not expired, and allowed to read and push the repository",
  'not-found':
    "the repository does not exist, or the token cannot see it. Check the entry's git.repo",
  rejected: 'the push was rejected',
  identity:
    "git has no author identity. Set 'git-user-name' and 'git-user-email' (they default to the CI's bot identity on GitHub and to the pipeline's user on GitLab)",
  other: 'git failed',
}

/** A GitFailure as the step's error: what was being done, where, why, and what to do. */
export function explainGitFailure(error: unknown, doing: string): Error {
  if (!(error instanceof GitFailure))
    return error instanceof Error ? error : new Error(String(error))
  return new ActionError(`${doing} failed: ${ADVICE[error.kind]}.\n${indent(error.message)}`)
}

export function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n')
}
