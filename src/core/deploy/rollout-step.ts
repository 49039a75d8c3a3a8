import type { ImageConfigRead } from '../registry/manifest-check.js'
import type { Deadline } from '../shared/deadline.js'
import type { HttpClient } from '../shared/http.js'
import type { Summary } from '../shared/ports.js'
import type { AppTarget } from './app-url.js'
import type { DeployInputs } from './inputs.js'
import type { Payload } from './payload-schema.js'
import {
  isVersionText,
  OCI_LABELS,
  parseServedFilesLabel,
  SERVED_FILES_LABEL,
} from '../shared/image-labels.js'
import { filesNeeded, type Before, type Evidence, type ThisBuild } from './evidence.js'
import { at, evidenceAdvice, headline, verdictMessage, type PreviewState } from './rollout.js'
import { FILE_REQUEST_MS, listed, type ReadCounts, type ServedFilesReader } from './served.js'
import { POLL_REQUEST_MS, readServed, readVersion, type WatchReport } from './watch.js'
/** The version read before the call may take at most this share of what is left of the step. */
const BEFORE_SHARE = 0.25

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
  const read: { labels: Record<string, string> } | { unread: string } = !image
    ? { unread: 'the payload has no frontend image to read it from' }
    : !labels
      ? { unread: `the labels of '${image}' were not read` }
      : 'problem' in labels
        ? { unread: `the labels of '${image}' could not be read: ${labels.problem}` }
        : labels
  const version: Partial<BuildFacts> = given
    ? { version: given, versionFrom: "input 'expected-version'" }
    : 'unread' in read
      ? { versionUnknown: read.unread }
      : labelledVersion(image ?? '', read.labels)
  const files: Partial<BuildFacts> =
    'unread' in read ? { filesUnknown: read.unread } : labelledFiles(image ?? '', read.labels)
  return { ...version, ...files, ...('labels' in read ? { labelsRead: true } : {}) }
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
  if ('problem' in files) return { filesUnknown: files.problem }
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
      `This build's served files: ${listed(Object.keys(build.files))} (from ${build.filesFrom ?? ''}), compared with what the app serves when the version does not change.`,
    )
  return lines
}

/**
 * What a target serves before the call, within a share of the step's time: its version, and,
 * when the version will not tell this build (see filesNeeded), its served files, whose ETags the
 * reader keeps for the watch.
 */
export async function readBefore(
  target: AppTarget,
  build: ThisBuild,
  reader: ServedFilesReader,
  http: HttpClient,
  deadline: Deadline,
): Promise<Before> {
  const timeoutMs = (cap: number): number =>
    Math.max(1, Math.min(cap, deadline.remainingMs() * BEFORE_SHARE))
  const version = await readVersion(target, http, timeoutMs(POLL_REQUEST_MS), 'before')
  if (!build.files || !filesNeeded(build, version)) return { version }
  const paths = Object.keys(build.files)
  const files = await readServed(reader, paths, version, () => timeoutMs(FILE_REQUEST_MS))
  return { version, files }
}

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
  const Subject = subject.charAt(0).toUpperCase() + subject.slice(1)
  const { version } = before
  if (version.kind === 'none') {
    const said = `Before the call, ${subject} gives no version: ${version.detail}.`
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
        info: `Before the call, ${subject} serves ${served}: the version tells this build (${build.version ?? ''}) apart.`,
      }
    case 'files':
      return {
        info: `Before the call, ${subject} serves ${served}${build.version === undefined ? '' : ", this build's version"}, with another build's ${listed(evidence.differ)}: those files tell this build apart, so the watch compares what ${subject} serves with them (conditional requests: a file is downloaded again only when it changed).`,
      }
    case 'none':
      if (evidence.why === 'unknown-version')
        return { info: `Before the call, ${subject} serves ${served}.` }
      return {
        warning: `${Subject} already serves ${served}, the version this deployment brings, ${
          evidence.why === 'same-files'
            ? `with the same ${evidence.detail} as this build: this deployment changes nothing the frontend serves (a backend alone, or the same build again)`
            : evidence.why === 'same-version'
              ? `and the files the frontend serves are unknown (${evidence.detail})`
              : `and the files that could tell this build apart could not be read (${evidence.detail})`
        }, so the watch cannot tell the new rollout from the old one: it ends unverified at best. ${evidenceAdvice(build)}`,
      }
  }
}

/** What a served-files reader did, in words. */
function fileRequests(counts: ReadCounts): string {
  return `${counts.requests} (${counts.conditional} conditional, ${counts.notModified} answered 304 not modified), ${counts.downloads} download(s)`
}

function evidenceRow(evidence: Evidence, before: string | undefined): string {
  switch (evidence.kind) {
    case 'version':
      return before === undefined
        ? 'the version (none read before the call)'
        : `the version (${before} before the call)`
    case 'files':
      return `the served files, the version unchanged: ${listed(evidence.differ)} differed before the call`
    case 'none':
      return `none: ${evidence.why === 'unknown-version' ? 'the expected version is unknown' : evidence.why === 'same-files' ? `the app served this build's ${evidence.detail} before the call` : evidence.why === 'same-version' ? `the version did not change, and the served files are unknown` : 'the version did not change, and the served files could not be read'}`
  }
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
