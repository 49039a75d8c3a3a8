import * as v from 'valibot'
import { quote } from '../shared/errors.js'
import { isProblem } from '../shared/problem.js'
import { hasControlCharacter, OUTPUT_DIR_MAX, outputDirProblem } from './paths.js'
import { parseRepoUrl, REPO_EXPECTED, REPO_URL_MAX } from './repo-url.js'

/** Element ids are 20 hex characters (`01850a59bb68c324907a`); Olympe's documentation calls them "20 digits", but they are hex. */
const ELEMENT_ID = /^[0-9a-fA-F]{20}$/
const ID_EXAMPLE = "'01850a59bb68c324907a'"
// No flags: JSON Schema patterns cannot carry them. The user part runs to the last '@' (see
// splitCredentials), so a token may hold '@'.
const REPO_SHAPE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S*@[^\s@/]+\/\S+$/
// Control characters are the point here: git refuses them in branch names.
const BRANCH_NAME =
  // eslint-disable-next-line no-control-regex
  /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\.lock$)(?!.*[/.]$)[^\s\x00-\x1f\x7f~^:?*[\\]+$/

/**
 * Names and paths are untrusted text (a configuration may come from anyone who can open a pull
 * request): each has a length far above real use, checked first so that no later check works on
 * a huge value, and the pipes stop at their first problem (abortPipeEarly in config.ts).
 */
export const LIMITS = {
  name: 100,
  branch: 255,
  commitMessage: 2000,
  rootTags: 100,
  exclude: 1000,
} as const

type LengthCheck = v.MaxLengthAction<
  string,
  number,
  v.ErrorMessage<v.MaxLengthIssue<string, number>>
>

// maxLength, not a check: the JSON Schema for editors then carries the limit too.
const notLongerThan = (max: number, what: string): LengthCheck =>
  v.maxLength(
    max,
    (issue) =>
      `is ${issue.input.length} characters long (${shown(issue.input, 40)}): expected ${what} of at most ${max} characters`,
  )

/** A value for a message, with control characters escaped (`\n`, `\u001b`) so that none acts. */
export function shown(text: string, max = 200): string {
  const cut = text.length > max ? text.slice(0, max) : text
  const safe = hasControlCharacter(cut) ? JSON.stringify(cut).slice(1, -1) : cut
  return `'${safe}${cut === text ? '' : '…'}'`
}

const stringOf = (what: string): v.StringSchema<v.ErrorMessage<v.StringIssue>> =>
  v.string((issue: v.StringIssue) => `expected ${what}, got ${typeOf(issue.input)}`)

const elementId = v.pipe(
  stringOf('an element id (a string)'),
  v.regex(
    ELEMENT_ID,
    (issue) =>
      `expected an element id of 20 hexadecimal characters (like ${ID_EXAMPLE}), got ${shown(issue.input)}`,
  ),
)

const elementIds = (what: string, min: number, max: number): v.GenericSchema<unknown, string[]> =>
  v.pipe(
    v.array(elementId, (issue) => `expected a list of element ids, got ${typeOf(issue.input)}`),
    v.minLength(min, `expected at least one element id (${what})`),
    v.maxLength(
      max,
      (issue) => `holds ${issue.input.length} element ids: expected at most ${max} (${what})`,
    ),
  )

export const SnapshooterSchema = v.pipe(
  v.strictObject({
    name: v.pipe(
      stringOf('a name (a string)'),
      v.nonEmpty('is empty: give the snapshot a name'),
      notLongerThan(LIMITS.name, 'a name'),
      v.check(
        (name) => !hasControlCharacter(name),
        (issue) =>
          `${shown(issue.input)} holds a control character (a line break, a tab, an escape…): expected a plain name`,
      ),
      v.regex(
        /^\S+$/,
        (issue) =>
          `${quote(issue.input)} holds a space: the toolkit splits its command line on spaces, so the export would fail. Use a name such as ${quote(issue.input.trim().replace(/\s+/g, '-'))}`,
      ),
      v.description(
        'Label of the snapshot, shown in logs and the job summary (no spaces: the toolkit splits its command line on them).',
      ),
    ),
    rootTags: v.pipe(
      elementIds('the roots to snapshot', 1, LIMITS.rootTags),
      v.description(
        'Element ids (20 hex characters) of the roots to snapshot; `10000000000000000000` (Home) covers every project.',
      ),
    ),
    exclude: v.optional(
      v.pipe(
        elementIds('elements left out', 0, LIMITS.exclude),
        v.description('Element ids of projects or folders left out of the snapshot.'),
      ),
    ),
    outputDir: v.pipe(
      stringOf('a folder path (a string)'),
      notLongerThan(OUTPUT_DIR_MAX, 'a folder path'),
      v.check(
        (dir) => outputDirProblem(dir) === undefined,
        (issue) => outputDirMessage(issue.input),
      ),
      v.description(
        'Folder the patch files are written to, relative to the cloned repository (or, without `git`, to the working directory). It is emptied first. No spaces, no `..` out of the repository, no `.git`, no symbolic link on the way.',
      ),
    ),
  }),
  v.description('What to snapshot and where to write it.'),
)

export const GitSchema = v.pipe(
  v.strictObject({
    repo: v.pipe(
      stringOf('a repository URL (a string)'),
      v.maxLength(
        REPO_URL_MAX,
        (issue) =>
          `is ${issue.input.length} characters long: expected a repository URL of at most ${REPO_URL_MAX} characters`,
      ),
      // The parse first: its messages are the precise ones. The shape is for editors (JSON
      // Schema), and catches what a URL parser accepts but git would not (a space).
      v.check(
        (raw) => !isProblem(parseRepoUrl(raw)),
        (issue) => repoMessage(issue.input),
      ),
      v.regex(REPO_SHAPE, REPO_EXPECTED),
      v.description(
        'Repository to clone and push: `https://<token>@<host>/<path>.git` (or `https://<user>:<token>@…`). `${NAME}` is replaced by the environment variable NAME, so the token can stay in a CI secret.',
      ),
    ),
    branch: v.pipe(
      stringOf('a branch name (a string)'),
      v.nonEmpty('is empty: name an existing branch'),
      notLongerThan(LIMITS.branch, 'a branch name'),
      v.regex(
        BRANCH_NAME,
        (issue) =>
          `${shown(issue.input)} is not a valid branch name (no spaces, control characters, '..', '~', '^', ':', '?', '*', '[', '\\' or leading '-')`,
      ),
      v.check(
        (branch) => !branch.startsWith('refs/'),
        (issue) => `${quote(issue.input)}: give the branch name alone, without 'refs/heads/'`,
      ),
      v.description('Existing branch to commit to (it is never created).'),
    ),
    commitMessage: v.pipe(
      stringOf('a commit message (a string)'),
      v.nonEmpty('is empty: give a commit message, e.g. "Snapshot at {date} in {folder}"'),
      notLongerThan(LIMITS.commitMessage, 'a commit message'),
      v.check(
        (message) => !hasControlCharacter(message.replace(/[\n\t]/g, ' ')),
        'holds a control character other than a line break or a tab: expected plain text',
      ),
      v.description(
        'Commit message; every `{date}` becomes `yyyy.MM.dd HH:mm:ss` and every `{folder}` the outputDir.',
      ),
    ),
  }),
  v.description('Clone, commit and push the snapshot. Without it, files are written in place.'),
)

export const EntrySchema = v.strictObject({
  snapshooter: SnapshooterSchema,
  git: v.optional(GitSchema),
})

export const SnapshotConfigSchema = v.pipe(
  v.array(
    EntrySchema,
    (issue) => `expected a JSON array of snapshot entries, got ${typeOf(issue.input)}`,
  ),
  v.title('Olympe snapshot configuration'),
  v.description(
    'Entries of the snapshot action (olympe-deploy-actions) and the Olympe toolkit `snapshot` command.',
  ),
)

export type SnapshotEntryConfig = v.InferOutput<typeof EntrySchema>

function outputDirMessage(input: string): string {
  return `${shown(input)} ${outputDirProblem(input) ?? 'is not valid'}`
}

function repoMessage(input: string): string {
  const parsed = parseRepoUrl(input)
  return isProblem(parsed) ? parsed.problem : REPO_EXPECTED
}

export function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string') return `the string ${shown(value)}`
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`
  return typeof value
}
