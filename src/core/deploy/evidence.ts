import type { ServedFiles } from '../shared/image-labels.js'
import { VERSION_PATH } from './app-url.js'
import { listed, type FileAnswer, type VersionAnswer } from './served-files-reader.js'

/**
 * What makes `live` true: evidence that the app now serves what this pipeline built, rather than
 * what it served before the call. The version is evidence when it changed. When it did not (the
 * official template has no version-bump script), the files the frontend serves are: their
 * digests as built are the frontend image's served-files label, and the app's `main.js`, which
 * the template does not content-hash, changes with every build of new code. Where neither can
 * tell, the rollout is at best `unverified`.
 *
 * What the app served before the call is read again when it answered as a restarting app does
 * (a 5xx, a time-out, a page that is not JSON): an answer that stays so is unknown, and never
 * evidence of a change. A steady 404, or a refused connection, means that it served nothing.
 */

/** What this deployment's frontend serves, as far as the step knows it. */
export interface ThisBuild {
  version?: string
  /** The digests of the served-files label. */
  files?: ServedFiles
  /** Why the version is unknown, for messages. */
  versionUnknown?: string
  /** Why the files are unknown, for messages. */
  filesUnknown?: string
  /** The frontend image's labels were read (so a label missing is missing from the image). */
  labelsRead?: boolean
}

/** What a target served before the call. */
export interface Before {
  version: VersionAnswer
  /** The files of the served-files label, read whenever it is known. */
  files?: Record<string, FileAnswer>
}

/** What a labelled file was before the call: its digest, nothing there (a 404), or unknown. */
export type FileBefore =
  { kind: 'digest'; digest: string } | { kind: 'absent' } | { kind: 'unknown'; detail: string }

/** The files of the served-files label: every one is compared after the call. */
export interface LabelledFiles {
  paths: string[]
  /** What each served before the call: tells a stale file from one the platform rewrote. */
  before: Record<string, FileBefore>
}

export type NoEvidence =
  'unknown-version' | 'unknown-before' | 'same-version' | 'same-files' | 'files-unreadable'

export type Evidence =
  /**
   * The version changed (or nothing was served before): the expected version is this build, and,
   * with the served-files label, no labelled file still served as it was before the call.
   */
  | { kind: 'version'; files?: LabelledFiles }
  /** The version did not change (or is unknown), these files did: this build's files are this build. */
  | ({ kind: 'files'; differ: string[] } & LabelledFiles)
  | { kind: 'none'; why: NoEvidence; detail: string }

/** What was served before the call, once read: a version, nothing, or unknown (still restarting). */
export type BeforeState =
  | { kind: 'version'; version: string }
  | { kind: 'nothing'; detail: string }
  | { kind: 'unknown'; detail: string }

/** An answer another read may change: what a restarting app gives, not what a setting causes. */
export function worthAnotherRead(answer: VersionAnswer | FileAnswer): boolean {
  return answer.kind === 'none' && (answer.transient || answer.nothing === true)
}

export function beforeState(version: VersionAnswer): BeforeState {
  if (version.kind === 'version') return { kind: 'version', version: version.version }
  if (version.transient && !version.nothing) return { kind: 'unknown', detail: version.detail }
  return { kind: 'nothing', detail: version.detail }
}

function fileBefore(answer: FileAnswer | undefined): FileBefore {
  if (!answer) return { kind: 'unknown', detail: 'not read' }
  if (answer.kind === 'read') return { kind: 'digest', digest: answer.digest }
  return answer.nothing ? { kind: 'absent' } : { kind: 'unknown', detail: answer.detail }
}

/** What can show, for one target, that it serves this build; decided before the call. */
export function planEvidence(build: ThisBuild, before: Before): Evidence {
  const state = beforeState(before.version)
  const files = build.files && labelled(build.files, before)
  const changed =
    state.kind === 'nothing' || (state.kind === 'version' && state.version !== build.version)
  if (build.version !== undefined && changed)
    return files ? { kind: 'version', files } : { kind: 'version' }
  if (!build.files || !files) {
    if (build.version === undefined)
      return { kind: 'none', why: 'unknown-version', detail: build.versionUnknown ?? 'not known' }
    return state.kind === 'unknown'
      ? { kind: 'none', why: 'unknown-before', detail: state.detail }
      : { kind: 'none', why: 'same-version', detail: build.filesUnknown ?? 'not read' }
  }
  // Served nothing before the call: whatever comes is new, as with a version.
  if (state.kind === 'nothing') return { kind: 'files', ...files, differ: files.paths }
  const expected = build.files
  const differ = files.paths.filter((path) => {
    const was = files.before[path]
    return was?.kind === 'absent' || (was?.kind === 'digest' && was.digest !== expected[path])
  })
  if (differ.length > 0) return { kind: 'files', ...files, differ }
  const unknown = Object.values(files.before).filter(
    (was): was is Extract<FileBefore, { kind: 'unknown' }> => was.kind === 'unknown',
  )
  if (unknown.length > 0)
    return {
      kind: 'none',
      why: 'files-unreadable',
      detail: unknown.map((was) => was.detail).join('; '),
    }
  return { kind: 'none', why: 'same-files', detail: listed(files.paths) }
}

function labelled(expected: ServedFiles, before: Before): LabelledFiles {
  const paths = Object.keys(expected)
  const answers = before.files ?? {}
  return {
    paths,
    before: Object.fromEntries(paths.map((path) => [path, fileBefore(answers[path])])),
  }
}

/**
 * One poll's answer against this build: `build`, evidence that it serves; `same`, what this build
 * serves, as before the call (no evidence); `any`, a version where none is expected; `unsure`,
 * this build's version with a file that is neither this build's nor known to be the one before;
 * `other`, another build (`previous` when it is the one served before the call); `none`, no
 * version. `files` says, in words, what the files showed.
 */
export type Serving =
  | {
      kind: 'build' | 'same' | 'any' | 'unsure' | 'other'
      version: string
      files?: string
      previous?: boolean
    }
  | { kind: 'none'; detail: string; transient: boolean }

/** How one labelled file compares, after the call. */
type FileVerdict = 'built' | 'stale' | 'rewritten' | 'unsure' | 'absent' | 'restarting' | 'unread'

function judgeFile(
  answer: FileAnswer | undefined,
  built: string | undefined,
  was: FileBefore | undefined,
): FileVerdict {
  if (!answer) return 'unread'
  if (answer.kind === 'none') return answer.transient && !answer.nothing ? 'restarting' : 'absent'
  if (answer.digest === built) return 'built'
  if (was?.kind === 'digest') return was.digest === answer.digest ? 'stale' : 'rewritten'
  return was?.kind === 'absent' ? 'rewritten' : 'unsure'
}

/** One poll's answer, judged against this build: what the rollout judge counts. */
export function classify(
  build: ThisBuild,
  evidence: Evidence,
  version: VersionAnswer,
  before: string | undefined,
  files: Record<string, FileAnswer> = {},
): Serving {
  if (version.kind === 'none') return version
  const served = version.version
  const versionMatches = build.version === undefined || build.version === served
  const wasServed = served === before
  if (evidence.kind === 'none') {
    if (build.version === undefined) return { kind: 'any', version: served }
    return versionMatches
      ? { kind: 'same', version: served }
      : { kind: 'other', version: served, previous: wasServed }
  }
  if (!versionMatches) return { kind: 'other', version: served, previous: wasServed }
  const labels = evidence.kind === 'files' ? evidence : evidence.files
  if (!labels) return { kind: 'build', version: served }
  // With the version as evidence, version.json changed by definition: the others are judged.
  const judged =
    evidence.kind === 'files' ? labels.paths : labels.paths.filter((path) => path !== VERSION_PATH)
  const verdicts = new Map(
    judged.map((path) => [path, judgeFile(files[path], build.files?.[path], labels.before[path])]),
  )
  return filesServing(served, evidence, verdicts, files, wasServed)
}

function filesServing(
  served: string,
  evidence: Exclude<Evidence, { kind: 'none' }>,
  verdicts: Map<string, FileVerdict>,
  answers: Record<string, FileAnswer>,
  wasServed: boolean,
): Serving {
  const having = (...kinds: FileVerdict[]): string[] =>
    [...verdicts].filter(([, verdict]) => kinds.includes(verdict)).map(([path]) => path)
  const restarting = having('restarting', 'unread')[0]
  if (restarting !== undefined) {
    const answer = answers[restarting]
    const detail = answer?.kind === 'none' ? answer.detail : `${restarting} was not read`
    return { kind: 'none', detail, transient: true }
  }
  // With the version unchanged, the files alone decide: each must be as built. With the version
  // as evidence, a file still served as before the call is stale; one not served, the version's
  // to tell.
  const strict = evidence.kind === 'files'
  const stale = strict ? having('stale', 'rewritten', 'unsure') : having('stale')
  const absent = strict ? having('absent') : []
  if (stale.length > 0 || absent.length > 0) {
    const said = [
      ...(stale.length === 0
        ? []
        : [
            strict
              ? `another build's ${listed(stale)}`
              : `${listed(stale)} as served before the call`,
          ]),
      ...absent.map((path) => (answers[path] as { detail: string }).detail),
    ]
    const previous = wasServed && strict && sameAsBefore(evidence, answers)
    return { kind: 'other', version: served, files: listed(said), previous }
  }
  const unsure = having('unsure')
  if (unsure.length > 0)
    return {
      kind: 'unsure',
      version: served,
      files: `${listed(unsure)} neither as built nor as before the call (unread then)`,
    }
  const rewritten = having('rewritten')
  const asBuilt = having('built')
  const said = [
    ...(asBuilt.length > 0 ? [`${listed(asBuilt)} as built`] : []),
    ...(rewritten.length > 0
      ? [`${listed(rewritten)} rewritten (neither as built nor as before the call)`]
      : []),
  ]
  return said.length > 0
    ? { kind: 'build', version: served, files: said.join(', ') }
    : { kind: 'build', version: served }
}

/** Whether every labelled file is served as it was before the call: the build served then. */
function sameAsBefore(
  evidence: Extract<Evidence, { kind: 'files' }>,
  answers: Record<string, FileAnswer>,
): boolean {
  return evidence.paths.every((path) => {
    const was = evidence.before[path]
    const now = answers[path]
    if (was?.kind === 'digest') return now?.kind === 'read' && now.digest === was.digest
    return was?.kind === 'absent' && now?.kind === 'none' && now.nothing === true
  })
}
