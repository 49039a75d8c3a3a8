import { describe, expect, test } from '@jest/globals'
import { parseAppUrl, type AppTarget } from '../../../../src/core/deploy/app-url.js'
import {
  POLL_REQUEST_MS,
  readStatus,
  readVersion,
  VERSION_BYTES,
  watchRollout,
  type WatchSettings,
} from '../../../../src/core/deploy/watch.js'
import type { HttpRequest, HttpResponse } from '../../../../src/core/shared/http.js'
import { failure, fakeNetwork, respond, type Answer } from '../../../helpers/fake-registry.js'

function target(raw = 'https://shop.example.com'): AppTarget {
  const parsed = parseAppUrl(raw)
  if ('problem' in parsed) throw new Error(parsed.problem)
  return parsed
}

const json = (body: unknown): HttpResponse => respond(200, {}, JSON.stringify(body))

/** An app whose answers follow the clock: `serve(ms since the watch began)` for version.json. */
function app(
  serve: (ms: number) => Answer,
  status: (ms: number) => Answer = () => respond(200),
): ReturnType<typeof fakeNetwork> {
  const network: ReturnType<typeof fakeNetwork> = fakeNetwork((request) => {
    const ms = network.clock.now().getTime()
    return request.url.pathname.endsWith('/version.json') ? serve(ms) : status(ms)
  })
  return network
}

async function watch(
  network: ReturnType<typeof fakeNetwork>,
  settings: Partial<WatchSettings> = {},
): Promise<{ report: Awaited<ReturnType<typeof watchRollout>>; log: string[] }> {
  const log: string[] = []
  const report = await watchRollout(
    {
      target: target(),
      expected: '1.4.0',
      manualPromotion: false,
      waitMinutes: 1,
      pollSeconds: 15,
      ...settings,
    },
    { http: network.http, clock: network.clock, logger: { info: (line) => log.push(line) } },
  )
  return { report, log }
}

const line = (request: HttpRequest): string => `${request.method} ${request.url.href}`

describe('the poller', () => {
  test('each poll: version.json with a unique query and no-cache, then the status', async () => {
    const network = app((ms) => json({ version: ms >= 30_000 ? '1.4.0' : '1.3.0' }))
    const { report } = await watch(network, {
      target: target('https://ci:s3cret@shop.example.com/app/'),
    })

    expect(report.verdict.outcome).toBe('live')
    expect(report.polls).toBe(4)
    expect(network.waits).toEqual([15_000, 15_000, 15_000])
    const started = (0).toString(36)
    expect(network.requests.map(line)).toEqual([
      `GET https://shop.example.com/app/version.json?olympe-poll=${started}-1`,
      'GET https://shop.example.com/app/OlympeServer/status',
      `GET https://shop.example.com/app/version.json?olympe-poll=${started}-2`,
      'GET https://shop.example.com/app/OlympeServer/status',
      `GET https://shop.example.com/app/version.json?olympe-poll=${started}-3`,
      'GET https://shop.example.com/app/OlympeServer/status',
      `GET https://shop.example.com/app/version.json?olympe-poll=${started}-4`,
      'GET https://shop.example.com/app/OlympeServer/status',
    ])
    for (const request of network.requests) {
      expect(request.headers).toMatchObject({
        'Cache-Control': 'no-cache',
        Pragma: 'no-cache',
        Authorization: `Basic ${Buffer.from('ci:s3cret').toString('base64')}`,
      })
      expect(request.timeoutMs).toBeLessThanOrEqual(POLL_REQUEST_MS)
      expect(request.stopAtLimit).toBe(true)
      expect(request.method).toBe('GET')
    }
    expect(network.requests[0]?.maxBodyBytes).toBe(VERSION_BYTES)
  })

  test('never flips: polls until wait-minutes is spent, the last pause cut to what is left', async () => {
    const network = app(() => json({ version: '1.3.0' }))
    const { report, log } = await watch(network, { waitMinutes: 0.5, pollSeconds: 20 })
    expect(report.verdict.outcome).toBe('timed-out')
    expect(network.waits).toEqual([20_000, 10_000])
    expect(report.waitedMs).toBe(30_000)
    expect(report.polls).toBe(2)
    expect(report.limit).toBe("'wait-minutes' (30 s)")
    expect(log).toEqual(['+0 s: the app serves 1.3.0; waiting for 1.4.0.'])
  })

  test('no status route: asked once, then only version.json', async () => {
    const network = app(
      (ms) => json({ version: ms >= 15_000 ? '1.4.0' : '1.3.0' }),
      () => respond(404),
    )
    const { report } = await watch(network)
    expect(report.verdict.outcome).toBe('live')
    expect(network.requests.map((request) => request.url.pathname)).toEqual([
      '/version.json',
      '/OlympeServer/status',
      '/version.json',
      '/version.json',
    ])
  })

  test('no version: the status is not asked', async () => {
    const network = app(() =>
      failure('refused', 'the server refused the connection (ECONNREFUSED)'),
    )
    const { report, log } = await watch(network, { waitMinutes: 0.25 })
    expect(report.verdict.outcome).toBe('timed-out')
    expect(network.requests.every((request) => request.url.pathname === '/version.json')).toBe(true)
    expect(log).toEqual([
      '+0 s: the app gives no version: no answer: the server refused the connection (ECONNREFUSED) (tolerated while it restarts).',
    ])
  })

  test('a request never waits beyond wait-minutes, and never less than a second', async () => {
    const network = app(() => json({ version: '1.3.0' }))
    await watch(network, { waitMinutes: 0.05, pollSeconds: 1 })
    const timeouts = network.requests.map((request) => request.timeoutMs)
    expect(timeouts[0]).toBe(3000)
    expect(Math.min(...timeouts)).toBeGreaterThanOrEqual(1000)
  })
})

describe('version.json, read', () => {
  const read = async (answer: Answer): Promise<unknown> =>
    readVersion(target(), fakeNetwork(() => answer).http, 1000, 'n')

  test.each<[string, Answer, unknown]>([
    [
      'a version',
      json({ version: ' 1.4.0 ', name: 'shop' }),
      { kind: 'version', version: '1.4.0' },
    ],
    [
      'with a byte order mark',
      respond(200, {}, '\uFEFF{"version":"2.0.0-rc.1"}'),
      { kind: 'version', version: '2.0.0-rc.1' },
    ],
    [
      'an HTML page',
      respond(200, {}, '<!doctype html><title>Starting</title>'),
      { kind: 'none', detail: 'an HTML page instead of version.json', transient: true },
    ],
    [
      'broken JSON',
      respond(200, {}, '{"version":'),
      {
        kind: 'none',
        detail: expect.stringMatching(/^version\.json is not valid JSON: /),
        transient: true,
      },
    ],
    [
      'no version field',
      json({ name: 'shop' }),
      { kind: 'none', detail: "version.json has no 'version' string", transient: false },
    ],
    [
      'a version with a space or a line break',
      json({ version: '1.4.0\n::error::boom' }),
      {
        kind: 'none',
        detail: "version.json's 'version' is not a version (up to 128 visible ASCII characters)",
        transient: false,
      },
    ],
    [
      'cut off at 64 KiB',
      { ...json({ version: '1' }), bodyTruncated: true },
      {
        kind: 'none',
        detail:
          'version.json is larger than 64 KiB, so it was cut off unread (a version file is a few hundred bytes)',
        transient: false,
      },
    ],
    ['503', respond(503), { kind: 'none', detail: 'HTTP 503 for version.json', transient: true }],
    ['502', respond(502), { kind: 'none', detail: 'HTTP 502 for version.json', transient: true }],
    [
      '401',
      respond(401),
      {
        kind: 'none',
        detail:
          "HTTP 401 for version.json (a protected app: give its user and password in 'app-url', as https://user:password@host)",
        transient: false,
      },
    ],
    [
      '404',
      respond(404),
      {
        kind: 'none',
        detail:
          "HTTP 404 for version.json (check that 'app-url' is the address of the app's frontend)",
        transient: false,
      },
    ],
    [
      'a redirect',
      respond(302, { Location: 'https://login.example.com/sso?next=/version.json' }),
      {
        kind: 'none',
        detail:
          "HTTP 302 for version.json, a redirect to 'https://login.example.com' (redirects are not followed: give the address it leads to as 'app-url')",
        transient: false,
      },
    ],
    [
      'refused',
      failure('refused', 'the server refused the connection (ECONNREFUSED)'),
      {
        kind: 'none',
        detail: 'no answer: the server refused the connection (ECONNREFUSED)',
        transient: true,
      },
    ],
    [
      'a poll that times out',
      failure('timeout', 'no complete response within the time allowed'),
      {
        kind: 'none',
        detail: 'no answer: no complete response within the time allowed',
        transient: true,
      },
    ],
    [
      'an unknown host',
      failure('dns', 'the host name could not be resolved (ENOTFOUND)'),
      {
        kind: 'none',
        detail: 'no answer: the host name could not be resolved (ENOTFOUND)',
        transient: false,
      },
    ],
  ])('%s', async (_name, answer, expected) => {
    expect(await read(answer)).toEqual(expected)
  })
})

describe('the status route, read', () => {
  test.each<[string, Answer, unknown]>([
    ['200', respond(200), { kind: 'healthy', status: 200 }],
    ['204', respond(204), { kind: 'healthy', status: 204 }],
    ['404', respond(404), { kind: 'no-route' }],
    ['500', respond(500), { kind: 'unhealthy', detail: 'HTTP 500' }],
    [
      'reset',
      failure('reset', 'the connection was closed'),
      { kind: 'unhealthy', detail: 'no answer (the connection was closed)' },
    ],
  ])('%s', async (_name, answer, expected) => {
    expect(await readStatus(target(), fakeNetwork(() => answer).http, 1000)).toEqual(expected)
  })
})
