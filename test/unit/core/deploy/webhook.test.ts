import { describe, expect, test } from '@jest/globals'
import { callWebhook, retryAfterMs, WebhookError } from '../../../../src/core/deploy/webhook.js'
import {
  HttpFailure,
  type HttpRequest,
  type HttpResponse,
} from '../../../../src/core/shared/http.js'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import { recordingLogger } from '../../../helpers/recording.js'

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

/** A fake clock and network: the policy is tested without waiting for real seconds. */
async function call(
  steps: Step[],
  timeoutSeconds = 60,
): Promise<{
  result?: unknown
  error?: WebhookError
  requests: HttpRequest[]
  waits: number[]
  said: string[]
}> {
  let now = 0
  const requests: HttpRequest[] = []
  const waits: number[] = []
  const { logger, lines: said } = recordingLogger()
  const clock = {
    sleep: (ms: number) => {
      waits.push(ms)
      now += ms
      return Promise.resolve()
    },
    now: () => new Date(now),
  }
  const tools = {
    http: {
      request: (request: HttpRequest): Promise<HttpResponse> => {
        requests.push(request)
        const step = steps[Math.min(requests.length - 1, steps.length - 1)] ?? ok
        return step instanceof HttpFailure ? Promise.reject(step) : Promise.resolve(step)
      },
    },
    logger,
    redact: (text: string) => text.replace(/hush-hush/g, '***'),
    clock,
  }
  try {
    const result = await callWebhook(
      {
        url: new URL('https://h.example/x'),
        token: 't',
        payload: '{}',
        deadline: startDeadline(clock, timeoutSeconds),
      },
      tools,
    )
    return { result, requests, waits, said }
  } catch (error) {
    return { error: error as WebhookError, requests, waits, said }
  }
}

const proxyAnswered = (status: number): HttpFailure =>
  new HttpFailure('proxy', `simulated proxy ${status}`, status)
const NOTHING_SENT = 'The request never reached the platform, so nothing was deployed'
const DECLINED =
  'The server answered that it did not act on the request, so nothing was deployed: run the step again once the platform accepts requests.'
const CHECK =
  "check the platform's deployment history (or ask the platform operator) before running this step again, so that it is not deployed twice."
const RECEIVED = `The request reached the webhook's server, so the platform may have started the deployment all the same; the step did not send it again: ${CHECK}`

describe('the retry policy for a non-idempotent POST', () => {
  describe('retried: the request surely did not reach the application', () => {
    test.each<[string, number, number[], Step[]]>([
      ['connection refused', 2, [1000], [failure('refused'), ok]],
      ['DNS failure', 2, [1000], [failure('dns'), ok]],
      ['TLS handshake failure', 2, [1000], [failure('tls'), ok]],
      ['connect time-out (no socket ever made)', 2, [1000], [failure('connect-timeout'), ok]],
      ['a proxy that cannot be reached', 2, [1000], [failure('proxy'), ok]],
      ['a proxy that answers CONNECT with 502', 2, [1000], [proxyAnswered(502), ok]],
      ['429 without Retry-After: the default backoff', 2, [1000], [status(429), ok]],
      ['503 without Retry-After', 2, [1000], [status(503), ok]],
      ['503 twice: backoff 1 s then 2 s', 3, [1000, 2000], [status(503), status(503), ok]],
      ['429 with Retry-After: 3', 2, [3000], [status(429, { 'retry-after': '3' }), ok]],
      ['503 with Retry-After: 0', 2, [0], [status(503, { 'retry-after': '0' }), ok]],
      ['503 with a negative Retry-After', 2, [1000], [status(503, { 'retry-after': '-5' }), ok]],
      ['503 with Retry-After: soon', 2, [1000], [status(503, { 'retry-after': 'soon' }), ok]],
      ['429 with Retry-After: 1.5', 2, [1000], [status(429, { 'retry-after': '1.5' }), ok]],
    ])('%s: %i request(s), waits %j', async (_name, count, waits, steps) => {
      const run = await call(steps)
      expect(run.error).toBeUndefined()
      expect(run.requests).toHaveLength(count)
      expect(run.waits).toEqual(waits)
    })

    test.each<[string, Step, string]>([
      ['refused', failure('refused'), NOTHING_SENT],
      ['503', status(503), DECLINED],
    ])('%s three times: gives up, saying nothing was deployed', async (_name, step, why) => {
      const run = await call([step])
      expect(run.requests).toHaveLength(3)
      expect(run.waits).toEqual([1000, 2000])
      expect(run.error?.message).toContain(`Gave up after 3 attempts. ${why}`)
      // Counted once a retry is under way, and only then.
      expect(run.said.filter((line) => line.startsWith('POST'))).toEqual([
        'POST to the deployment webhook.',
        'POST to the deployment webhook again (attempt 2 of 3).',
        'POST to the deployment webhook again (attempt 3 of 3).',
      ])
    })

    test('a Retry-After beyond what is left of the budget: fails at once', async () => {
      const run = await call([status(503, { 'retry-after': '120' }), ok], 60)
      expect(run.requests).toHaveLength(1)
      expect(run.waits).toEqual([])
      expect(run.error?.message).toContain(
        "Not retried: waiting 120 s (as Retry-After asked) would go beyond 'timeout-seconds' (60 s).",
      )
      expect(run.error?.status).toBe(503)
    })

    test('a backoff beyond what is left of the budget: fails at once too', async () => {
      const run = await call([status(503)], 1)
      expect(run.requests).toHaveLength(1)
      expect(run.error?.message).toContain(
        "Not retried: waiting 1 s would go beyond 'timeout-seconds' (1 s).",
      )
    })
  })

  describe('never retried: the server may have acted, or answered for good', () => {
    const MAY = 'The deployment may or may not have started'
    test.each<[string, Step[], string]>([
      ['502 (a gateway may have passed it on)', [status(502, {}, 'bad gateway'), ok], MAY],
      ['504', [status(504), ok], MAY],
      ['a reset after the request was written', [failure('reset'), ok], MAY],
      ['a partial response', [failure('partial'), ok], MAY],
      ['a time-out once connected', [failure('timeout'), ok], MAY],
      ['any other failure', [failure('other'), ok], MAY],
      ['500', [status(500), ok], 'HTTP 500'],
      ['400', [status(400, {}, '{"error":"bad"}'), ok], '{"error":"bad"}'],
      ['401 names the token', [status(401)], 'check the webhook token'],
      ['403 names the token and an address allow-list', [status(403)], 'listed addresses'],
      ['404 names the URL', [status(404)], 'check the webhook address'],
      [
        '200 with another body',
        [status(200, {}, '{"message":"queued"}'), ok],
        'answered 200 but not with {"message": "success"}',
      ],
      ['200 with HTML', [status(200, {}, '<html>hi</html>')], '<html>hi</html>'],
      ['201 is not the spec’s success', [status(201, {}, '{"message":"success"}')], 'HTTP 201'],
      [
        'a redirect is not followed',
        [status(302, { location: 'https://elsewhere.example/x' })],
        "a redirect to 'elsewhere.example'",
      ],
      ['a proxy that refuses with 407', [proxyAnswered(407), ok], NOTHING_SENT],
    ])('%s: 1 request', async (_name, steps, message) => {
      const run = await call(steps)
      expect(run.error).toBeInstanceOf(WebhookError)
      expect(run.error?.message).toContain(message)
      expect(run.requests).toHaveLength(1)
      expect(run.waits).toEqual([])
    })

    test.each([401, 403])(
      'a %s is a refusal: the deployment was not started, and no history needs checking',
      async (code) => {
        const run = await call([status(code, {}, 'denied'), ok])
        expect(run.requests).toHaveLength(1)
        expect(run.error?.message).toMatch(
          /^The webhook answered HTTP 40[13] \(check the webhook token.*\)\. Response body: denied\. The platform refused the request, so it did not start the deployment: run the step again once what the answer names is put right\.$/,
        )
        expect(run.error?.message).not.toContain('may have started')
      },
    )

    test('a time-out says what to check before running again', async () => {
      const run = await call([failure('timeout')], 7)
      expect(run.error?.message).toBe(
        `The webhook call did not complete within 'timeout-seconds' (7 s). The deployment may or may not have started, and the step did not send the request again: ${CHECK}`,
      )
    })

    test('a 500 after a retried 503 names the attempt', async () => {
      const run = await call([status(503), status(500, {}, 'boom')])
      expect(run.requests).toHaveLength(2)
      expect(run.error?.message).toBe(
        `The webhook answered HTTP 500. Response body: boom (attempt 2). ${RECEIVED}`,
      )
    })

    test('a 500 at once: no attempt count where no retry follows; the platform may have acted', async () => {
      const run = await call([status(500, {}, 'boom')])
      expect(run.requests).toHaveLength(1)
      expect(run.error?.message).toBe(
        `The webhook answered HTTP 500. Response body: boom. ${RECEIVED}`,
      )
      expect(run.said).toEqual(['POST to the deployment webhook.'])
      expect([run.error?.message, ...run.said].join('\n')).not.toMatch(/attempt/)
    })
  })

  test('the response message is kept for the output, redacted, also after a failure', async () => {
    const run = await call([status(422, {}, '{"message":"image hush-hush unknown"}')])
    expect(run.error?.status).toBe(422)
    expect(run.error?.responseMessage).toBe('image *** unknown')
  })

  test("the server's body and message are shown on one line, control characters escaped", async () => {
    const forged = 'no\r\u001b[0Ksection_start:1:evil\r\u001b[0K\n::error::forged hush-hush'
    const run = await call([status(500, {}, JSON.stringify({ message: forged }))])
    const escaped = 'no\\x0d\\x1b[0Ksection_start:1:evil\\x0d\\x1b[0K\\x0a::error::forged ***'
    expect(run.error?.message).toBe(
      `The webhook answered HTTP 500. Response body: {"message":"no\\r\\u001b[0Ksection_start:1:evil\\r\\u001b[0K\\n::error::forged ***"}. ${RECEIVED}`,
    )
    expect(run.error?.responseMessage).toBe(escaped)
    const raw = await call([status(502, {}, `bad\r\u001b[2Kgateway\n${'x'.repeat(5000)}`)])
    expect(raw.error?.message).toMatch(
      /^The webhook answered HTTP 502 \(.*\)\. Response body: bad\\x0d\\x1b\[2Kgateway\\x0ax+… \(cut\)\. /,
    )
    expect(raw.error?.message).not.toMatch(/\p{Cc}/u)
  })

  test('each attempt gets only what is left of the budget, and connects within a third', async () => {
    const run = await call([status(503), status(503), ok], 12)
    expect(run.requests.map((r) => r.timeoutMs)).toEqual([12_000, 11_000, 9_000])
    expect(run.requests.map((r) => r.connectTimeoutMs)).toEqual([4_000, 4_000, 4_000])
    const long = await call([ok], 600)
    expect(long.requests[0]?.connectTimeoutMs).toBe(10_000)
  })

  test('a step whose time is already used up sends nothing', async () => {
    const run = await call([ok], 0)
    expect(run.requests).toHaveLength(0)
    expect(run.error?.message).toContain("The step used up 'timeout-seconds' (0 s)")
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
    ['Wed, 21 Oct 2015 07:27:00 GMT', 0],
    ['-5', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('Retry-After %j is %s ms', (header, expected) => {
    expect(retryAfterMs(header, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(expected)
  })
})
