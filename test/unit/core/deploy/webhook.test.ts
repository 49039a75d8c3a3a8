import { describe, expect, test } from '@jest/globals'
import { callWebhook, retryAfterMs, WebhookError } from '../../../../src/core/deploy/webhook.js'
import {
  HttpFailure,
  type HttpRequest,
  type HttpResponse,
} from '../../../../src/core/shared/http.js'
import type { Logger } from '../../../../src/core/shared/ports.js'

type Step = HttpResponse | HttpFailure
const ok: HttpResponse = {
  status: 200,
  headers: {},
  body: '{"message":"success"}',
  bodyTruncated: false,
}
const status = (code: number, headers: Record<string, string> = {}, body = ''): HttpResponse => ({
  status: code,
  headers,
  body,
  bodyTruncated: false,
})
const failure = (kind: HttpFailure['kind']): HttpFailure =>
  new HttpFailure(kind, `simulated ${kind}`)

const quietLogger: Logger = {
  info: () => undefined,
  warning: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  group: (_t, run) => run(),
}

/** A fake clock and network: the policy is tested without waiting for real seconds. */
async function call(
  steps: Step[],
  timeoutSeconds = 60,
): Promise<{ result?: unknown; error?: WebhookError; requests: HttpRequest[]; waits: number[] }> {
  let now = 0
  const requests: HttpRequest[] = []
  const waits: number[] = []
  const tools = {
    http: {
      request: (request: HttpRequest): Promise<HttpResponse> => {
        requests.push(request)
        const step = steps[Math.min(requests.length - 1, steps.length - 1)] ?? ok
        return step instanceof HttpFailure ? Promise.reject(step) : Promise.resolve(step)
      },
    },
    logger: quietLogger,
    redact: (text: string) => text,
    clock: {
      sleep: (ms: number) => {
        waits.push(ms)
        now += ms
        return Promise.resolve()
      },
      now: () => new Date(now),
    },
  }
  try {
    const result = await callWebhook(
      { url: new URL('https://h.example/x'), token: 't', payload: '{}', timeoutSeconds },
      tools,
    )
    return { result, requests, waits }
  } catch (error) {
    return { error: error as WebhookError, requests, waits }
  }
}

describe('the retry policy for a non-idempotent POST', () => {
  test.each<[string, Step[], number, number[]]>([
    ['success at once', [ok], 1, []],
    ['503 then success', [status(503), ok], 2, [1000]],
    ['502, 504, then success', [status(502), status(504), ok], 3, [1000, 2000]],
    ['refused then success', [failure('refused'), ok], 2, [1000]],
    ['unknown host then success', [failure('dns'), ok], 2, [1000]],
    ['reset before any response then success', [failure('reset'), ok], 2, [1000]],
    ['429 with Retry-After: 3', [status(429, { 'retry-after': '3' }), ok], 2, [3000]],
    ['429 without Retry-After backs off', [status(429), ok], 2, [1000]],
  ])('%s: %i request(s), waits %j', async (_name, steps, count, waits) => {
    const run = await call(steps)
    expect(run.error).toBeUndefined()
    expect(run.requests).toHaveLength(count)
    expect(run.waits).toEqual(waits)
  })

  test.each<[string, Step[], number, string]>([
    ['500 is never repeated', [status(500), ok], 1, 'HTTP 500'],
    ['400 is never repeated', [status(400, {}, '{"error":"bad"}'), ok], 1, '{"error":"bad"}'],
    ['401 names the token', [status(401)], 1, 'check the webhook token'],
    ['404 names the URL', [status(404)], 1, 'check the webhook address'],
    [
      '200 with another body',
      [status(200, {}, '{"message":"queued"}'), ok],
      1,
      'answered 200 but not with {"message": "success"}',
    ],
    ['200 with HTML', [status(200, {}, '<html>hi</html>')], 1, '<html>hi</html>'],
    ['201 is not the spec’s success', [status(201, {}, '{"message":"success"}')], 1, 'HTTP 201'],
    [
      'a redirect is not followed',
      [status(302, { location: 'https://elsewhere.example/x' })],
      1,
      "a redirect to 'elsewhere.example'",
    ],
    [
      'a time-out is not repeated (the POST may have arrived)',
      [failure('timeout'), ok],
      1,
      "within 'timeout-seconds'",
    ],
    ['a TLS failure is not repeated', [failure('tls'), ok], 1, 'simulated tls'],
    ['503 three times gives up', [status(503)], 3, 'Gave up after 3 attempts'],
    ['refused three times gives up', [failure('refused')], 3, 'Gave up after 3 attempts'],
  ])('%s', async (_name, steps, count, message) => {
    const run = await call(steps)
    expect(run.error).toBeInstanceOf(WebhookError)
    expect(run.error?.message).toContain(message)
    expect(run.requests).toHaveLength(count)
  })

  test('a Retry-After beyond the time budget is not waited for', async () => {
    const run = await call([status(503, { 'retry-after': '120' }), ok], 60)
    expect(run.requests).toHaveLength(1)
    expect(run.waits).toEqual([])
    expect(run.error?.message).toContain("would exceed 'timeout-seconds'")
    expect(run.error?.status).toBe(503)
  })

  test('each attempt gets only what is left of the budget', async () => {
    const run = await call([status(503), status(503), ok], 10)
    expect(run.requests.map((r) => r.timeoutMs)).toEqual([10_000, 9_000, 7_000])
  })

  test('the request carries the spec headers', async () => {
    const run = await call([ok])
    expect(run.requests[0]?.headers).toEqual({
      Authorization: 'Bearer t',
      'Content-Type': 'application/json',
      Accept: 'application/json',
    })
  })

  test.each([
    ['7', 7000],
    [' 0 ', 0],
    ['Wed, 21 Oct 2015 07:28:10 GMT', 10_000],
    ['soon', undefined],
    [undefined, undefined],
  ])('Retry-After %j is %s ms', (header, expected) => {
    expect(retryAfterMs(header, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(expected)
  })
})
