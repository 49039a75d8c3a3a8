// The rollout watch, run as the runner runs the deploy bundle, against a loopback app whose
// version.json and status route follow a script that the webhook's POST starts. Polls are a second
// apart and `wait-minutes` a fraction of a minute; assertions are on order and counts, with
// generous upper bounds, never on how long something took.
import { describe, expect, test } from '@jest/globals'
import {
  deploys,
  rollout,
  status,
  version,
  type AppScript,
  type Reply,
} from '../helpers/app-server.js'
import { runAsGithub, type RunResult } from '../helpers/run-action.js'
import { useDeployedApp } from '../helpers/suite.js'
import { runnerCommands } from '../helpers/runner-commands.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { answer } from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

const TOKEN = 'wh-token-3b8d1f6a2c'
const HOOK_PATH = '/hooks/7a1c9e3b5d2f-deploy-key'
const OLD = '1.3.0'
const NEW = '1.4.0'

const { app, webhook } = useDeployedApp({ hookPath: HOOK_PATH })

/**
 * The deploy step with a fast watch: a poll a second, for at most `wait-minutes` (0.2: 12 s). An
 * input given as undefined is left out, so that it takes its default.
 */
function deploy(inputs: Record<string, string | undefined> = {}): Promise<RunResult> {
  const all: Record<string, string | undefined> = {
    'webhook-url': webhook.url,
    'webhook-token': TOKEN,
    'frontend-image': '127.0.0.1:5999/shop/frontend:main-1a2b3c4',
    'verify-images': 'false',
    'app-url': app.url,
    'expected-version': NEW,
    'promotion-mode': 'auto',
    'poll-seconds': '1',
    'wait-minutes': '0.2',
    ...inputs,
  }
  const given = Object.entries(all).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  )
  return runAsGithub('deploy', {
    inputs: Object.fromEntries(given),
    timeoutMs: 90_000,
  })
}

function play(script: AppScript): void {
  app.play(script)
  webhook.requests.length = 0
}

const POSTS = (): number => webhook.requests.filter((request) => request.method === 'POST').length
const versionPolls = (): number =>
  app.requests.filter((request) => request.route === 'version' && request.poll !== undefined).length
const annotations = (run: RunResult, command: string): string[] =>
  runnerCommands(run.stdout)
    .filter((each) => each.command === command)
    .map((each) => each.data)
const secrets = [TOKEN, HOOK_PATH]

describe('the rollout watch, through the deploy bundle', () => {
  test('the new version after a few seconds: waits, then live; one POST', async () => {
    play(rollout(OLD, (request) => version((request.afterDeployMs ?? 0) >= 2500 ? NEW : OLD)))
    const run = await deploy()

    expect(run.code).toBe(0)
    expect(POSTS()).toBe(1)
    expect(run.outputs).toMatchObject({ url: app.url, rollout: 'live', 'live-version': NEW })
    // The read before the call, then polls until two new answers in a row.
    expect(app.served[0]).toBe(OLD)
    expect(app.served.slice(-2)).toEqual([NEW, NEW])
    expect(app.served.indexOf(NEW)).toBeGreaterThan(1)
    expect(versionPolls()).toBeLessThan(20)
    const log = run.stdout
    const waiting = log.indexOf(
      `the app serves ${OLD} (the version before this deployment); waiting for ${NEW}.`,
    )
    const live = log.indexOf(`The app at ${app.url} serves ${NEW}: live`)
    expect(waiting).toBeGreaterThan(log.indexOf('::group::Webhook call'))
    expect(live).toBeGreaterThan(waiting)
    expectToSay(
      run.summary,
      '### Olympe rollout: live',
      `| Versions served | ${OLD}, ${NEW} |`,
      `- [App (live)](${app.url})`,
    )
    expect(run.summary).toMatch(/\| \+\d+ s \| first answer with this build \(1\.4\.0\) \|/)
    // Every poll unique and uncached.
    const queries = app.requests
      .filter((request) => request.route === 'version')
      .map((request) => request.path)
    expect(new Set(queries).size).toBe(queries.length)
    for (const request of app.requests) expect(request.headers['cache-control']).toBe('no-cache')
    expectNoSecrets({ stdout: run.stdout, ...run.files }, secrets)
  })

  test('never flips: fails near wait-minutes, naming both versions', async () => {
    play(rollout(OLD, () => version(OLD)))
    const started = Date.now()
    const run = await deploy({ 'wait-minutes': '0.1' })

    expect(run.code).toBe(1)
    expect(Date.now() - started).toBeGreaterThanOrEqual(6000)
    expect(POSTS()).toBe(1)
    expect(annotations(run, 'error')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^The app at ${app.url.replace(/\./g, '\\.')} did not serve 1\\.4\\.0 within 'wait-minutes' \\(6 s\\) \\(waited \\d+ s; last seen: version 1\\.3\\.0, status HTTP 200\\)\\.`,
        ),
      ),
    ])
    expect(run.outputs).toMatchObject({ rollout: 'timed-out', 'live-version': OLD })
    expectToSay(run.summary, '### Not live: timed out', '### olympe deploy failed')
  })

  test('503 while the pods restart, then the new version: tolerated, said once, live', async () => {
    play(
      rollout(OLD, (request) =>
        (request.poll ?? 0) <= 3 ? { status: 503, body: 'restarting' } : version(NEW),
      ),
    )
    const run = await deploy()

    expect(run.code).toBe(0)
    expect(app.served.slice(1)).toEqual(['HTTP 503', 'HTTP 503', 'HTTP 503', NEW, NEW])
    expect(
      run.stdout.split('HTTP 503 for version.json (tolerated while it restarts)'),
    ).toHaveLength(2)
    expect(run.outputs.rollout).toBe('live')
  })

  test('old and new in turn, then settled: not live before it settles', async () => {
    play(
      rollout(OLD, (request) =>
        (request.poll ?? 0) <= 6 ? version((request.poll ?? 0) % 2 ? NEW : OLD) : version(NEW),
      ),
    )
    const run = await deploy()

    expect(run.code).toBe(0)
    expect(app.served.slice(1)).toEqual([NEW, OLD, NEW, OLD, NEW, OLD, NEW, NEW])
    expect(run.outputs.rollout).toBe('live')
  })

  test('new once, then the old one for good: fails as rolled back', async () => {
    play(rollout(OLD, (request) => version(request.poll === 1 ? NEW : OLD)))
    const run = await deploy()

    expect(run.code).toBe(1)
    expect(app.served.slice(1)).toEqual([NEW, OLD, OLD])
    expect(annotations(run, 'error')).toEqual([
      expect.stringMatching(
        /^The rollout was rolled back: the app at .* served 1\.4\.0 \(first \+\d+ s after the webhook's answer\), then 1\.3\.0 again on 2 polls in a row/,
      ),
    ])
    expect(run.outputs).toMatchObject({ rollout: 'rolled-back', 'live-version': OLD })
  })

  test('the new version with a status 500: fails, naming the status', async () => {
    play(rollout(OLD, () => version(NEW), status(500)))
    const run = await deploy({ 'wait-minutes': '0.1' })

    expect(run.code).toBe(1)
    expect(annotations(run, 'error')).toEqual([expect.stringContaining('(waited ')])
    expect(annotations(run, 'error')[0]).toContain('last seen: version 1.4.0, status HTTP 500')
    expect(run.outputs.rollout).toBe('timed-out')
  })

  test('no status route: said once, the version decides; the route still asked at every poll', async () => {
    play(
      rollout(OLD, (request) => version((request.poll ?? 0) >= 2 ? NEW : OLD), {
        status: 404,
        body: 'not found',
      }),
    )
    const run = await deploy()

    expect(run.code).toBe(0)
    expect(app.requests.filter((request) => request.route === 'status')).toHaveLength(
      versionPolls(),
    )
    expect(run.stdout.split('this install seems to have no status route')).toHaveLength(2)
    expect(run.outputs.rollout).toBe('live')
  })

  test('the status route 404 early, then 500: judged by its last answers, never live', async () => {
    let statusAnswers = 0
    const serving = rollout(OLD, () => version(NEW))
    play((request) =>
      request.route === 'status' && request.afterDeployMs !== undefined
        ? status(statusAnswers++ === 0 ? 404 : 500)
        : serving(request),
    )
    const run = await deploy({ 'wait-minutes': '0.1' })

    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({ rollout: 'timed-out', 'live-version': NEW })
    // Asked beside every version read, not once.
    expect(statusAnswers).toBe(versionPolls())
    expect(statusAnswers).toBeGreaterThan(2)
    const log = run.stdout
    const early = log.indexOf('this install seems to have no status route')
    const failing = log.indexOf(
      `the app serves ${NEW}, the expected version, but status HTTP 500: not live while it does.`,
    )
    expect(early).toBeGreaterThan(0)
    expect(failing).toBeGreaterThan(early)
    expect(annotations(run, 'error')[0]).toContain(`last seen: version ${NEW}, status HTTP 500`)
  })

  test('manual promotion, never promoted: a warning and awaiting-promotion, the step green; what to ask the operator', async () => {
    play(rollout(OLD, () => version(OLD)))
    const run = await deploy({ 'promotion-mode': 'manual', 'wait-minutes': '0.1' })

    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ rollout: 'awaiting-promotion', 'live-version': OLD })
    expect(annotations(run, 'warning')).toEqual([
      `The app at ${app.url} did not serve this build within 'wait-minutes' (6 s), and the promotion mode is manual: the app still serves the build before this deployment (last seen: version ${OLD}, status HTTP 200). The new version may be waiting for someone to promote it on the platform, or the rollout may never have reached the app; without 'preview-url' (the address where the platform serves the new version until it is promoted) the step cannot tell them apart. Check the deployment on the platform, and promote it there once it is validated. Ask the platform operator whether this environment deploys with no downtime (the promotion mode applies only there): if it does, ask for its preview address and give it as 'preview-url', so that the step verifies the new version there; if it does not, the rollout did not reach the app: check the deployment's status.`,
    ])
    // Said once, where it changes the outcome.
    expect(run.stdout.split("without 'preview-url'")).toHaveLength(2)
  })

  test('manual promotion, the app switches: live, and nothing said of the promotion or of a preview', async () => {
    play(rollout(OLD, (request) => version((request.poll ?? 0) >= 2 ? NEW : OLD)))
    const run = await deploy({ 'promotion-mode': 'manual' })

    expect(run.code).toBe(0)
    expect(run.outputs.rollout).toBe('live')
    expect(run.stdout).not.toMatch(/promotion mode|preview-url|promote/i)
    expect(run.summary).not.toMatch(/promotion mode is manual|promote/i)
  })

  test.each<[string, (poll: number) => Reply, string]>([
    [
      'answers 502 at the end',
      (poll) => (poll <= 2 ? version(OLD) : { status: 502, body: 'Bad Gateway' }),
      'The promotion mode is manual, but this is not a pending promotion: until one, the platform keeps serving the build before this deployment, and at the end the app gave no version.',
    ],
    [
      'switched to a third version',
      (poll) => version(poll <= 2 ? OLD : '1.5.0'),
      `At the end it serves 1.5.0, neither this build nor the one it served before the call (${OLD}): another deployment may have replaced this one; check the platform's deployment history.`,
    ],
  ])(
    'manual promotion, an app that %s: fails, not awaiting-promotion',
    async (_name, after, said) => {
      play(rollout(OLD, (request) => after(request.poll ?? 0)))
      const run = await deploy({ 'promotion-mode': 'manual', 'wait-minutes': '0.1' })

      expect(run.code).toBe(1)
      expect(run.outputs.rollout).toBe('timed-out')
      expect(annotations(run, 'warning')).toEqual([])
      expect(annotations(run, 'error')).toEqual([expect.stringContaining(said)])
      expect(run.summary).toContain('### Not live: timed out')
    },
  )

  test("default 'poll-seconds': the app switches after the POST, the verdict on the next two polls", async () => {
    // The app serves the new version from its third poll after the call. With the default
    // 'poll-seconds' (15), polls every 15 s would need 45 s for four, beyond 'wait-minutes' (30 s):
    // the watch polls quickly in its first minute, and confirms on the very next poll.
    play(rollout(OLD, (request) => version((request.poll ?? 0) >= 3 ? NEW : OLD)))
    const run = await deploy({ 'poll-seconds': undefined, 'wait-minutes': '0.5' })

    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ rollout: 'live', 'live-version': NEW })
    expect(app.served).toEqual([OLD, OLD, OLD, NEW, NEW])
    expect(versionPolls()).toBe(4)
    expect(run.stdout).toContain(
      `Watching ${app.url} every 2 s for up to 30 s ('wait-minutes'): live once it serves ${NEW} with a healthy status on 2 polls in a row.`,
    )
    expect(run.summary).toContain('| Polls | 4 in ')
  })

  test('a dry run asks the app nothing; a failed call polls nothing after it', async () => {
    play(rollout(OLD, () => version(NEW)))
    const dry = await deploy({ 'dry-run': 'true' })
    expect(dry.code).toBe(0)
    expect(app.requests).toHaveLength(0)
    expect(dry.outputs).toMatchObject({ rollout: 'not-watched', url: app.url })

    webhook.respondWith(answer(500, { message: 'broken' }))
    try {
      const failed = await deploy()
      expect(failed.code).toBe(1)
      // The read before the call only.
      expect(
        app.requests.map(
          (request) =>
            `${request.route} ${request.afterDeployMs === undefined ? 'before' : 'after'}`,
        ),
      ).toEqual(['version before'])
      expect(failed.outputs).toMatchObject({ status: '500', rollout: 'not-watched' })
    } finally {
      webhook.respondWith(deploys(app))
    }
  })

  test("'wait-minutes: 0': the call only", async () => {
    play(rollout(OLD, () => version(NEW)))
    const run = await deploy({ 'wait-minutes': '0' })
    expect(run.code).toBe(0)
    expect(POSTS()).toBe(1)
    expect(app.requests).toHaveLength(0)
    expect(run.outputs).toMatchObject({ rollout: 'not-watched', 'live-version': '' })
    expect(run.stdout).toContain("The rollout is not watched: 'wait-minutes' is 0.")
  })

  test('a protected app: every poll authenticated, the credentials nowhere', async () => {
    const user = 'preview-bot'
    const password = 'pr3view-Pa55-7x'
    const basic = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
    const locked = rollout(OLD, (request) => version((request.poll ?? 0) >= 2 ? NEW : OLD))
    play((request) => (request.headers.authorization === basic ? locked(request) : { status: 401 }))
    const protectedUrl = app.url.replace('http://', `http://${user}:${password}@`)
    const run = await deploy({ 'app-url': protectedUrl })

    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ url: app.url, rollout: 'live' })
    expect(app.requests.length).toBeGreaterThan(2)
    for (const request of app.requests) expect(request.headers.authorization).toBe(basic)
    expect(run.stdout).toContain(`app-url: http://***@127.0.0.1:`)
    expectNoSecrets({ stdout: run.stdout, stderr: run.stderr, ...run.files }, [
      ...secrets,
      password,
      user,
      basic,
    ])
  })
})
