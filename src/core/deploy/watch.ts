import { isVersionText } from '../shared/image-labels.js'
import { startDeadline, type Deadline } from '../shared/deadline.js'
import { HttpFailure, type HttpClient, type HttpResponse } from '../shared/http.js'
import { isObject, parseJsonText } from '../shared/json-text.js'
import type { Clock, Logger } from '../shared/ports.js'
import { isProblem } from '../shared/problem.js'
import { VERSION_PATH, type AppTarget } from './app-url.js'
import { classify, type Evidence, type Serving, type ThisBuild } from './evidence.js'
import {
  at,
  formatElapsed,
  RolloutJudge,
  type PreviewState,
  type StatusAnswer,
  type TimelineEvent,
  type Verdict,
} from './rollout-judge.js'
import {
  compression,
  FILE_REQUEST_MS,
  headers,
  isTransient,
  nothingFrom,
  RESTARTING,
  ServedFilesReader,
  type FileAnswer,
  type ReadCounts,
  type VersionAnswer,
} from './served-files-reader.js'

/** One request of a poll may take this long at most (and never beyond `wait-minutes`). */
export const POLL_REQUEST_MS = 10_000
/** A version.json is a few hundred bytes: past this it is no version file, and it is cut off. */
export const VERSION_BYTES = 64 * 1024
const STATUS_BYTES = 16 * 1024
/** A status request that starts with the watch's time spent still gets this long. */
const MIN_REQUEST_MS = 1000
/** While waiting, a line at least this often: what is served, and the time left. */
export const PROGRESS_MS = 60_000
/**
 * Apps mostly switch within a minute of the call: the watch polls every QUICK_POLL_MS then (or
 * every `poll-seconds`, if less), and afterwards every `poll-seconds`. A poll that may confirm a
 * verdict (this build served once) is followed by another one QUICK_POLL_MS later, at any time.
 * The pause runs from the end of a poll, so that at most one poll starts every QUICK_POLL_MS.
 */
export const QUICK_POLL_MS = 2000
export const QUICK_PERIOD_MS = 60_000

/** The pause after a poll that ended `elapsedMs` after the call. */
export function pauseAfter(elapsedMs: number, pollSeconds: number, confirming: boolean): number {
  const pollMs = pollSeconds * 1000
  return elapsedMs < QUICK_PERIOD_MS || confirming ? Math.min(QUICK_POLL_MS, pollMs) : pollMs
}

/** One address watched: the app, or the preview that serves a new version until it is promoted. */
export interface WatchedTarget {
  target: AppTarget
  /** What can show that it serves this build (decided from what it served before the call). */
  evidence: Evidence
  /** Its served files' reader, which keeps the ETags of the read before the call. */
  reader: ServedFilesReader
  /** The version it served before the call. */
  before?: string
}

export interface WatchSettings {
  app: WatchedTarget
  /** Watched with a manual promotion only: until it serves this build. */
  preview?: WatchedTarget
  build: ThisBuild
  /** `promotion-mode: manual`: the platform may wait for someone to promote the new version. */
  manualPromotion: boolean
  waitMinutes: number
  pollSeconds: number
}

export interface WatchPorts {
  http: HttpClient
  clock: Clock
  logger: Pick<Logger, 'info'>
}

export interface WatchReport {
  verdict: Verdict
  timeline: TimelineEvent[]
  /** Every version the app served, in the order first seen. */
  versions: string[]
  /** From the webhook's answer to the verdict. */
  waitedMs: number
  polls: number
  /** `'wait-minutes' (30 min)`, for messages. */
  limit: string
  /** With a preview: what it showed, and its last answer in words. */
  preview?: { state: PreviewState; seen: string; versions: string[] }
  /** The requests for served files, by target. */
  files: { app: ReadCounts; preview?: ReadCounts }
}

/**
 * Polls the app (see pauseAfter for how often) until the judge gives a verdict or `wait-minutes`
 * is spent: `<app-url>/version.json`; when it gave a version, `<app-url>/OlympeServer/status`;
 * and, when it gave this build's version and the served-files label is known (see evidence.ts),
 * the files of that label, by conditional requests. With a manual promotion and a preview, the
 * preview is polled the same way until it serves this build, and the app until the end, so that
 * a promotion meanwhile ends live. Each request is bounded in time and in size; the time starts when it is called, right
 * after the webhook's success. Only GETs: nothing is ever sent to the webhook again.
 */
export async function watchRollout(
  settings: WatchSettings,
  ports: WatchPorts,
): Promise<WatchReport> {
  const { clock, logger } = ports
  const started = clock.now().getTime()
  const limit = `'wait-minutes' (${formatElapsed(settings.waitMinutes * 60_000)})`
  const deadline = startDeadline(clock, settings.waitMinutes * 60, limit)
  const elapsed = (): number => clock.now().getTime() - started
  const judge = (target: WatchedTarget, subject: string): RolloutJudge =>
    new RolloutJudge({
      subject,
      manualPromotion: settings.manualPromotion,
      rollbackMs: settings.pollSeconds * 1000,
      ...(settings.build.version !== undefined ? { expected: settings.build.version } : {}),
      ...(target.before !== undefined ? { before: target.before } : {}),
    })
  const app = judge(settings.app, 'the app')
  const preview = settings.preview && judge(settings.preview, 'the preview')
  let previewState: PreviewState | undefined = settings.preview ? undefined : 'no-preview-url'
  let lastLine = 0
  const log = (lines: readonly string[]): void => {
    for (const line of lines) logger.info(line)
    if (lines.length > 0) lastLine = elapsed()
  }
  const progress = (): void => {
    const atMs = elapsed()
    const previewSaid =
      preview && previewState === undefined ? `; the preview: ${preview.lastSeen}` : ''
    log([
      `${at(atMs)}: still waiting for this build, ${formatElapsed(Math.max(0, deadline.remainingMs()))} left; the app: ${app.lastSeen}${previewSaid}.`,
    ])
  }
  let polls = 0
  let verdict: Verdict | undefined
  while (!verdict && deadline.remainingMs() > 0) {
    polls++
    const nonce = `${started.toString(36)}-${polls}`
    const logged = lastLine
    const seen = await poll(settings.app, settings, deadline, ports, nonce)
    const step = app.observe({ atMs: elapsed(), ...seen })
    log(step.log)
    verdict = step.verdict
    if (!verdict && preview && settings.preview && previewState === undefined) {
      const answer = await poll(settings.preview, settings, deadline, ports, nonce)
      const told = preview.observe({ atMs: elapsed(), ...answer })
      log(told.log)
      previewState = previewOutcome(told.verdict)
      if (previewState === 'this-build')
        log([
          `${at(elapsed())}: the preview serves this build: it awaits a promotion. The app is watched until ${limit} is spent, so that a promotion meanwhile ends live.`,
        ])
    }
    if (!verdict && lastLine === logged && elapsed() - lastLine >= PROGRESS_MS) progress()
    const confirming = app.confirming || (previewState === undefined && !!preview?.confirming)
    if (!verdict && deadline.remainingMs() > 0)
      await pause(
        Math.min(pauseAfter(elapsed(), settings.pollSeconds, confirming), deadline.remainingMs()),
      )
  }
  verdict ??= app.end(elapsed(), previewState ?? 'not-this-build')
  return {
    verdict,
    timeline: app.timeline,
    versions: app.versions,
    waitedMs: elapsed(),
    polls,
    limit,
    ...(preview
      ? {
          preview: {
            state: previewState ?? 'not-this-build',
            seen: preview.lastSeen,
            versions: preview.versions,
          },
        }
      : {}),
    files: {
      app: settings.app.reader.counts,
      ...(settings.preview ? { preview: settings.preview.reader.counts } : {}),
    },
  }

  /** The pause between polls, cut where a progress line is due. */
  async function pause(ms: number): Promise<void> {
    let left = ms
    while (left > 0) {
      const due = lastLine + PROGRESS_MS - elapsed()
      if (due <= 0 || due >= left) {
        await clock.sleep(left)
        return
      }
      await clock.sleep(due)
      left -= due
      progress()
    }
  }
}

/** What the preview's judge said, as the final verdict counts it; undefined while it is open. */
function previewOutcome(verdict: Verdict | undefined): PreviewState | undefined {
  if (!verdict) return undefined
  if (verdict.outcome === 'live') return 'this-build'
  if (verdict.outcome === 'unverified') return 'no-evidence'
  return 'not-this-build'
}

/** One poll of one target: its version, its status, and its labelled files when they count. */
async function poll(
  watched: WatchedTarget,
  settings: WatchSettings,
  deadline: Deadline,
  ports: WatchPorts,
  nonce: string,
): Promise<{ serving: Serving; status: StatusAnswer }> {
  const requestMs = (cap = POLL_REQUEST_MS): number =>
    Math.min(cap, Math.max(MIN_REQUEST_MS, deadline.remainingMs()))
  const { target, evidence } = watched
  const version = await readVersion(target, ports.http, requestMs(), nonce)
  const status: StatusAnswer =
    version.kind === 'version'
      ? await readStatus(target, ports.http, requestMs())
      : { kind: 'not-asked' }
  const paths = labelledPaths(evidence)
  const expected = settings.build.version
  const compare =
    paths !== undefined &&
    version.kind === 'version' &&
    (expected === undefined || version.version === expected)
  const files: Record<string, FileAnswer> | undefined = compare
    ? await readServed(watched.reader, paths, version, () => requestMs(FILE_REQUEST_MS))
    : undefined
  return { serving: classify(settings.build, evidence, version, watched.before, files), status }
}

/** The files compared after the call: every path of the served-files label, when known. */
function labelledPaths(evidence: Evidence): string[] | undefined {
  if (evidence.kind === 'files') return evidence.paths
  return evidence.kind === 'version' ? evidence.files?.paths : undefined
}

/**
 * The served files of `paths`: version.json from the poll that just read it whole (no second
 * request), the others by the reader's conditional requests.
 */
export async function readServed(
  reader: ServedFilesReader,
  paths: readonly string[],
  version: VersionAnswer,
  timeoutMs: () => number,
): Promise<Record<string, FileAnswer>> {
  const fromPoll = version.kind === 'version' ? version.digest : undefined
  const asked = fromPoll ? paths.filter((path) => path !== VERSION_PATH) : paths
  const answers = await reader.read(asked, timeoutMs)
  if (fromPoll && paths.includes(VERSION_PATH))
    return { [VERSION_PATH]: { kind: 'read', digest: fromPoll }, ...answers }
  return answers
}

/**
 * The version `<app-url>/version.json` serves, or why none was read. `nonce` makes the URL
 * unique, so that no cache on the way answers for the app.
 */
export async function readVersion(
  target: AppTarget,
  http: HttpClient,
  timeoutMs: number,
  nonce: string,
): Promise<VersionAnswer> {
  const url = new URL(target.versionUrl)
  url.searchParams.set('olympe-poll', nonce)
  let response: HttpResponse
  try {
    response = await http.request({
      method: 'GET',
      url,
      headers: headers(target, 'application/json'),
      timeoutMs,
      maxBodyBytes: VERSION_BYTES,
      stopAtLimit: true,
      hashBody: true,
    })
  } catch (error) {
    if (!(error instanceof HttpFailure)) throw error
    return failed(error)
  }
  const { status } = response
  if (status < 200 || status >= 300) return versionStatus(response)
  if (response.bodyTruncated)
    return {
      kind: 'none',
      detail: `version.json is larger than ${VERSION_BYTES / 1024} KiB, so it was cut off unread (a version file is a few hundred bytes)`,
      transient: false,
    }
  const text = response.body.trim()
  if (text.startsWith('<'))
    return { kind: 'none', detail: 'an HTML page instead of version.json', transient: true }
  const json = parseJsonText(text)
  if (isProblem(json))
    return { kind: 'none', detail: `version.json is ${json.problem}`, transient: true }
  const document = json.value
  const value = isObject(document) ? document.version : undefined
  if (typeof value !== 'string' || value.trim() === '')
    return { kind: 'none', detail: "version.json has no 'version' string", transient: false }
  const version = value.trim()
  // Printed in the log and an output: a version, not any text the server chose.
  if (!isVersionText(version))
    return {
      kind: 'none',
      detail: "version.json's 'version' is not a version (up to 128 visible ASCII characters)",
      transient: false,
    }
  const whole = response.bodySha256 && compression(response) === undefined
  return { kind: 'version', version, ...(whole ? { digest: `sha256:${response.bodySha256}` } : {}) }
}

function versionStatus(response: HttpResponse): VersionAnswer {
  const { status } = response
  const said = `HTTP ${status} for version.json`
  if (RESTARTING.has(status)) return { kind: 'none', detail: said, transient: true }
  if (status === 401 || status === 403)
    return {
      kind: 'none',
      detail: `${said} (a protected app: give its user and password in 'app-url', as https://user:password@host)`,
      transient: false,
    }
  if (status === 404)
    return {
      kind: 'none',
      detail: `${said} (check that 'app-url' is the address of the app's frontend)`,
      transient: false,
      nothing: true,
    }
  if (status >= 300 && status < 400)
    return {
      kind: 'none',
      detail: `${said}, a redirect${response.headers.location ? ` to ${redirectHost(response)}` : ''} (redirects are not followed: give the address it leads to as 'app-url')`,
      transient: false,
    }
  return { kind: 'none', detail: said, transient: false }
}

/** Only where a redirect leads, not its whole address: a path can hold anything. */
function redirectHost(response: HttpResponse): string {
  try {
    const target = new URL(response.headers.location ?? '')
    return `'${target.protocol}//${target.host}'`
  } catch {
    return 'another path'
  }
}

/** Our own wording of the failure, which never quotes Node's (see tools/http.ts). */
function failed(error: HttpFailure): VersionAnswer {
  return {
    kind: 'none',
    detail: `no answer: ${error.message}`,
    transient: isTransient(error),
    ...nothingFrom(error),
  }
}

/** `<app-url>/OlympeServer/status`: 2xx is healthy, 404 may mean no such route. */
export async function readStatus(
  target: AppTarget,
  http: HttpClient,
  timeoutMs: number,
): Promise<StatusAnswer> {
  try {
    const response = await http.request({
      method: 'GET',
      url: target.statusUrl,
      headers: headers(target, 'application/json, */*'),
      timeoutMs,
      maxBodyBytes: STATUS_BYTES,
      stopAtLimit: true,
    })
    const { status } = response
    if (status >= 200 && status < 300) return { kind: 'healthy', status }
    if (status === 404) return { kind: 'no-route' }
    return { kind: 'unhealthy', detail: `HTTP ${status}` }
  } catch (error) {
    if (!(error instanceof HttpFailure)) throw error
    return { kind: 'unhealthy', detail: `no answer (${error.message})` }
  }
}
