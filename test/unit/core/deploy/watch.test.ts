import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { parseAppUrl, type AppTarget } from '../../../../src/core/deploy/app-url.js'
import type { Evidence } from '../../../../src/core/deploy/evidence.js'
import { ServedFilesReader } from '../../../../src/core/deploy/served-files-reader.js'
import {
  POLL_REQUEST_MS,
  readStatus,
  readVersion,
  VERSION_BYTES,
  watchRollout,
  type WatchedTarget,
  type WatchSettings,
} from '../../../../src/core/deploy/watch.js'
import type { HttpRequest, HttpResponse } from '../../../../src/core/shared/http.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { failure, fakeNetwork, respond, type Answer } from '../../../helpers/fake-registry.js'

function target(raw = 'https://shop.example.com'): AppTarget {
  const parsed = parseAppUrl(raw)
  if (isProblem(parsed)) throw new Error(parsed.problem)
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

interface Watch extends Partial<Omit<WatchSettings, 'app' | 'preview'>> {
  target?: AppTarget
  expected?: string
  /** What the app (and the preview) served before the call: 1.3.0 unless said. */
  before?: string
  evidence?: Evidence
  preview?: AppTarget
}

async function watch(
  network: ReturnType<typeof fakeNetwork>,
  settings: Watch = {},
): Promise<{ report: Awaited<ReturnType<typeof watchRollout>>; log: string[] }> {
  const log: string[] = []
  const {
    target: app = target(),
    expected = '1.4.0',
    evidence = VERSION,
    preview,
    ...rest
  } = settings
  const before = 'before' in settings ? settings.before : '1.3.0'
  const watched = (address: AppTarget): WatchedTarget => ({
    target: address,
    evidence,
    reader: new ServedFilesReader(address, network.http),
    ...(before !== undefined ? { before } : {}),
  })
  const report = await watchRollout(
    {
      app: watched(app),
      ...(preview ? { preview: watched(preview) } : {}),
      build: { version: expected },
      manualPromotion: false,
      waitMinutes: 1,
      pollSeconds: 15,
      ...rest,
    },
    { http: network.http, clock: network.clock, logger: { info: (line) => log.push(line) } },
  )
  return { report, log }
}

const VERSION: Evidence = { kind: 'version' }

const line = (request: HttpRequest): string => `${request.method} ${request.url.href}`
/** `count` polls, each asking `asked` in this order. */
const polls = (count: number, ...asked: string[]): string[] =>
  Array.from({ length: count }, () => asked).flat()

describe('the poller', () => {
  test('each poll: version.json with a unique query and no-cache, then the status', async () => {
    const network = app((ms) => json({ version: ms >= 4000 ? '1.4.0' : '1.3.0' }))
    const { report } = await watch(network, {
      target: target('https://ci:s3cret@shop.example.com/app/'),
    })

    expect(report.verdict.outcome).toBe('live')
    expect(report.polls).toBe(4)
    expect(network.waits).toEqual([2000, 2000, 2000])
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
    const { report, log } = await watch(network, { waitMinutes: 1.75, pollSeconds: 20 })
    expect(report.verdict).toMatchObject({ outcome: 'timed-out', ending: 'previous' })
    // Every 2 s for the first minute (+0 s to +1 min), then every 'poll-seconds' to +1 min 45 s.
    expect(network.waits).toEqual([...Array<number>(30).fill(2000), 20_000, 20_000, 5000])
    expect(report.waitedMs).toBe(105_000)
    expect(report.polls).toBe(33)
    expect(report.limit).toBe("'wait-minutes' (1 min 45 s)")
    expect(log).toEqual([
      '+0 s: the app serves 1.3.0 (the version before this deployment); waiting for 1.4.0.',
      '+1 min: still waiting for this build, 45 s left; the app: version 1.3.0, status HTTP 200.',
    ])
  })

  test('no status route: asked at every poll all the same, judged by its last answers', async () => {
    const network = app(
      (ms) => json({ version: ms >= 4000 ? '1.4.0' : '1.3.0' }),
      (ms) => respond(ms >= 4000 && ms < 6000 ? 500 : 404),
    )
    const { report, log } = await watch(network)
    expect(report.verdict.outcome).toBe('live')
    expect(network.requests.map((request) => request.url.pathname)).toEqual(
      polls(5, '/version.json', '/OlympeServer/status'),
    )
    expect(log).toEqual([
      "+0 s: the app's /OlympeServer/status answers HTTP 404: this install seems to have no status route, so the version alone decides while it answers so (it is asked at every poll).",
      '+0 s: the app serves 1.3.0 (the version before this deployment); waiting for 1.4.0.',
      '+4 s: the app serves 1.4.0, the expected version, but status HTTP 500: not live while it does.',
      '+6 s: the app serves 1.4.0, the expected version, no status route.',
      '+8 s: live: this build (1.4.0) served with a healthy status on 2 polls in a row.',
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

describe('an answer as soon as the app serves the build', () => {
  // The clock is the fake network's: it moves only when the watch pauses, so each case is exact.
  const switching = (switchMs: number): ReturnType<typeof fakeNetwork> =>
    app((ms) => json({ version: ms >= switchMs ? '1.4.0' : '1.3.0' }))

  test.each([1000, 7000, 30_500, 59_000])(
    "the app switches %i ms after the webhook's answer, in the first minute: the verdict on the second poll that sees it, 2 s after the first",
    async (switchMs) => {
      const network = switching(switchMs)
      const { report } = await watch(network, { waitMinutes: 30 })
      const firstNew = Math.ceil(switchMs / 2000) * 2000
      expect(report.verdict.outcome).toBe('live')
      expect(report.timeline).toContainEqual({
        atMs: firstNew,
        text: 'first answer with this build (1.4.0)',
      })
      expect(report.verdict.atMs).toBe(firstNew + 2000)
      expect(report.verdict.atMs - switchMs).toBeLessThanOrEqual(5000)
      expect(network.waits.every((ms) => ms === 2000)).toBe(true)
      expect(report.polls).toBe(firstNew / 2000 + 2)
    },
  )

  test("after the first minute: every 'poll-seconds', and the confirmation 2 s after the first new answer", async () => {
    const network = switching(75_000)
    const { report } = await watch(network, { waitMinutes: 30 })
    expect(network.waits).toEqual([...Array<number>(30).fill(2000), 15_000, 2000])
    expect(report.verdict).toMatchObject({ outcome: 'live', atMs: 77_000 })
  })

  test('at most one poll a second on average, several files per poll included', async () => {
    const network = app(() => json({ version: '1.4.0' }))
    const files: Evidence = {
      kind: 'files',
      paths: ['version.json', 'index.html', 'main.js'],
      before: {},
      differ: ['main.js'],
    }
    const { report } = await watch(network, {
      waitMinutes: 10,
      evidence: files,
      build: { version: '1.4.0', files: { 'main.js': `sha256:${'b'.repeat(64)}` } },
    })
    expect(report.verdict.outcome).toBe('timed-out')
    const versionReads = network.requests.filter((request) =>
      request.url.pathname.endsWith('/version.json'),
    )
    expect(versionReads).toHaveLength(report.polls)
    // 31 polls in the first minute (+0 s to +1 min), then one every 15 s (+1 min 15 s to +9 min 45 s).
    expect(report.polls).toBe(31 + 35)
    expect(report.polls).toBeLessThanOrEqual(report.waitedMs / 1000)
    expect(network.requests.length).toBeGreaterThan(3 * report.polls)
  })

  /** 1.4.0 from +4 s, 1.3.0 again from +6 s, and from `backUntilMs` on 1.4.0 for good. */
  const rolling = (backUntilMs: number): ReturnType<typeof fakeNetwork> =>
    app((ms) =>
      json({ version: ms >= 4000 && (ms < 6000 || ms >= backUntilMs) ? '1.4.0' : '1.3.0' }),
    )

  test("a rolling update's old answers for less than 'poll-seconds': no roll-back, then live", async () => {
    const { report } = await watch(rolling(16_000), { waitMinutes: 2 })
    expect(report.verdict).toMatchObject({ outcome: 'live', atMs: 18_000 })
  })

  test("the old build for 'poll-seconds' after this one: rolled back", async () => {
    const { report } = await watch(rolling(Infinity), { waitMinutes: 2 })
    // Back from +6 s; the first poll 15 s later is at +22 s.
    expect(report.verdict).toMatchObject({
      outcome: 'rolled-back',
      atMs: 22_000,
      back: { version: '1.3.0', sinceMs: 6000, polls: 9 },
    })
  })
})

describe('progress while waiting', () => {
  test('a line at least once a minute with nothing new: what is served, the time left', async () => {
    const network = app(() => json({ version: '1.3.0' }))
    const { log } = await watch(network, { waitMinutes: 2.5 })
    expect(network.waits).toEqual([
      ...Array<number>(30).fill(2000),
      ...Array<number>(6).fill(15_000),
    ])
    expect(log).toEqual([
      '+0 s: the app serves 1.3.0 (the version before this deployment); waiting for 1.4.0.',
      '+1 min: still waiting for this build, 1 min 30 s left; the app: version 1.3.0, status HTTP 200.',
      '+2 min: still waiting for this build, 30 s left; the app: version 1.3.0, status HTTP 200.',
    ])
  })

  test('polls 4 minutes apart: the pause is cut to say so every minute', async () => {
    const network = app(() => json({ version: '1.3.0' }))
    const { log, report } = await watch(network, { waitMinutes: 5, pollSeconds: 240 })
    // Quick polls for a minute (31), then one 4 minutes later: at the deadline, so none.
    expect(report.polls).toBe(31)
    expect(network.waits).toEqual([...Array<number>(30).fill(2000), 60_000, 60_000, 60_000, 60_000])
    expect(log.map((line) => line.replace(/;.*/, ''))).toEqual([
      '+0 s: the app serves 1.3.0 (the version before this deployment)',
      '+1 min: still waiting for this build, 4 min left',
      '+2 min: still waiting for this build, 3 min left',
      '+3 min: still waiting for this build, 2 min left',
      '+4 min: still waiting for this build, 1 min left',
    ])
  })
})

describe("this build's files, when the version does not tell", () => {
  const BUILT = 'console.log("new build")\n'
  const OLD = 'console.log("old build")\n'
  const sha = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`
  const FILES: Evidence = {
    kind: 'files',
    paths: ['main.js'],
    before: { 'main.js': { kind: 'digest', digest: sha(OLD) } },
    differ: ['main.js'],
  }

  /** version.json at 1.4.0 all along; main.js as nginx serves it, the new one from `switchMs`. */
  function nginx(switchMs: number): ReturnType<typeof fakeNetwork> {
    const network: ReturnType<typeof fakeNetwork> = fakeNetwork((request) => {
      const now = network.clock.now().getTime()
      if (request.url.pathname.endsWith('/version.json')) return json({ version: '1.4.0' })
      if (!request.url.pathname.endsWith('/main.js')) return respond(200)
      const body = now >= switchMs ? BUILT : OLD
      const etag = `"${now >= switchMs ? '65a1' : '64f0'}-${body.length.toString(16)}"`
      if (request.headers['If-None-Match'] === etag) return respond(304, { ETag: etag })
      return respond(200, { ETag: etag, 'Last-Modified': 'Mon, 01 Jan 2024 00:00:00 GMT' }, body)
    })
    return network
  }

  test('conditional requests: a download when main.js changes, a 304 otherwise; live on the new one', async () => {
    const network = nginx(4000)
    const reader = new ServedFilesReader(target(), network.http)
    const log: string[] = []
    const report = await watchRollout(
      {
        app: { target: target(), evidence: FILES, reader, before: '1.4.0' },
        build: { version: '1.4.0', files: { 'main.js': sha(BUILT) } },
        manualPromotion: false,
        waitMinutes: 1,
        pollSeconds: 15,
      },
      { http: network.http, clock: network.clock, logger: { info: (line) => log.push(line) } },
    )
    expect(report.verdict.outcome).toBe('live')
    expect(report.polls).toBe(4)
    const scripts = network.requests.filter((request) => request.url.pathname === '/main.js')
    expect(scripts.map((request) => request.headers['If-None-Match'] ?? 'none')).toEqual([
      'none',
      '"64f0-19"',
      '"64f0-19"',
      '"65a1-19"',
    ])
    expect(scripts[0]?.headers).toMatchObject({ 'Accept-Encoding': 'identity' })
    expect(
      scripts.every((request) => request.hashBody === true && request.maxBodyBytes === 0),
    ).toBe(true)
    expect(report.files.app).toEqual({ requests: 4, conditional: 3, notModified: 2, downloads: 2 })
    expect(log).toEqual([
      "+0 s: the app serves 1.4.0 with another build's main.js; waiting for this build.",
      '+4 s: the app serves this build: 1.4.0, with main.js as built, status HTTP 200.',
      '+6 s: live: this build (1.4.0) served with a healthy status on 2 polls in a row.',
    ])
  })

  test('another version: its files are not asked', async () => {
    const network = nginx(0)
    const { report } = await watch(network, {
      evidence: FILES,
      expected: '1.5.0',
      waitMinutes: 0.5,
    })
    expect(report.verdict.outcome).toBe('timed-out')
    expect(network.requests.some((request) => request.url.pathname === '/main.js')).toBe(false)
  })
})

describe('a manual promotion with a preview', () => {
  const PREVIEW = 'https://preview.shop.example.com'
  /** The app switches at `promotedMs`, the preview at `previewMs`. */
  function platform(previewMs: number, promotedMs: number): ReturnType<typeof fakeNetwork> {
    const network: ReturnType<typeof fakeNetwork> = fakeNetwork((request) => {
      const now = network.clock.now().getTime()
      if (!request.url.pathname.endsWith('/version.json')) return respond(200)
      const switched = request.url.host === 'preview.shop.example.com' ? previewMs : promotedMs
      return json({ version: now >= switched ? '1.4.0' : '1.3.0' })
    })
    return network
  }
  const hosts = (network: ReturnType<typeof fakeNetwork>): string[] =>
    network.requests
      .filter((request) => request.url.pathname.endsWith('/version.json'))
      .map((request) => request.url.host.split('.')[0] ?? '')

  test('the preview serves it, then a promotion during the wait: live', async () => {
    const network = platform(3000, 9000)
    const { report, log } = await watch(network, {
      preview: target(PREVIEW),
      manualPromotion: true,
      waitMinutes: 2,
    })
    expect(report.verdict.outcome).toBe('live')
    expect(report.preview?.state).toBe('this-build')
    // The preview until it served this build twice; the app until it did too.
    expect(hosts(network)).toEqual([...polls(4, 'shop', 'preview'), 'shop', 'shop', 'shop'])
    expect(log).toEqual([
      '+0 s: the app serves 1.3.0 (the version before this deployment); waiting for 1.4.0.',
      '+0 s: the preview serves 1.3.0 (the version before this deployment); waiting for 1.4.0.',
      '+4 s: the preview serves 1.4.0, the expected version, status HTTP 200.',
      '+6 s: live: this build (1.4.0) served with a healthy status on 2 polls in a row.',
      "+6 s: the preview serves this build: it awaits a promotion. The app is watched until 'wait-minutes' (2 min) is spent, so that a promotion meanwhile ends live.",
      '+10 s: the app serves 1.4.0, the expected version, status HTTP 200.',
      '+12 s: live: this build (1.4.0) served with a healthy status on 2 polls in a row.',
    ])
  })

  test('the preview serves it, never promoted: awaiting promotion at the end of the wait', async () => {
    const network = platform(0, Infinity)
    const { report } = await watch(network, {
      preview: target(PREVIEW),
      manualPromotion: true,
      waitMinutes: 1,
    })
    expect(report.verdict).toMatchObject({ outcome: 'awaiting-promotion', preview: 'this-build' })
    expect(report.waitedMs).toBe(60_000)
    expect(hosts(network).filter((host) => host === 'preview')).toHaveLength(2)
  })

  test('the preview never serves it: timed out', async () => {
    const network = platform(Infinity, Infinity)
    const { report } = await watch(network, {
      preview: target(PREVIEW),
      manualPromotion: true,
      waitMinutes: 0.5,
    })
    expect(report.verdict).toMatchObject({ outcome: 'timed-out', preview: 'not-this-build' })
  })
})

describe('version.json, read', () => {
  const read = async (answer: Answer): Promise<unknown> =>
    readVersion(target(), fakeNetwork(() => answer).http, 1000, 'n')

  test.each<[string, Answer, unknown]>([
    [
      'a version',
      json({ version: ' 1.4.0 ', name: 'shop' }),
      // With the digest of the file as served, for when it is one of this build's files.
      {
        kind: 'version',
        version: '1.4.0',
        digest: `sha256:${createHash('sha256')
          .update(JSON.stringify({ version: ' 1.4.0 ', name: 'shop' }))
          .digest('hex')}`,
      },
    ],
    [
      'with a byte order mark',
      respond(200, {}, '\uFEFF{"version":"2.0.0-rc.1"}'),
      { kind: 'version', version: '2.0.0-rc.1', digest: expect.stringMatching(/^sha256:/) },
    ],
    [
      'compressed: no digest, which would not be of the file as built',
      respond(200, { 'Content-Encoding': 'gzip' }, '{"version":"1.4.0"}'),
      { kind: 'version', version: '1.4.0' },
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
        nothing: true,
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
        nothing: true,
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
