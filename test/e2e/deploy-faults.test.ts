import { afterAll, beforeAll, describe, expect, test } from '@jest/globals'
import { runAsGithub } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import {
  answer,
  faults,
  startWebhookServer,
  type Responder,
  type WebhookServer,
} from '../helpers/webhook-server.js'

/**
 * A fault-injecting webhook on loopback. For each fault: the outcome the retry policy prescribes
 * (how many POSTs), a clear message, and an exit within timeout-seconds plus the backoff.
 */
const TOKEN = 'fault-token-55aa66bb'
const HOOK_PATH = '/hooks/faults-secret-path'
/** Hangs get a short budget; the others one that leaves room for all three attempts. */
const HANG_TIMEOUT_SECONDS = 3
const TIMEOUT_SECONDS = 30
const BACKOFF_SECONDS = { 1: 0, 2: 1, 3: 3 } as const
const START_UP_SLACK_MS = 4000
const MB = 1024 * 1024

let server: WebhookServer
beforeAll(async () => {
  server = await startWebhookServer(answer(200), HOOK_PATH)
})
afterAll(async () => {
  await server.stop()
})

interface Fault {
  name: string
  responder: Responder
  posts: 1 | 3
  message: string
  hang?: boolean
}

const hang = (name: string, responder: Responder): Fault => ({
  name,
  responder,
  posts: 1,
  message: `did not complete within 'timeout-seconds' (${HANG_TIMEOUT_SECONDS} s)`,
  hang: true,
})

const cases: Fault[] = [
  hang('never answers', faults.neverAnswer()),
  hang('stalls after the headers', faults.stallAfterHeaders()),
  hang('stalls in the body', faults.stallInBody()),
  {
    name: 'resets the connection',
    responder: faults.resetConnection(),
    posts: 3,
    message: 'closed before any response (ECONNRESET). Gave up after 3 attempts',
  },
  {
    name: 'closes before answering',
    responder: faults.closeBeforeAnswering(),
    posts: 3,
    message: 'closed before any response',
  },
  {
    name: '500',
    responder: answer(500, 'boom'),
    posts: 1,
    message: 'HTTP 500. Response body: boom',
  },
  {
    name: '502',
    responder: answer(502, 'bad gateway'),
    posts: 3,
    message: 'HTTP 502. Response body: bad gateway. Gave up after 3 attempts',
  },
  { name: '503', responder: answer(503, 'unavailable'), posts: 3, message: 'HTTP 503' },
  { name: '504', responder: answer(504, 'gateway timeout'), posts: 3, message: 'HTTP 504' },
  {
    name: '429 with Retry-After: 1',
    responder: answer(429, 'slow down', { 'Retry-After': '1' }),
    posts: 3,
    message: 'HTTP 429 (too many requests)',
  },
  {
    name: '429 without Retry-After',
    responder: answer(429, 'slow down'),
    posts: 3,
    message: 'HTTP 429',
  },
  {
    name: '401',
    responder: answer(401, { error: 'bad token' }),
    posts: 1,
    message: 'HTTP 401 (check the webhook token: WEBHOOK_TOKEN)',
  },
  {
    name: '403',
    responder: answer(403, 'no'),
    posts: 1,
    message: 'HTTP 403 (check the webhook token',
  },
  {
    name: '404',
    responder: answer(404, 'no such hook'),
    posts: 1,
    message: 'HTTP 404 (check the webhook address: WEBHOOK_URL)',
  },
  {
    name: '413',
    responder: answer(413, 'too big'),
    posts: 1,
    message: 'HTTP 413 (the payload is too large',
  },
  {
    name: 'a redirect to the same origin',
    responder: answer(308, '', { Location: '/hooks/elsewhere' }),
    posts: 1,
    message: 'HTTP 308, a redirect to another path on the same host',
  },
  {
    name: 'a redirect to another origin',
    responder: answer(301, '', { Location: 'https://other.example.org/deploy' }),
    posts: 1,
    message: "HTTP 301, a redirect to 'other.example.org'",
  },
  {
    name: '200 with HTML',
    responder: answer(200, '<!doctype html><title>Login</title>'),
    posts: 1,
    message: 'Response body: <!doctype html><title>Login</title>',
  },
  {
    name: '200 with invalid JSON',
    responder: answer(200, '{"message": success}'),
    posts: 1,
    message: 'answered 200 but not with {"message": "success"}',
  },
  {
    name: '200 with an empty body',
    responder: answer(200, ''),
    posts: 1,
    message: 'Response body: (empty)',
  },
  {
    name: '200 with a 10 MB body',
    responder: faults.largeBody(200, 10 * MB),
    posts: 1,
    message: '… (cut)',
  },
  {
    name: '500 with a 10 MB body',
    responder: faults.largeBody(500, 10 * MB),
    posts: 1,
    message: 'HTTP 500. Response body: xxxx',
  },
]

describe('deploy against a faulty webhook', () => {
  test.each(cases)(
    '$name: $posts POST(s), a clear failure, in time',
    async (fault) => {
      server.respondWith(fault.responder)
      const budget = fault.hang ? HANG_TIMEOUT_SECONDS : TIMEOUT_SECONDS
      const started = Date.now()
      const run = await runAsGithub('deploy', {
        inputs: {
          'webhook-url': server.url,
          'webhook-token': TOKEN,
          'frontend-image': 'reg.example.com/shop/frontend:1',
          // The faults are the webhook's: the image check is off (its own suite has its faults).
          'verify-images': 'false',
          'timeout-seconds': String(budget),
        },
      })
      const elapsed = Date.now() - started

      expect(run.code).toBe(1)
      expect(server.requests).toHaveLength(fault.posts)
      expect(run.stdout).toContain('::error title=olympe deploy failed::')
      expect(run.stdout).toContain(fault.message)
      // A 10 MB answer is cut to a few KB in the log.
      expect(run.stdout.length).toBeLessThan(20_000)
      const hung = fault.hang ? HANG_TIMEOUT_SECONDS : 0
      expect(elapsed).toBeLessThan((BACKOFF_SECONDS[fault.posts] + hung) * 1000 + START_UP_SLACK_MS)
      expectNoSecrets({ stdout: run.stdout, stderr: run.stderr, ...run.files }, [
        TOKEN,
        server.url,
        HOOK_PATH,
      ])
    },
    40_000,
  )
})
