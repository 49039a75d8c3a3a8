import { ActionError } from '../shared/errors.js'
import { HttpFailure, type HttpClient, type HttpResponse } from '../shared/http.js'
import type { CommonPorts } from '../shared/ports.js'

export const MAX_ATTEMPTS = 3
const BACKOFF_BASE_MS = 1000
const BACKOFF_CAP_MS = 10_000
const KEPT_BODY_BYTES = 64 * 1024
const SHOWN_BODY_CHARS = 4096
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504])
const RETRYABLE_FAILURES = new Set<HttpFailure['kind']>(['refused', 'dns', 'reset'])

export interface WebhookCall {
  url: URL
  token: string
  payload: string
  timeoutSeconds: number
}

export type WebhookPorts = Pick<CommonPorts, 'logger' | 'redact' | 'clock'> & { http: HttpClient }

export interface WebhookResult {
  status: number
  message: string
  attempts: number
}

/**
 * Spec 4: one POST, success only on 200 with `{"message": "success"}`. The POST is not
 * idempotent, so it is repeated only where the request surely had no effect (refused, unknown
 * host, reset before any response) or the server asks for it (429, 502, 503, 504), at most
 * MAX_ATTEMPTS times within the one time budget.
 */
export async function callWebhook(call: WebhookCall, ports: WebhookPorts): Promise<WebhookResult> {
  const deadline = ports.clock.now().getTime() + call.timeoutSeconds * 1000
  for (let attempt = 1; ; attempt++) {
    const remaining = deadline - ports.clock.now().getTime()
    if (remaining <= 0) throw new ActionError(timeoutMessage(call.timeoutSeconds, attempt - 1))
    ports.logger.info(`POST to the deployment webhook (attempt ${attempt} of ${MAX_ATTEMPTS})`)
    const outcome = await attemptOnce(call, ports, remaining)
    if (outcome.kind === 'done') return { ...outcome.result, attempts: attempt }
    const wait = outcome.retryAfterMs ?? backoff(attempt)
    const last = attempt >= MAX_ATTEMPTS
    const beyondBudget = ports.clock.now().getTime() + wait >= deadline
    if (!outcome.retryable || last || beyondBudget) {
      throw new WebhookError(
        finalMessage(outcome.reason, attempt, outcome.retryable, last, wait),
        outcome.status,
      )
    }
    ports.logger.warning(`${outcome.reason}; retrying in ${formatSeconds(wait)}.`)
    await ports.clock.sleep(wait)
  }
}

type Attempt =
  | { kind: 'done'; result: Omit<WebhookResult, 'attempts'> }
  | { kind: 'failed'; reason: string; retryable: boolean; retryAfterMs?: number; status?: number }

/** A failed call; `status` is the last HTTP status when a response arrived. */
export class WebhookError extends ActionError {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message)
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
      maxBodyBytes: KEPT_BODY_BYTES,
    })
  } catch (error) {
    if (!(error instanceof HttpFailure)) throw error
    if (error.kind === 'timeout') {
      return { kind: 'failed', reason: timeoutMessage(call.timeoutSeconds), retryable: false }
    }
    return {
      kind: 'failed',
      reason: ports.redact(error.message),
      retryable: RETRYABLE_FAILURES.has(error.kind),
    }
  }
  return judgeResponse(response, call.url, ports.redact, ports.clock.now().getTime())
}

export function judgeResponse(
  response: HttpResponse,
  url: URL,
  redact: (text: string) => string,
  now: number,
): Attempt {
  const { status } = response
  const body = showBody(response, redact)
  if (status === 200) {
    const message = successMessage(response.body)
    if (message === 'success') return { kind: 'done', result: { status, message } }
    return {
      kind: 'failed',
      status,
      retryable: false,
      reason: `The webhook answered 200 but not with {"message": "success"}, so the deployment cannot be taken as accepted. Response body: ${body}`,
    }
  }
  if (status >= 300 && status < 400) {
    return {
      kind: 'failed',
      status,
      retryable: false,
      reason: redirectMessage(response, url, redact),
    }
  }
  return {
    kind: 'failed',
    status,
    retryable: RETRYABLE_STATUSES.has(status),
    retryAfterMs:
      status === 429 || status === 503
        ? retryAfterMs(response.headers['retry-after'], now)
        : undefined,
    reason: `The webhook answered HTTP ${status}${statusHint(status)}. Response body: ${body}`,
  }
}

function successMessage(body: string): string | undefined {
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

function showBody(response: HttpResponse, redact: (text: string) => string): string {
  const text = redact(response.body.trim())
  if (text === '') return '(empty)'
  const cut = text.length > SHOWN_BODY_CHARS || response.bodyTruncated
  return cut ? `${text.slice(0, SHOWN_BODY_CHARS)}… (cut)` : text
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110 10.2.3). */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined
  const trimmed = header.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

export function backoff(attempt: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1))
}

function finalMessage(
  reason: string,
  attempt: number,
  retryable: boolean,
  last: boolean,
  wait: number,
): string {
  if (!retryable) return attempt > 1 ? `${reason} (attempt ${attempt})` : reason
  if (last) return `${reason}. Gave up after ${attempt} attempts.`
  return `${reason}. Not retried: waiting ${formatSeconds(wait)} would exceed 'timeout-seconds'.`
}

function timeoutMessage(timeoutSeconds: number, attempts?: number): string {
  const after = attempts ? ` after ${attempts} attempt(s)` : ''
  return `The webhook call did not complete within 'timeout-seconds' (${timeoutSeconds} s)${after}. The deployment may or may not have started: check the platform before running again, or raise 'timeout-seconds'.`
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`
}
