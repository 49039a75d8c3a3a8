import { ActionError } from '../shared/errors.js'
import { HttpFailure, type HttpClient, type HttpResponse } from '../shared/http.js'
import type { CommonPorts } from '../shared/ports.js'
import type { Deadline } from './deadline.js'

export const MAX_ATTEMPTS = 3
const BACKOFF_BASE_MS = 1000
const BACKOFF_CAP_MS = 10_000
/** A connection not made by then is given up; at most a third of the budget, so a retry fits. */
const CONNECT_TIMEOUT_MS = 10_000
const KEPT_BODY_BYTES = 64 * 1024
const SHOWN_BODY_CHARS = 4096
/** The statuses with which a server says it did not act, and asks to come back later. */
const RETRY_STATUSES = new Set([429, 503])
/** Gateways: they may have passed the request on before failing. */
const GATEWAY_STATUSES = new Set([502, 504])
/** No connection, or no TLS session: not one byte of the request reached the application. */
const NEVER_SENT = new Set<HttpFailure['kind']>(['refused', 'dns', 'tls', 'connect-timeout'])

export const MAY_HAVE_STARTED =
  "The deployment may or may not have started: check the platform's deployment history (or ask the platform operator) before running this step again, so that it is not deployed twice."
const NOTHING_SENT =
  'The request never reached the platform, so nothing was deployed: run the step again once the webhook can be reached.'

export interface WebhookCall {
  url: URL
  token: string
  payload: string
  /** `timeout-seconds`, counted from the start of the step. */
  deadline: Deadline
}

export type WebhookPorts = Pick<CommonPorts, 'logger' | 'redact' | 'clock'> & { http: HttpClient }

export interface WebhookResult {
  status: number
  message: string
  attempts: number
}

/** A failed call; `status` and `responseMessage` are the last response's, when one arrived. */
export class WebhookError extends ActionError {
  constructor(
    message: string,
    readonly status?: number,
    /** The response body's `message` field, redacted. */
    readonly responseMessage?: string,
  ) {
    super(message)
  }
}

/**
 * What an attempt did to the platform: `none` when the request surely did not reach the
 * application, `unknown` when it may have, `answered` when the application said what it did.
 */
type Effect = 'none' | 'unknown' | 'answered'

type Attempt =
  | { kind: 'done'; result: Omit<WebhookResult, 'attempts'> }
  | {
      kind: 'failed'
      reason: string
      effect: Effect
      retry: boolean
      retryAfterMs?: number
      status?: number
      responseMessage?: string
    }

/**
 * Spec 4: one POST, success only on 200 with `{"message": "success"}`. The POST is not
 * idempotent, so it is repeated only where the request surely did not reach the application
 * (refused, unknown host, TLS handshake failed, connect time-out, a proxy that could not open
 * its tunnel) or where the server says it did not act (429, 503), at most MAX_ATTEMPTS times,
 * all within `timeout-seconds`.
 */
export async function callWebhook(call: WebhookCall, ports: WebhookPorts): Promise<WebhookResult> {
  const { deadline } = call
  for (let attempt = 1; ; attempt++) {
    const remaining = deadline.remainingMs()
    if (remaining <= 0) throw new WebhookError(outOfTimeMessage(deadline.seconds, attempt - 1))
    ports.logger.info(`POST to the deployment webhook (attempt ${attempt} of ${MAX_ATTEMPTS})`)
    const outcome = await attemptOnce(call, ports, remaining)
    if (outcome.kind === 'done') return { ...outcome.result, attempts: attempt }
    const wait = outcome.retryAfterMs ?? backoff(attempt)
    const stop = !outcome.retry
      ? ''
      : attempt >= MAX_ATTEMPTS
        ? `Gave up after ${attempt} attempts.`
        : wait >= deadline.remainingMs()
          ? `Not retried: waiting ${formatSeconds(wait)}${outcome.retryAfterMs === undefined ? '' : ' (as Retry-After asked)'} would go beyond 'timeout-seconds' (${deadline.seconds} s).`
          : undefined
    if (stop !== undefined) {
      throw new WebhookError(
        finalMessage(outcome.reason, outcome.effect, stop, attempt),
        outcome.status,
        outcome.responseMessage,
      )
    }
    const asked = outcome.retryAfterMs === undefined ? '' : ' (as Retry-After asked)'
    ports.logger.warning(`${outcome.reason}; retrying in ${formatSeconds(wait)}${asked}.`)
    await ports.clock.sleep(wait)
  }
}

async function attemptOnce(
  call: WebhookCall,
  ports: WebhookPorts,
  remainingMs: number,
): Promise<Attempt> {
  let response: HttpResponse
  try {
    response = await ports.http.request({
      method: 'POST',
      url: call.url,
      headers: {
        Authorization: `Bearer ${call.token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      body: call.payload,
      timeoutMs: remainingMs,
      connectTimeoutMs: Math.min(
        CONNECT_TIMEOUT_MS,
        (call.deadline.seconds * 1000) / MAX_ATTEMPTS,
        remainingMs,
      ),
      maxBodyBytes: KEPT_BODY_BYTES,
    })
  } catch (error) {
    if (!(error instanceof HttpFailure)) throw error
    return judgeFailure(error, call.deadline.seconds, ports.redact)
  }
  return judgeResponse(response, call.url, ports.redact, ports.clock.now().getTime())
}

export function judgeFailure(
  failure: HttpFailure,
  timeoutSeconds: number,
  redact: (text: string) => string,
): Attempt {
  if (failure.kind === 'timeout')
    return {
      kind: 'failed',
      reason: `The webhook call did not complete within 'timeout-seconds' (${timeoutSeconds} s)`,
      effect: 'unknown',
      retry: false,
    }
  const reason = redact(failure.message)
  if (NEVER_SENT.has(failure.kind)) return { kind: 'failed', reason, effect: 'none', retry: true }
  if (failure.kind === 'proxy') {
    // The proxy's own refused / unknown host / unreachable: as those, worth another try. A 4xx
    // to CONNECT (407 authentication, 403 forbidden) is its configuration, which will not change.
    const status = failure.proxyStatus
    return { kind: 'failed', reason, effect: 'none', retry: status === undefined || status >= 500 }
  }
  return { kind: 'failed', reason, effect: 'unknown', retry: false }
}

export function judgeResponse(
  response: HttpResponse,
  url: URL,
  redact: (text: string) => string,
  now: number,
): Attempt {
  const { status } = response
  const message = messageField(response.body)
  if (status === 200 && message === 'success') return { kind: 'done', result: { status, message } }
  // Only a failure shows the body and the message, redacted.
  const body = showBody(response, redact)
  const responseMessage = message === undefined ? undefined : shorten(redact(message))
  if (status === 200) {
    return {
      kind: 'failed',
      status,
      responseMessage,
      effect: 'answered',
      retry: false,
      reason: `The webhook answered 200 but not with {"message": "success"}, so the deployment cannot be taken as accepted. Response body: ${body}`,
    }
  }
  if (status >= 300 && status < 400) {
    return {
      kind: 'failed',
      status,
      responseMessage,
      effect: 'answered',
      retry: false,
      reason: redirectMessage(response, url, redact),
    }
  }
  const retry = RETRY_STATUSES.has(status)
  return {
    kind: 'failed',
    status,
    responseMessage,
    effect: retry ? 'none' : GATEWAY_STATUSES.has(status) ? 'unknown' : 'answered',
    retry,
    retryAfterMs: retry ? retryAfterMs(response.headers['retry-after'], now) : undefined,
    reason: `The webhook answered HTTP ${status}${statusHint(status)}. Response body: ${body}`,
  }
}

function messageField(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) {
      return typeof parsed.message === 'string' ? parsed.message : undefined
    }
  } catch {
    return undefined
  }
  return undefined
}

function statusHint(status: number): string {
  if (status === 401 || status === 403) return ' (check the webhook token: WEBHOOK_TOKEN)'
  if (status === 404) return ' (check the webhook address: WEBHOOK_URL)'
  if (status === 413) return ' (the payload is too large for the server)'
  if (status === 429) return ' (too many requests)'
  if (status === 503) return ' (the service is unavailable)'
  if (GATEWAY_STATUSES.has(status))
    return ' (from a gateway, which may have passed the request on to the platform before failing)'
  return ''
}

/** Names where a redirect points, but never the webhook's own host: its URL is a secret. */
function redirectMessage(
  response: HttpResponse,
  url: URL,
  redact: (text: string) => string,
): string {
  return redact(
    `The webhook answered HTTP ${response.status}, a redirect to ${redirectTarget(response.headers.location, url)}. Redirects are not followed, because the bearer token would be sent to another address: ask the platform operator for the current webhook URL.`,
  )
}

function redirectTarget(location: string | undefined, url: URL): string {
  if (!location) return 'no address (no Location header)'
  let target: URL
  try {
    target = new URL(location, url)
  } catch {
    return 'an unparseable address'
  }
  return target.host === url.host ? 'another path on the same host' : `'${target.host}'`
}

function shorten(text: string): string {
  return text.length > SHOWN_BODY_CHARS ? `${text.slice(0, SHOWN_BODY_CHARS)}… (cut)` : text
}

function showBody(response: HttpResponse, redact: (text: string) => string): string {
  const text = redact(response.body.trim())
  if (text === '') return '(empty)'
  return response.bodyTruncated ? `${text.slice(0, SHOWN_BODY_CHARS)}… (cut)` : shorten(text)
}

/**
 * Retry-After is delay-seconds or an HTTP date (RFC 9110 10.2.3). Anything else (a negative or
 * fractional number, a word) is malformed: undefined, so the default backoff applies. A date
 * already past means now.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  const trimmed = header?.trim() ?? ''
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  // An HTTP date starts with the day's name; Date.parse alone would read '-5' as a year.
  if (!/^[A-Za-z]{3},? /.test(trimmed)) return undefined
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

export function backoff(attempt: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1))
}

function finalMessage(reason: string, effect: Effect, stop: string, attempt: number): string {
  const counted = attempt > 1 && stop === '' ? ` (attempt ${attempt})` : ''
  const consequence =
    effect === 'unknown' ? MAY_HAVE_STARTED : effect === 'none' ? NOTHING_SENT : ''
  return [sentence(`${reason}${counted}`), stop, consequence]
    .filter((part) => part !== '')
    .join(' ')
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`
}

function outOfTimeMessage(timeoutSeconds: number, attempts: number): string {
  const done = attempts > 0 ? ` after ${attempts} attempt(s) that never reached the platform` : ''
  return `The step used up 'timeout-seconds' (${timeoutSeconds} s) before the webhook could be called${done}, so nothing was sent; raise 'timeout-seconds'.`
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`
}
