import type { Deadline } from '../shared/deadline.js'
import { ActionError } from '../shared/errors.js'
import { HttpFailure, type HttpClient, type HttpResponse } from '../shared/http.js'
import { isObject, jsonValue } from '../shared/json-text.js'
import type { CommonPorts } from '../shared/ports.js'
import {
  connectTimeoutMs,
  MAX_ATTEMPTS,
  retry,
  type AttemptOutcome,
  type Retried,
} from '../shared/retry.js'
import { untrustedText } from '../shared/untrusted-text.js'
import type { DeployProgress } from './progress.js'

const BACKOFF_BASE_MS = 1000
const BACKOFF_CAP_MS = 10_000
const KEPT_BODY_BYTES = 64 * 1024
const SHOWN_BODY_CHARS = 4096
/** The statuses with which a server says it did not act, and asks to come back later. */
const RETRY_STATUSES = new Set([429, 503])
/** Gateways: they may have passed the request on before failing. */
const GATEWAY_STATUSES = new Set([502, 504])
/**
 * The server refused the request: not authenticated (401), or not allowed (403; RFC 9110 15.5.2
 * and 15.5.4). The deployment process defines 200 alone; this is HTTP's meaning of the two.
 */
const REFUSED_STATUSES = new Set([401, 403])

/** 401 or 403: the platform refused the caller (its token, its address), whatever was sent. */
export const refusedTheCaller = (status: number): boolean => REFUSED_STATUSES.has(status)
/** No connection, or no TLS session: not one byte of the request reached the application. */
const NEVER_SENT = new Set<HttpFailure['kind']>(['refused', 'dns', 'tls', 'connect-timeout'])

const CHECK_HISTORY =
  "check the platform's deployment history (or ask the platform operator) before running this step again, so that it is not deployed twice."
export const MAY_HAVE_STARTED = `The deployment may or may not have started, and the step did not send the request again: ${CHECK_HISTORY}`
/** After an answer that is not the platform's acceptance: it got the request all the same. */
const RECEIVED = `The request reached the webhook's server, so the platform may have started the deployment all the same; the step did not send it again: ${CHECK_HISTORY}`
const NOTHING_SENT =
  'The request never reached the platform, so nothing was deployed: run the step again once the webhook can be reached.'
/** 401 and 403: a refusal, which sending the request again would meet as well. */
const REFUSED =
  'The platform refused the request, so it did not start the deployment: run the step again once what the answer names is put right.'
/** 429 and 503, still after the last attempt: the server said it did not act. */
const DECLINED =
  'The server answered that it did not act on the request, so nothing was deployed: run the step again once the platform accepts requests.'

export interface WebhookCall {
  url: URL
  token: string
  payload: string
  /** `timeout-seconds`, counted from the start of the step. */
  deadline: Deadline
}

export type WebhookPorts = Pick<CommonPorts, 'logger' | 'redact' | 'clock'> & {
  http: HttpClient
  /** Told when a request goes out, and when an answer says it was not acted on. */
  progress?: DeployProgress
}

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
 * application, `unknown` when it may have, `refused` when the server refused it (401, 403),
 * `answered` when the application said what it did.
 */
type Effect = 'none' | 'unknown' | 'refused' | 'answered'

interface Failed {
  reason: string
  effect: Effect
  /** The wait came from the server's Retry-After. */
  asked: boolean
  status?: number
  responseMessage?: string
}

type Attempt = AttemptOutcome<Omit<WebhookResult, 'attempts'>, Failed>

/**
 * One POST, taken as accepted only on 200 with `{"message": "success"}`. The POST is not
 * idempotent, so it is repeated only where the request surely did not reach the application
 * (refused, unknown host, TLS handshake failed, connect time-out, a proxy that could not open
 * its tunnel) or where the server says it did not act (429, 503), at most MAX_ATTEMPTS times,
 * all within `timeout-seconds`.
 */
export async function callWebhook(call: WebhookCall, ports: WebhookPorts): Promise<WebhookResult> {
  const { deadline } = call
  const retried = await retry(
    (attempt, remainingMs) => {
      // The count only once a retry is under way: a first POST may well be the only one.
      ports.logger.info(
        attempt === 1
          ? 'POST to the deployment webhook.'
          : `POST to the deployment webhook again (attempt ${attempt} of ${MAX_ATTEMPTS}).`,
      )
      return attemptOnce(call, ports, remainingMs)
    },
    {
      attempts: MAX_ATTEMPTS,
      backoffMs: backoff,
      sleep: (ms) => ports.clock.sleep(ms),
      deadline,
      onRetry: (failure, waitMs) =>
        ports.logger.warning(
          `${failure.reason}; retrying in ${formatSeconds(waitMs)}${askedNote(failure)}.`,
        ),
    },
  )
  if (retried.kind === 'done') return { ...retried.value, attempts: retried.attempts }
  if (retried.kind === 'out-of-time')
    throw new WebhookError(outOfTimeMessage(deadline.limit, retried.attempts))
  const { failure } = retried
  throw new WebhookError(
    finalMessage(failure, stopSentence(retried, deadline.limit), retried.attempts),
    failure.status,
    failure.responseMessage,
  )
}

/** Why no more attempt was made, when it is not the failure itself. */
function stopSentence(
  retried: Extract<Retried<unknown, Failed>, { kind: 'failed' }>,
  limit: string,
): string {
  switch (retried.stop) {
    case 'final':
      return ''
    case 'attempts':
      return `Gave up after ${retried.attempts} attempts.`
    case 'deadline':
      return `Not retried: waiting ${formatSeconds(retried.waitMs)}${askedNote(retried.failure)} would go beyond ${limit}.`
  }
}

function askedNote(failure: Failed): string {
  return failure.asked ? ' (as Retry-After asked)' : ''
}

async function attemptOnce(
  call: WebhookCall,
  ports: WebhookPorts,
  remainingMs: number,
): Promise<Attempt> {
  let response: HttpResponse
  ports.progress?.({ kind: 'sent' })
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
      connectTimeoutMs: connectTimeoutMs(call.deadline, remainingMs),
      maxBodyBytes: KEPT_BODY_BYTES,
    })
  } catch (error) {
    if (!(error instanceof HttpFailure)) throw error
    return noted(judgeFailure(error, call.deadline.limit, ports.redact), ports.progress)
  }
  return noted(
    judgeResponse(response, call.url, ports.redact, ports.clock.now().getTime()),
    ports.progress,
  )
}

/** An attempt the platform surely did not act on takes the deployment back to "not sent". */
function noted(attempt: Attempt, progress: DeployProgress | undefined): Attempt {
  if (attempt.kind !== 'failed' || attempt.failure.effect !== 'none') return attempt
  const { status } = attempt.failure
  progress?.(status === undefined ? { kind: 'not-sent' } : { kind: 'not-sent', answered: status })
  return attempt
}

const failed = (failure: Omit<Failed, 'asked'>, retryable: boolean, waitMs?: number): Attempt => ({
  kind: 'failed',
  failure: { ...failure, asked: waitMs !== undefined },
  retry: retryable,
  waitMs,
})

export function judgeFailure(
  failure: HttpFailure,
  limit: string,
  redact: (text: string) => string,
): Attempt {
  if (failure.kind === 'timeout')
    return failed(
      { reason: `The webhook call did not complete within ${limit}`, effect: 'unknown' },
      false,
    )
  const reason = redact(failure.message)
  if (NEVER_SENT.has(failure.kind)) return failed({ reason, effect: 'none' }, true)
  if (failure.kind === 'proxy') {
    // The proxy's own refused / unknown host / unreachable: as those, worth another try. A 4xx
    // to CONNECT (407 authentication, 403 forbidden) is its configuration, which will not change.
    const status = failure.proxyStatus
    return failed({ reason, effect: 'none' }, status === undefined || status >= 500)
  }
  return failed({ reason, effect: 'unknown' }, false)
}

export function judgeResponse(
  response: HttpResponse,
  url: URL,
  redact: (text: string) => string,
  now: number,
): Attempt {
  const { status } = response
  const message = messageField(response.body)
  if (status === 200 && message === 'success') return { kind: 'done', value: { status, message } }
  // Only a failure shows the body and the message, redacted and made printable.
  const body = showBody(response, redact)
  const responseMessage =
    message === undefined ? undefined : untrustedText(redact(message), SHOWN_BODY_CHARS)
  if (status === 200) {
    return failed(
      {
        status,
        responseMessage,
        effect: 'answered',
        reason: `The webhook answered 200 but not with {"message": "success"}, so the deployment cannot be taken as accepted. Response body: ${body}`,
      },
      false,
    )
  }
  if (status >= 300 && status < 400) {
    return failed(
      {
        status,
        responseMessage,
        effect: 'answered',
        reason: redirectMessage(response, url, redact),
      },
      false,
    )
  }
  const retryable = RETRY_STATUSES.has(status)
  return failed(
    {
      status,
      responseMessage,
      effect: retryable ? 'none' : effectOfAnswer(status),
      reason: `The webhook answered HTTP ${status}${statusHint(status)}. Response body: ${body}`,
    },
    retryable,
    retryable ? retryAfterMs(response.headers['retry-after'], now) : undefined,
  )
}

/** What an answer that is neither a success nor a "come back later" says the platform did. */
function effectOfAnswer(status: number): Effect {
  if (GATEWAY_STATUSES.has(status)) return 'unknown'
  return REFUSED_STATUSES.has(status) ? 'refused' : 'answered'
}

function messageField(body: string): string | undefined {
  const parsed = jsonValue(body)
  return isObject(parsed) && typeof parsed.message === 'string' ? parsed.message : undefined
}

function statusHint(status: number): string {
  if (status === 401) return ' (check the webhook token: WEBHOOK_TOKEN)'
  if (status === 403)
    return " (check the webhook token, WEBHOOK_TOKEN, and whether the platform takes requests only from listed addresses, which the runner's may not be among)"
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

/** The body on one line: a server's line breaks and escape sequences must not forge log lines. */
function showBody(response: HttpResponse, redact: (text: string) => string): string {
  const text = redact(response.body.trim())
  if (text === '') return '(empty)'
  const shown = untrustedText(text, SHOWN_BODY_CHARS)
  return response.bodyTruncated && !shown.endsWith('… (cut)') ? `${shown}… (cut)` : shown
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

function finalMessage(failure: Failed, stop: string, attempt: number): string {
  const counted = attempt > 1 && stop === '' ? ` (attempt ${attempt})` : ''
  return [sentence(`${failure.reason}${counted}`), stop, consequenceOf(failure)]
    .filter((part) => part !== '')
    .join(' ')
}

/** What the failure means for the deployment, and what to do before running the step again. */
function consequenceOf(failure: Failed): string {
  switch (failure.effect) {
    case 'unknown':
      return MAY_HAVE_STARTED
    case 'refused':
      return REFUSED
    case 'answered':
      return RECEIVED
    case 'none':
      return failure.status === undefined ? NOTHING_SENT : DECLINED
  }
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`
}

function outOfTimeMessage(limit: string, attempts: number): string {
  const done = attempts > 0 ? ` after ${attempts} attempt(s) that never reached the platform` : ''
  return `The step used up ${limit} before the webhook could be called${done}, so nothing was sent; raise 'timeout-seconds'.`
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`
}
