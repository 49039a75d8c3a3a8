// The rollout watch, run as the runner runs the deploy bundle, against a loopback app whose
// version.json and status route follow a script that the webhook's POST starts. Polls are a second
// apart and `wait-minutes` a fraction of a minute; assertions are on order and counts, with
// generous upper bounds, never on how long something took.
import { describe, expect, test } from '@jest/globals'
import {
  deploys,
  rollout,
  status,
  useDeployedApp,
  version,
  type AppScript,
} from '../helpers/app-server.js'
import { runAsGithub, type RunResult } from '../helpers/run-action.js'
import { runnerCommands } from '../helpers/runner-commands.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { answer } from '../helpers/webhook-server.js'

const TOKEN = 'wh-token-3b8d1f6a2c'
const HOOK_PATH = '/hooks/7a1c9e3b5d2f-deploy-key'
const OLD = '1.3.0'
const NEW = '1.4.0'

const { app, webhook } = useDeployedApp({ hookPath: HOOK_PATH })

/** The deploy step with a fast watch: a poll a second, for at most `wait-minutes` (0.2: 12 s). */
function deploy(inputs: Record<string, string> = {}): Promise<RunResult> {
  return runAsGithub('deploy', {
    inputs: {
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
    },
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
    expect(run.summary).toContain('### Olympe rollout: live')
    expect(run.summary).toContain(`| Versions served | ${OLD}, ${NEW} |`)
    expect(run.summary).toContain(`- [App (live)](${app.url})`)
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
    expect(run.summary).toContain('### Not live: timed out')
    expect(run.summary).toContain('### olympe deploy failed')
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

  test('no status route: said once, the version decides', async () => {
    play(
      rollout(OLD, (request) => version((request.poll ?? 0) >= 2 ? NEW : OLD), {
        status: 404,
        body: 'not found',
      }),
    )
    const run = await deploy()

    expect(run.code).toBe(0)
    expect(app.requests.filter((request) => request.route === 'status')).toHaveLength(1)
    expect(run.stdout.split('this install has no status route')).toHaveLength(2)
    expect(run.outputs.rollout).toBe('live')
  })

  test('manual promotion, never promoted: a warning and awaiting-promotion, the step green', async () => {
    play(rollout(OLD, () => version(OLD)))
    const run = await deploy({ 'promotion-mode': 'manual', 'wait-minutes': '0.1' })

    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ rollout: 'awaiting-promotion', 'live-version': OLD })
    expect(annotations(run, 'warning')).toEqual([
      expect.stringContaining(
        'and the promotion mode is manual: the new version may be waiting for someone to promote it on the platform',
      ),
    ])
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
