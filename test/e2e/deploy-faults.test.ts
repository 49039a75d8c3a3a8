import { beforeAll, describe, expect, test } from '@jest/globals'
import { useCleanup, useStarted } from '../helpers/suite.js'
import { runAsGithub, type RunResult } from '../helpers/run-action.js'
import { startConnectProxy, type ConnectProxy } from '../helpers/connect-proxy.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { makeTlsFiles, type TlsFiles } from '../helpers/tls-certificates.js'
import { answer, faults, startWebhookServer, type Responder } from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

/**
 * The retry policy, row by row, against a fault-injecting webhook on loopback (and a proxy, and
 * a TLS server nobody trusts). For each fault: how many POSTs the server received, how many
 * attempts and which waits the step says it made, and the message the user reads. No assertion
 * on time: a step that hangs is killed by the harness (RUN_LIMIT_MS), which fails the test.
 */
const TOKEN = 'fault-token-55aa66bb'
const HOOK_SEGMENT = 'faults-5e6f7a8b9c0d'
const HOOK_PATH = `/hooks/${HOOK_SEGMENT}`
const FRONTEND = 'reg.example.com/shop/frontend:1'
/** Hangs get a short budget; the others one that leaves room for all three attempts. */
const HANG_TIMEOUT_SECONDS = 3
const TIMEOUT_SECONDS = 30
const RUN_LIMIT_MS = 60_000
const TEST_LIMIT_MS = 90_000
const MB = 1024 * 1024

const CHECK_HISTORY =
  "check the platform's deployment history (or ask the platform operator) before running this step again, so that it is not deployed twice."
const MAY_HAVE_STARTED = `The deployment may or may not have started, and the step did not send the request again: ${CHECK_HISTORY}`
/** After an answer that is not the platform's acceptance. */
const RECEIVED = `The request reached the webhook's server, so the platform may have started the deployment all the same; the step did not send it again: ${CHECK_HISTORY}`
/** 401 and 403: the platform refused the request, which HTTP says was not acted on. */
const REFUSED =
  'The platform refused the request, so it did not start the deployment: run the step again once what the answer names is put right.'
const NOTHING_SENT =
  'The request never reached the platform, so nothing was deployed: run the step again once the webhook can be reached.'
/** 429 and 503 to the last attempt: the server said it did not act. */
const DECLINED =
  'The server answered that it did not act on the request, so nothing was deployed: run the step again once the platform accepts requests.'
const RESET =
  'the connection was closed after the request was sent, before a complete response arrived (ECONNRESET), so the server may have received it'

const cleanup = useCleanup()
const server = useStarted('webhook', () => startWebhookServer(answer(200), HOOK_PATH), cleanup)

function deploy(
  url: string,
  timeoutSeconds: number,
  env: Record<string, string> = {},
): Promise<RunResult> {
  return runAsGithub('deploy', {
    inputs: {
      'webhook-url': url,
      'webhook-token': TOKEN,
      'frontend-image': FRONTEND,
      // The faults are the webhook's: the image check is off (its own suite has its faults).
      'verify-images': 'false',
      'timeout-seconds': String(timeoutSeconds),
    },
    env,
    timeoutMs: RUN_LIMIT_MS,
  })
}

/**
 * What the step said it did: its attempts, and the waits between them. The first POST is not
 * counted aloud (it may be the only one); each retry says its number.
 */
function told(run: RunResult): { attempts: number; waits: string[] } {
  const posts = [...run.stdout.matchAll(/^POST to the deployment webhook(.*)$/gm)].map(
    (match) => match[1] ?? '',
  )
  expect(posts).toEqual(
    posts.map((_, index) => (index === 0 ? '.' : ` again (attempt ${index + 1} of 3).`)),
  )
  return {
    attempts: posts.length,
    waits: [...run.stdout.matchAll(/; retrying in ([^.]+ s(?: \(as Retry-After asked\))?)\./g)].map(
      (match) => match[1] ?? '',
    ),
  }
}

function expectFailedCleanly(run: RunResult, message: string, secrets: string[]): void {
  expect(run.code).toBe(1)
  expectToSay(run.stdout, '::error title=olympe deploy failed::', message)
  expectNoSecrets({ stdout: run.stdout, stderr: run.stderr, ...run.files }, [
    TOKEN,
    HOOK_PATH,
    HOOK_SEGMENT,
    ...secrets,
  ])
}

interface Fault {
  name: string
  responder: Responder
  /** POSTs the server received, and the waits the step said it made. */
  posts: number
  waits: string[]
  message: string
  timeoutSeconds?: number
}

const hang = (name: string, responder: Responder): Fault => ({
  name,
  responder,
  posts: 1,
  waits: [],
  message: `The webhook call did not complete within 'timeout-seconds' (${HANG_TIMEOUT_SECONDS} s). ${MAY_HAVE_STARTED}`,
  timeoutSeconds: HANG_TIMEOUT_SECONDS,
})

/** Never retried: the request reached the server, which may have acted. */
const mayHaveActed: Fault[] = [
  hang('never answers', faults.neverAnswer()),
  hang('stalls after the headers', faults.stallAfterHeaders()),
  hang('stalls in the body', faults.stallInBody()),
  {
    name: 'resets the connection after the whole request was written',
    responder: faults.resetConnection(),
    posts: 1,
    waits: [],
    message: `${RESET}. ${MAY_HAVE_STARTED}`,
  },
  {
    name: 'closes the connection with no answer',
    responder: faults.closeBeforeAnswering(),
    posts: 1,
    waits: [],
    message: `${RESET}. ${MAY_HAVE_STARTED}`,
  },
  {
    name: 'cuts its response after the status line',
    responder: faults.cutAfterStatusLine(),
    posts: 1,
    waits: [],
    message: `${RESET}. ${MAY_HAVE_STARTED}`,
  },
  {
    name: 'cuts its response in the body',
    responder: faults.cutInBody(),
    posts: 1,
    waits: [],
    message: `the connection was closed in the middle of the response. ${MAY_HAVE_STARTED}`,
  },
  {
    name: '502 from a gateway',
    responder: answer(502, 'bad gateway'),
    posts: 1,
    waits: [],
    message: `The webhook answered HTTP 502 (from a gateway, which may have passed the request on to the platform before failing). Response body: bad gateway. ${MAY_HAVE_STARTED}`,
  },
  {
    name: '504 from a gateway',
    responder: answer(504, 'gateway timeout'),
    posts: 1,
    waits: [],
    message: `The webhook answered HTTP 504 (from a gateway, which may have passed the request on to the platform before failing). Response body: gateway timeout. ${MAY_HAVE_STARTED}`,
  },
]

/** Never retried: the application answered, and what it said stands. */
const answered: Fault[] = [
  ['500', answer(500, 'boom'), `The webhook answered HTTP 500. Response body: boom. ${RECEIVED}`],
  [
    '401',
    answer(401, { error: 'bad token' }),
    `The webhook answered HTTP 401 (check the webhook token: WEBHOOK_TOKEN). Response body: {"error":"bad token"}. ${REFUSED}`,
  ],
  [
    '403',
    answer(403, 'no'),
    `The webhook answered HTTP 403 (check the webhook token, WEBHOOK_TOKEN, and whether the platform takes requests only from listed addresses, which the runner's may not be among). Response body: no. ${REFUSED}`,
  ],
  ['404', answer(404, 'no such hook'), 'HTTP 404 (check the webhook address: WEBHOOK_URL)'],
  ['413', answer(413, 'too big'), 'HTTP 413 (the payload is too large for the server)'],
  [
    'a redirect to the same origin',
    answer(308, '', { Location: '/hooks/elsewhere' }),
    'HTTP 308, a redirect to another path on the same host',
  ],
  [
    'a redirect to another origin',
    answer(301, '', { Location: 'https://other.example.org/deploy' }),
    "HTTP 301, a redirect to 'other.example.org'",
  ],
  [
    '200 with HTML',
    answer(200, '<!doctype html><title>Login</title>'),
    'Response body: <!doctype html><title>Login</title>',
  ],
  [
    '200 with invalid JSON',
    answer(200, '{"message": success}'),
    'answered 200 but not with {"message": "success"}',
  ],
  ['200 with an empty body', answer(200, ''), 'Response body: (empty)'],
  ['200 with a 10 MB body', faults.largeBody(200, 10 * MB), '… (cut)'],
  ['500 with a 10 MB body', faults.largeBody(500, 10 * MB), 'HTTP 500. Response body: xxxx'],
].map(([name, responder, message]) => ({
  name: name as string,
  responder: responder as Responder,
  posts: 1,
  waits: [],
  message: message as string,
}))

/** Retried: the server says it did not act (429, 503), honouring Retry-After. */
const askedToComeBack: Fault[] = [
  {
    name: '503 three times: backoff 1 s, then 2 s',
    responder: answer(503, 'unavailable'),
    posts: 3,
    waits: ['1 s', '2 s'],
    message: `The webhook answered HTTP 503 (the service is unavailable). Response body: unavailable. Gave up after 3 attempts. ${DECLINED}`,
  },
  {
    name: '429 with Retry-After: 1',
    responder: answer(429, 'slow down', { 'Retry-After': '1' }),
    posts: 3,
    waits: ['1 s (as Retry-After asked)', '1 s (as Retry-After asked)'],
    message: 'HTTP 429 (too many requests). Response body: slow down. Gave up after 3 attempts.',
  },
  {
    name: '429 without Retry-After: the default backoff',
    responder: answer(429, 'slow down'),
    posts: 3,
    waits: ['1 s', '2 s'],
    message: 'Gave up after 3 attempts.',
  },
  {
    name: '503 with a negative Retry-After: the default backoff',
    responder: answer(503, 'busy', { 'Retry-After': '-5' }),
    posts: 3,
    waits: ['1 s', '2 s'],
    message: 'Gave up after 3 attempts.',
  },
  {
    name: '503 with a malformed Retry-After: the default backoff',
    responder: answer(503, 'busy', { 'Retry-After': 'in a minute' }),
    posts: 3,
    waits: ['1 s', '2 s'],
    message: 'Gave up after 3 attempts.',
  },
  {
    name: '503 with a Retry-After beyond the budget: fails now',
    responder: answer(503, 'maintenance', { 'Retry-After': '3600' }),
    posts: 1,
    waits: [],
    message: `Response body: maintenance. Not retried: waiting 3600 s (as Retry-After asked) would go beyond 'timeout-seconds' (${TIMEOUT_SECONDS} s). ${DECLINED}`,
  },
]

describe('deploy against a faulty webhook: POSTs received, attempts told, message', () => {
  test.each([
    ...mayHaveActed.map((fault) => ({ ...fault, row: 'never retried, may have acted' })),
    ...answered.map((fault) => ({ ...fault, row: 'never retried, answered' })),
    ...askedToComeBack.map((fault) => ({ ...fault, row: 'retried, asked to come back' })),
  ])(
    '$row: $name: $posts POST(s)',
    async (fault) => {
      server.respondWith(fault.responder)
      const run = await deploy(server.url, fault.timeoutSeconds ?? TIMEOUT_SECONDS)
      expect(server.requests).toHaveLength(fault.posts)
      expect(told(run)).toEqual({ attempts: fault.posts, waits: fault.waits })
      expectFailedCleanly(run, fault.message, [server.url])
      // A 10 MB answer is cut to a few KB in the log.
      expect(run.stdout.length).toBeLessThan(30_000)
    },
    TEST_LIMIT_MS,
  )

  test(
    'a 500 once the request was received: no attempt count, and what the platform may have done',
    async () => {
      server.respondWith(answer(500, 'boom'))
      const run = await deploy(server.url, TIMEOUT_SECONDS)
      expect(server.requests).toHaveLength(1)
      const errors = run.stdout.split('\n').filter((line) => line.startsWith('::error'))
      expect(errors).toEqual([
        `::error title=olympe deploy failed::The webhook answered HTTP 500. Response body: boom. ${RECEIVED}`,
      ])
      // No retry follows a 500: nothing anywhere counts attempts.
      expect(`${run.stdout}${run.stderr}${run.summary}`).not.toMatch(/attempt/i)
      expectFailedCleanly(run, RECEIVED, [server.url])
    },
    TEST_LIMIT_MS,
  )

  test(
    "a server that echoes the URL and the token back: masked everywhere, 'message' filled in",
    async () => {
      server.respondWith(faults.echo(422))
      const run = await deploy(server.url, TIMEOUT_SECONDS)
      expect(server.requests).toHaveLength(1)
      expect(run.outputs.status).toBe('422')
      expect(run.outputs.message).toBe('refused *** (***) with Bearer ***')
      expectFailedCleanly(run, 'The webhook answered HTTP 422. Response body: {"message":', [
        server.url,
      ])
    },
    TEST_LIMIT_MS,
  )
})

describe('retried: the request surely never reached the application', () => {
  let tls: TlsFiles
  let proxy: ConnectProxy
  const proxyCleanup = useCleanup()
  beforeAll(async () => {
    tls = proxyCleanup.track('certificates', await makeTlsFiles(['127.0.0.1']))
    proxy = proxyCleanup.track(
      'proxy',
      await startConnectProxy({
        'silent.olympe.test': 'silent',
        'auth.olympe.test': { status: 407 },
      }),
    )
  })

  test(
    'connection refused: 3 attempts, 0 POSTs',
    async () => {
      const closed = await startWebhookServer(answer(200), HOOK_PATH)
      await closed.stop()
      const run = await deploy(closed.url, TIMEOUT_SECONDS)
      expect(told(run)).toEqual({ attempts: 3, waits: ['1 s', '2 s'] })
      expectFailedCleanly(
        run,
        `the server refused the connection (ECONNREFUSED). Gave up after 3 attempts. ${NOTHING_SENT}`,
        [closed.url],
      )
    },
    TEST_LIMIT_MS,
  )

  test(
    'DNS failure: 3 attempts, 0 POSTs',
    async () => {
      const url = `https://webhook.no-such-host.invalid${HOOK_PATH}`
      const run = await deploy(url, TIMEOUT_SECONDS)
      expect(told(run)).toEqual({ attempts: 3, waits: ['1 s', '2 s'] })
      expectFailedCleanly(
        run,
        `the host name could not be resolved (ENOTFOUND). Gave up after 3 attempts. ${NOTHING_SENT}`,
        [url],
      )
    },
    TEST_LIMIT_MS,
  )

  test(
    'TLS handshake failure (an untrusted certificate): 3 connections, 0 POSTs, NODE_EXTRA_CA_CERTS named',
    async () => {
      const untrusted = await startWebhookServer(answer(200), { path: HOOK_PATH, tls })
      try {
        const run = await deploy(untrusted.url, TIMEOUT_SECONDS)
        expect(untrusted.requests).toHaveLength(0)
        expect(untrusted.connections()).toBe(3)
        expect(told(run)).toEqual({ attempts: 3, waits: ['1 s', '2 s'] })
        expectFailedCleanly(run, 'NODE_EXTRA_CA_CERTS environment variable of the step', [
          untrusted.url,
        ])
        expect(run.stdout).toContain(`Gave up after 3 attempts. ${NOTHING_SENT}`)
      } finally {
        await untrusted.stop()
      }
    },
    TEST_LIMIT_MS,
  )

  test(
    'connect time-out (a proxy that never answers CONNECT): no socket ever made, retried while time is left',
    async () => {
      // timeout-seconds 6: each connection gets 2 s; after the second, 1 s is left, less than
      // the 2 s backoff.
      const url = `https://silent.olympe.test${HOOK_PATH}`
      const before = proxy.tunnels.length
      const run = await deploy(url, 6, { HTTPS_PROXY: proxy.url })
      expect(proxy.tunnels.length - before).toBe(2)
      expect(told(run)).toEqual({ attempts: 2, waits: ['1 s'] })
      expectFailedCleanly(
        run,
        `no connection to the server could be made in time (through the proxy, when one is set). Not retried: waiting 2 s would go beyond 'timeout-seconds' (6 s). ${NOTHING_SENT}`,
        [url],
      )
    },
    TEST_LIMIT_MS,
  )

  test(
    'a proxy that answers CONNECT with 502 (no route to the host): retried like a refused connection',
    async () => {
      const url = `https://unrouted.olympe.test${HOOK_PATH}`
      const before = proxy.tunnels.length
      const run = await deploy(url, TIMEOUT_SECONDS, { HTTPS_PROXY: proxy.url })
      expect(proxy.tunnels.length - before).toBe(3)
      expect(told(run)).toEqual({ attempts: 3, waits: ['1 s', '2 s'] })
      expectFailedCleanly(
        run,
        `opened no tunnel to the server (it answered 502); check the proxy settings, or list the host in NO_PROXY. Gave up after 3 attempts. ${NOTHING_SENT}`,
        [url],
      )
    },
    TEST_LIMIT_MS,
  )

  test(
    'a proxy that answers CONNECT with 407: its configuration, not retried',
    async () => {
      const url = `https://auth.olympe.test${HOOK_PATH}`
      const before = proxy.tunnels.length
      const run = await deploy(url, TIMEOUT_SECONDS, { HTTPS_PROXY: proxy.url })
      expect(proxy.tunnels.length - before).toBe(1)
      expect(told(run)).toEqual({ attempts: 1, waits: [] })
      expectFailedCleanly(run, `(it answered 407); check the proxy settings`, [url])
      expect(run.stdout).toContain(NOTHING_SENT)
    },
    TEST_LIMIT_MS,
  )
})
