import type { ImageConfigRead } from '../registry/manifest-check.js'
import type { Deadline } from '../shared/deadline.js'
import type { HttpClient } from '../shared/http.js'
import type { Clock, Summary } from '../shared/ports.js'
import { isProblem } from '../shared/problem.js'
import { VERSION_PATH, type AppTarget } from './app-url.js'
import type { DeployInputs } from './inputs.js'
import type { Payload } from './payload-schema.js'
import {
  isVersionText,
  OCI_LABELS,
  parseServedFilesLabel,
  SERVED_FILES_LABEL,
} from '../shared/image-labels.js'
import {
  beforeState,
  worthAnotherRead,
  type Before,
  type Evidence,
  type NoEvidence,
  type ThisBuild,
} from './evidence.js'
import { at, type PreviewState } from './rollout-judge.js'
import { evidenceAdvice, headline, verdictMessage } from './rollout-messages.js'
import {
  FILE_REQUEST_MS,
  listed,
  type FileAnswer,
  type ReadCounts,
  type ServedFilesReader,
} from './served-files-reader.js'
import { POLL_REQUEST_MS, readServed, readVersion, type WatchReport } from './watch.js'
/** The read before the call may take at most this share of what is left of the step. */
const BEFORE_SHARE = 0.25
/**
 * Before the call, an answer that a restarting app gives (a 5xx, a time-out, a page that is not
 * the JSON asked for), a 404 or a refused connection is read again BEFORE_RETRY_MS later, while
 * BEFORE_WINDOW_MS have not passed: a blip must not pass for what the app serves.
 */
export const BEFORE_RETRY_MS = 1000
export const BEFORE_WINDOW_MS = 4000

/** Whether the rollout is watched: the app to watch, or why not (and whether to warn). */
export type WatchPlan = { target: AppTarget } | { reason: string; warn: boolean }

export function planWatch(inputs: DeployInputs): WatchPlan {
  const target = inputs.appUrl
  if (inputs.dryRun)
    return { reason: 'a dry run sends nothing, so there is nothing to watch', warn: false }
  if (inputs.waitMinutes === 0) return { reason: "'wait-minutes' is 0", warn: false }
  if (!target)
    return {
      reason:
        "no 'app-url': the step ends when the webhook accepts the deployment, before the new version serves. Set 'app-url' to the app's address to watch the rollout, or 'wait-minutes: 0' to say that it is not to be watched",
      warn: true,
    }
  return { target }
}

/** This build's frontend as the step knows it, and where each fact came from (for the log). */
export interface BuildFacts extends ThisBuild {
  /** `input 'expected-version'`, or the label it came from. */
  versionFrom?: string
  /** The label the files' digests came from. */
  filesFrom?: string
}

/**
 * `expected-version`, else the frontend image's version label; and the digests of the files it
 * serves, from its served-files label. Each, or why it is unknown.
 */
export function buildFacts(
  given: string | undefined,
  payload: Payload,
  labels: ImageConfigRead | undefined,
): BuildFacts {
  const image = payload.frontend?.image
  const read: ImageConfigRead = !image
    ? { problem: 'the payload has no frontend image to read it from' }
    : !labels
      ? { problem: `the labels of '${image}' were not read` }
      : isProblem(labels)
        ? { problem: `the labels of '${image}' could not be read: ${labels.problem}` }
        : labels
  const version: Partial<BuildFacts> = given
    ? { version: given, versionFrom: "input 'expected-version'" }
    : isProblem(read)
      ? { versionUnknown: read.problem }
      : labelledVersion(image ?? '', read.labels)
  const files: Partial<BuildFacts> = isProblem(read)
    ? { filesUnknown: read.problem }
    : labelledFiles(image ?? '', read.labels)
  return { ...version, ...files, ...(isProblem(read) ? {} : { labelsRead: true }) }
}

function labelledVersion(image: string, labels: Record<string, string>): Partial<BuildFacts> {
  const value = labels[OCI_LABELS.version]?.trim() ?? ''
  if (isVersionText(value))
    return { version: value, versionFrom: `the ${OCI_LABELS.version} label of '${image}'` }
  return {
    versionUnknown:
      value === ''
        ? `'${image}' has no ${OCI_LABELS.version} label (build-images sets it from the project's version)`
        : `the ${OCI_LABELS.version} label of '${image}' is not a version`,
  }
}

function labelledFiles(image: string, labels: Record<string, string>): Partial<BuildFacts> {
  const served = labels[SERVED_FILES_LABEL]
  if (served === undefined)
    return {
      filesUnknown: `'${image}' has no ${SERVED_FILES_LABEL} label (build-images adds it to the frontend image)`,
    }
  const files = parseServedFilesLabel(served)
  if (isProblem(files)) return { filesUnknown: files.problem }
  return { files, filesFrom: `the ${SERVED_FILES_LABEL} label of '${image}'` }
}

export function unknownVersionWarning(build: ThisBuild): string {
  return `The version the app must serve is unknown (${build.versionUnknown ?? 'not given'}): nothing can show that the app serves the new build, so the rollout ends unverified at best. ${evidenceAdvice(build)}`
}

/** The log lines that say what this build serves. */
export function buildLines(build: BuildFacts): string[] {
  const lines: string[] = []
  if (build.version !== undefined)
    lines.push(`Expected version: ${build.version} (from ${build.versionFrom ?? ''}).`)
  if (build.files)
    lines.push(
      `This build's served files: ${listed(Object.keys(build.files))} (from ${build.filesFrom ?? ''}), compared with what the app serves once it serves this build's version.`,
    )
  return lines
}

/**
 * What a target serves before the call, within a share of the step's time: its version, and,
 * when the served-files label is known, its labelled files, whose ETags the reader keeps for the
 * watch. What may be a blip is read again (see BEFORE_RETRY_MS).
 */
export async function readBefore(
  target: AppTarget,
  build: ThisBuild,
  reader: ServedFilesReader,
  ports: { http: HttpClient; clock: Clock },
  deadline: Deadline,
): Promise<Before> {
  const { http, clock } = ports
  const started = clock.now().getTime()
  const windowMs = Math.min(BEFORE_WINDOW_MS, deadline.remainingMs() * BEFORE_SHARE)
  const timeoutMs = (cap: number): number =>
    Math.max(1, Math.min(cap, deadline.remainingMs() * BEFORE_SHARE))
  const again = async (): Promise<boolean> => {
    if (clock.now().getTime() - started + BEFORE_RETRY_MS > windowMs) return false
    await clock.sleep(BEFORE_RETRY_MS)
    return true
  }
  let reads = 1
  let version = await readVersion(target, http, timeoutMs(POLL_REQUEST_MS), 'before-1')
  while (worthAnotherRead(version) && (await again()))
    version = await readVersion(target, http, timeoutMs(POLL_REQUEST_MS), `before-${++reads}`)
  if (!build.files || beforeState(version).kind === 'nothing') return { version }
  // version.json without a version is what the reads above said, not a file to compare.
  const paths = Object.keys(build.files)
  const files: Record<string, FileAnswer> =
    version.kind === 'version'
      ? await readServed(reader, paths, version, () => timeoutMs(FILE_REQUEST_MS))
      : {
          ...(paths.includes(VERSION_PATH) ? { [VERSION_PATH]: version } : {}),
          ...(await reader.read(
            paths.filter((path) => path !== VERSION_PATH),
            () => timeoutMs(FILE_REQUEST_MS),
          )),
        }
  const unsettled = (): string[] =>
    paths.filter((path) => path !== VERSION_PATH && worthAnotherRead(files[path] ?? NOT_READ))
  for (let left = unsettled(); left.length > 0 && (await again()); left = unsettled())
    Object.assign(files, await reader.read(left, () => timeoutMs(FILE_REQUEST_MS)))
  return { version, files }
}

const NOT_READ = { kind: 'none', detail: 'not read', transient: true } as const

/**
 * What the read before the call means for the watch, for one target: an info line when the
 * watch can tell this build, a warning when it cannot, or when the target cannot be read as it
 * is asked.
 */
export function beforeMessage(
  subject: string,
  before: Before,
  build: ThisBuild,
  evidence: Evidence,
): { info: string } | { warning: string } {
  const { version } = before
  if (version.kind === 'none') {
    const said = `Before the call, ${subject} gives no version: ${version.detail}.`
    if (beforeState(version).kind === 'unknown')
      return unknownBefore(subject, said, evidence, build)
    return version.transient || evidence.kind === 'none'
      ? { info: `${said} The watch tolerates that while it starts.` }
      : {
          warning: `${said} The watch asks the same address, and will not see the new version unless that changes.`,
        }
  }
  const served = version.version
  switch (evidence.kind) {
    case 'version':
      return {
        info: `Before the call, ${subject} serves ${served}: the version tells this build (${build.version ?? ''}) apart.${evidence.files ? ` The files of the served-files label are compared too, so that a file still served as before the call is not taken for this build's.` : ''}`,
      }
    case 'files':
      return {
        info: `Before the call, ${subject} serves ${served}${build.version === undefined ? '' : ", this build's version"}, with ${filesBefore(evidence)}: those files tell this build apart, so the watch compares what ${subject} serves with them (conditional requests: a file is downloaded again only when it changed).`,
      }
    case 'none':
      if (evidence.why === 'unknown-version')
        return { info: `Before the call, ${subject} serves ${served}.` }
      return { warning: sameVersionWarning(subject, served, evidence, build) }
  }
}

/** The files that differed before the call, in words: another build's, or none served there. */
function filesBefore(evidence: Extract<Evidence, { kind: 'files' }>): string {
  const absent = evidence.differ.filter((path) => evidence.before[path]?.kind === 'absent')
  const other = evidence.differ.filter((path) => !absent.includes(path))
  return listed([
    ...(other.length > 0 ? [`another build's ${listed(other)}`] : []),
    ...(absent.length > 0 ? [`no ${listed(absent)} (HTTP 404)`] : []),
  ])
}

/** Before the call, no version on any read: what the watch can still go by. */
function unknownBefore(
  subject: string,
  said: string,
  evidence: Evidence,
  build: ThisBuild,
): { info: string } | { warning: string } {
  const unknown = `${said} It answered so on every read for a few seconds, so what it serves is unknown and is no evidence of a change`
  switch (evidence.kind) {
    case 'files':
      return {
        info: `${unknown}; its files tell this build apart (it served ${filesBefore(evidence)}), so the watch compares what ${subject} serves with them.`,
      }
    case 'none':
      return {
        warning: `${unknown}${evidence.why === 'unknown-before' ? ", and without the frontend image's served-files label nothing else can tell this build apart" : evidence.why === 'files-unreadable' ? `, and the files that could tell this build apart could not be read either (${evidence.detail})` : ''}: the watch ends unverified at best. ${evidenceAdvice(build)}`,
      }
    default:
      return { info: `${unknown}.` }
  }
}

function sameVersionWarning(
  subject: string,
  served: string,
  evidence: Extract<Evidence, { kind: 'none' }>,
  build: ThisBuild,
): string {
  const Subject = subject.charAt(0).toUpperCase() + subject.slice(1)
  const why =
    evidence.why === 'same-files'
      ? `with the same ${evidence.detail} as this build: this deployment changes nothing the frontend serves (a backend alone, or the same build again)`
      : evidence.why === 'same-version'
        ? `and the files the frontend serves are unknown (${evidence.detail})`
        : `and the files that could tell this build apart could not be read (${evidence.detail})`
  return `${Subject} already serves ${served}, the version this deployment brings, ${why}, so the watch cannot tell the new rollout from the old one: it ends unverified at best. ${evidenceAdvice(build)}`
}

/** What a served-files reader did, in words. */
function fileRequests(counts: ReadCounts): string {
  return `${counts.requests} (${counts.conditional} conditional, ${counts.notModified} answered 304 not modified), ${counts.downloads} download(s)`
}

function evidenceRow(evidence: Evidence, before: string | undefined): string {
  switch (evidence.kind) {
    case 'version': {
      const version =
        before === undefined
          ? 'the version (none read before the call)'
          : `the version (${before} before the call)`
      return evidence.files ? `${version}, and the served files` : version
    }
    case 'files':
      return `the served files${before === undefined ? ', the version before the call unknown' : ', the version unchanged'}: ${listed(evidence.differ)} differed before the call`
    case 'none':
      return `none: ${noEvidenceRow[evidence.why](evidence.detail)}`
  }
}

const noEvidenceRow: Record<NoEvidence, (detail: string) => string> = {
  'unknown-version': () => 'the expected version is unknown',
  'unknown-before': () => 'what the app served before the call is unknown',
  'same-files': (detail) => `the app served this build's ${detail} before the call`,
  'same-version': () => 'the version did not change, and the served files are unknown',
  'files-unreadable': () => 'the version did not change, and the served files could not be read',
}

export interface RolloutSummaryFacts {
  target: AppTarget
  build: BuildFacts
  evidence: Evidence
  before?: string
  preview?: AppTarget
}

/** The rollout section of the job summary: a headline, versions, evidence, and a short timeline. */
export function rolloutSummary(report: WatchReport, facts: RolloutSummaryFacts): Summary {
  const { verdict } = report
  const { target, build, evidence } = facts
  const rows: Array<[string, string]> = [
    ['App', target.shown],
    ['Outcome', verdict.outcome],
    [
      'Expected version',
      build.version !== undefined
        ? `${build.version} (from ${build.versionFrom ?? ''})`
        : `unknown: ${build.versionUnknown ?? ''}`,
    ],
    ['Evidence', evidenceRow(evidence, facts.before)],
    ['Versions served', report.versions.join(', ') || 'none read'],
    ...(facts.preview && report.preview
      ? [
          [
            'Preview',
            `${facts.preview.shown}: ${previewWords(report.preview.state)} (last seen: ${report.preview.seen})`,
          ] as [string, string],
        ]
      : []),
    ['Polls', `${report.polls} in ${at(report.waitedMs).slice(1)}`],
    ...(report.files.app.requests > 0
      ? [['Served-file requests', fileRequests(report.files.app)] as [string, string]]
      : []),
    ...report.timeline.map((event): [string, string] => [at(event.atMs), event.text]),
  ]
  return {
    heading: headline(verdict, evidence),
    rows,
    notes:
      verdict.outcome === 'live'
        ? []
        : [
            verdictMessage(verdict, {
              app: target.shown,
              limit: report.limit,
              waitedMs: report.waitedMs,
              build,
              evidence,
              ...(facts.before !== undefined ? { before: facts.before } : {}),
              ...(facts.preview ? { preview: facts.preview.shown } : {}),
              ...(report.preview ? { previewSeen: report.preview.seen } : {}),
            }),
          ],
    links: [{ label: `App (${verdict.outcome})`, url: target.shown }],
  }
}

function previewWords(state: PreviewState): string {
  switch (state) {
    case 'this-build':
      return 'serves this build'
    case 'no-evidence':
      return 'answers; nothing tells this build apart'
    default:
      return 'did not serve this build'
  }
}
