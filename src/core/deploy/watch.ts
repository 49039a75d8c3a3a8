import { startDeadline } from '../shared/deadline.js'
import { HttpFailure, type HttpClient, type HttpResponse } from '../shared/http.js'
import { parseJsonText } from '../shared/json-text.js'
import type { Clock, Logger } from '../shared/ports.js'
import type { AppTarget } from './app-url.js'
import {
  formatElapsed,
  RolloutJudge,
  type RolloutSettings,
  type StatusAnswer,
  type TimelineEvent,
  type Verdict,
  type VersionAnswer,
} from './rollout.js'

/** One request of a poll may take this long at most (and never beyond `wait-minutes`). */
export const POLL_REQUEST_MS = 10_000
/** A version.json is a few hundred bytes: past this it is no version file, and it is cut off. */
export const VERSION_BYTES = 64 * 1024
const STATUS_BYTES = 16 * 1024
/** A status request that starts with the watch's time spent still gets this long. */
const MIN_REQUEST_MS = 1000
/** The statuses of an app, or its proxy, while pods restart. */
const RESTARTING = new Set([429, 500, 502, 503, 504])

export interface WatchSettings extends RolloutSettings {
  target: AppTarget
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
  /** Every version served, in the order first seen. */
  versions: string[]
  /** From the webhook's answer to the verdict. */
  waitedMs: number
  polls: number
  /** `'wait-minutes' (30 min)`, for messages. */
  limit: string
}

/**
 * Polls the app every `poll-seconds` until the judge gives a verdict or `wait-minutes` is spent:
 * `<app-url>/version.json`, then, when it gave a version, `<app-url>/OlympeServer/status`. Each
 * request is bounded in time and in size; the time starts when it is called, right after the
 * webhook's success. Only GETs: nothing is ever sent to the webhook again.
 */
export async function watchRollout(
  settings: WatchSettings,
  ports: WatchPorts,
): Promise<WatchReport> {
  const { clock, logger } = ports
  const started = clock.now().getTime()
  const limit = `'wait-minutes' (${formatElapsed(settings.waitMinutes * 60_000)})`
  const deadline = startDeadline(clock, settings.waitMinutes * 60, limit)
  const judge = new RolloutJudge(settings)
  const elapsed = (): number => clock.now().getTime() - started
  let polls = 0
  let verdict: Verdict | undefined
  while (!verdict && deadline.remainingMs() > 0) {
    polls++
    const requestMs = (): number =>
      Math.min(POLL_REQUEST_MS, Math.max(MIN_REQUEST_MS, deadline.remainingMs()))
    const nonce = `${started.toString(36)}-${polls}`
    const version = await readVersion(settings.target, ports.http, requestMs(), nonce)
    const status: StatusAnswer =
      version.kind === 'version' && judge.asksStatus
        ? await readStatus(settings.target, ports.http, requestMs())
        : { kind: 'not-asked' }
    const step = judge.observe({ atMs: elapsed(), version, status })
    for (const line of step.log) logger.info(line)
    verdict = step.verdict
    const left = deadline.remainingMs()
    if (!verdict && left > 0) await clock.sleep(Math.min(settings.pollSeconds * 1000, left))
  }
  verdict ??= judge.end(elapsed())
  return {
    verdict,
    timeline: judge.timeline,
    versions: judge.versions,
    waitedMs: elapsed(),
    polls,
    limit,
  }
}

function headers(target: AppTarget, accept: string): Record<string, string> {
  return {
    Accept: accept,
    // Both, for HTTP/1.0 caches too: the answer must come from the app, not from a cache.
    'Cache-Control': 'no-cache',
    Pragma: 'no-cache',
    ...(target.authorization ? { Authorization: target.authorization } : {}),
  }
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
  if ('problem' in json)
    return { kind: 'none', detail: `version.json is ${json.problem}`, transient: true }
  const document = json.value
  const value =
    typeof document === 'object' && document !== null
      ? (document as Record<string, unknown>).version
      : undefined
  if (typeof value !== 'string' || value.trim() === '')
    return { kind: 'none', detail: "version.json has no 'version' string", transient: false }
  const version = value.trim()
  // Printed in the log and an output: a version, not any text the server chose.
  if (!/^[\x21-\x7e]{1,128}$/.test(version))
    return {
      kind: 'none',
      detail: "version.json's 'version' is not a version (up to 128 visible ASCII characters)",
      transient: false,
    }
  return { kind: 'version', version }
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
  const transient = error.kind !== 'dns' && error.kind !== 'tls' && error.kind !== 'proxy'
  return { kind: 'none', detail: `no answer: ${error.message}`, transient }
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
