import type { ImageConfigRead } from '../registry/manifest-check.js'
import type { Deadline } from '../shared/deadline.js'
import type { HttpClient } from '../shared/http.js'
import type { Summary } from '../shared/ports.js'
import type { AppTarget } from './app-url.js'
import type { DeployInputs } from './inputs.js'
import type { Payload } from './payload-schema.js'
import { at, verdictMessage, type VersionAnswer } from './rollout.js'
import { POLL_REQUEST_MS, readVersion, type WatchReport } from './watch.js'

/** The OCI label build-images writes the project's version into (docker/metadata-action's too). */
export const VERSION_LABEL = 'org.opencontainers.image.version'
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

export type ExpectedVersion = { value: string; from: string } | { unknown: string }

/** `expected-version`, else the frontend image's version label, else why it is unknown. */
export function expectedVersion(
  given: string | undefined,
  payload: Payload,
  labels: ImageConfigRead | undefined,
): ExpectedVersion {
  if (given) return { value: given, from: "input 'expected-version'" }
  const image = payload.frontend?.image
  if (!image) return { unknown: 'the payload has no frontend image to read it from' }
  if (!labels) return { unknown: `the labels of '${image}' were not read` }
  if ('problem' in labels)
    return { unknown: `the labels of '${image}' could not be read: ${labels.problem}` }
  const value = labels.labels[VERSION_LABEL]?.trim() ?? ''
  if (!/^[\x21-\x7e]{1,128}$/.test(value))
    return {
      unknown:
        value === ''
          ? `'${image}' has no ${VERSION_LABEL} label (build-images sets it from the project's version)`
          : `the ${VERSION_LABEL} label of '${image}' is not a version`,
    }
  return { value, from: `the ${VERSION_LABEL} label of '${image}'` }
}

export function unknownVersionWarning(reason: string): string {
  return `The version the app must serve is unknown (${reason}): the rollout watch only checks that the app answers with a healthy status, not that it serves the new version. Set 'expected-version', or build the images with build-images, which labels them with the project's version.`
}

/** The version the app serves before the call, within a share of the step's time. */
export function readBefore(
  target: AppTarget,
  http: HttpClient,
  deadline: Deadline,
): Promise<VersionAnswer> {
  const timeoutMs = Math.max(1, Math.min(POLL_REQUEST_MS, deadline.remainingMs() * BEFORE_SHARE))
  return readVersion(target, http, timeoutMs, 'before')
}

/**
 * What the version read before the call means for the watch: a warning when it cannot tell the
 * new rollout from the old one, or when the app cannot be read as it is asked.
 */
export function beforeMessage(
  before: VersionAnswer,
  expected: ExpectedVersion,
): { info: string } | { warning: string } {
  if (before.kind === 'none') {
    const said = `Before the call, the app gives no version: ${before.detail}.`
    return before.transient
      ? { info: `${said} The watch tolerates that while the app starts.` }
      : {
          warning: `${said} The watch asks the same address, and will not see the new version unless that changes.`,
        }
  }
  if ('value' in expected && before.version === expected.value)
    return {
      warning: `The app already serves ${before.version}, the version this deployment brings, so the watch cannot tell the new rollout from the old one and will report it live at once. Bump the project's version before building the images (the project template's version-bump script), so that each deployment serves a version of its own.`,
    }
  return { info: `Before the call, the app serves ${before.version}.` }
}

/** The rollout section of the job summary: outcome, versions, and a short timeline. */
export function rolloutSummary(
  report: WatchReport,
  target: AppTarget,
  expected: ExpectedVersion,
): Summary {
  const { verdict } = report
  const rows: Array<[string, string]> = [
    ['App', target.shown],
    ['Outcome', verdict.outcome],
    [
      'Expected version',
      'value' in expected
        ? `${expected.value} (from ${expected.from})`
        : `unknown: ${expected.unknown}`,
    ],
    ['Versions served', report.versions.join(', ') || 'none read'],
    ['Polls', `${report.polls} in ${at(report.waitedMs).slice(1)}`],
    ...report.timeline.map((event): [string, string] => [at(event.atMs), event.text]),
  ]
  return {
    heading: `Olympe rollout: ${verdict.outcome}`,
    rows,
    notes:
      verdict.outcome === 'live'
        ? []
        : [
            verdictMessage(verdict, {
              app: target.shown,
              limit: report.limit,
              waitedMs: report.waitedMs,
            }),
          ],
    links: [{ label: `App (${verdict.outcome})`, url: target.shown }],
  }
}
