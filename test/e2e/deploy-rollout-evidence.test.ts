// `live` only with evidence that the app serves this deployment's build, through the deploy
// bundle as the runner runs it. The app is a loopback frontend served as Olympe's nginx serves it
// (version.json, an index.html that loads `main.js?v=<version>`, which the official template
// does not content-hash, and main.js, each with ETag and Last-Modified), switching after the
// webhook's POST; the frontend image, with the labels build-images gives it (the version and the
// served files' digests), is in a registry with a password. Polls are a second apart; the
// assertions are on order and counts (polls, conditional requests, full downloads), never times.
import { describe, expect, test } from '@jest/globals'
import {
  beforeTheCall,
  deploys,
  servedFilesLabel,
  site,
  startAppServer,
  type AppRequest,
  type AppServer,
  type FrontendBuild,
  type Reply,
} from '../helpers/app-server.js'
import { useCleanup, useServers, useStarted } from '../helpers/suite.js'
import { startRegistry } from '../helpers/docker-registry.js'
import { runAsGithub, runCli, type RunResult } from '../helpers/run-action.js'
import { runnerCommands } from '../helpers/runner-commands.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { startWebhookServer } from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

const TOKEN = 'wh-token-5c2e8a1f7b'
const HOOK_PATH = '/hooks/2b4d6f8a0c1e-evidence'
const REGISTRY_PASSWORD = `reg-pw-${Date.now().toString(36)}`
const PREVIEW_PASSWORD = `pv-pw-${Date.now().toString(36)}`

const built = (version: string, code: string, day: number): FrontendBuild => ({
  version,
  code: `// ${code}\nconsole.log(${JSON.stringify(code)})\n${'/* bundled Olympe code */\n'.repeat(2000)}`,
  mtime: new Date(Date.UTC(2026, 10, day, 9, 30)),
})
/** What the app served before: 1.3.0, then the same version rebuilt from older code. */
const BEFORE = built('1.3.0', 'the build before', 20)
const BEFORE_SAME_VERSION = built('1.4.0', 'the build before', 20)
/** This pipeline's build: 1.4.0, new code. */
const THIS = built('1.4.0', 'this build', 22)
/**
 * This build's version served with the old main.js: the build before, half switched (its files
 * written anew, so nginx's ETags, its time and size, are new).
 */
const STALE = built('1.4.0', 'the build before', 21)
/** This build, with a main.js the platform rewrote as the app started. */
const REWRITTEN: FrontendBuild = { ...THIS, code: `${THIS.code}// configured at start\n` }
/** Builds whose index.html also loads vendor.js: this one, and what a half rollout serves. */
const THIS_VENDOR: FrontendBuild = { ...THIS, vendor: '// vendor bundle\n'.repeat(500) }
const OLD_MAIN_NEW_VENDOR: FrontendBuild = {
  ...BEFORE_SAME_VERSION,
  vendor: THIS_VENDOR.vendor ?? '',
}

const runs: RunResult[] = []
const cleanup = useCleanup()
const { app, preview, registry } = useServers(
  {
    app: startAppServer,
    preview: startAppServer,
    registry: () => startRegistry({ user: 'deploy-bot', password: REGISTRY_PASSWORD }),
  },
  cleanup,
  60_000,
)
const webhook = useStarted(
  'webhook',
  () => startWebhookServer(deploys(app, preview), HOOK_PATH),
  cleanup,
)

let images = 0
/** The frontend image of this run, labelled as build-images labels it. */
async function frontendImage(
  build: FrontendBuild,
  labels: 'all' | 'none' = 'all',
): Promise<string> {
  const tag = `main-${++images}`
  await registry.putImage(
    'shop/frontend',
    tag,
    labels === 'none'
      ? {}
      : {
          'org.opencontainers.image.version': build.version,
          'io.olympe.deploy-actions.served-files': servedFilesLabel(build),
        },
  )
  return `${registry.host}/shop/frontend:${tag}`
}

function play(appScript: Parameters<AppServer['play']>[0]): void {
  app.play(appScript)
  preview.play(site(BEFORE))
  webhook.requests.length = 0
}

/** From the poll of version.json numbered `n` on (and for the files asked after it): `to`. */
function fromPoll(
  n: number,
  from: FrontendBuild,
  to: FrontendBuild,
): (request: AppRequest) => FrontendBuild {
  let reached = false
  return (request) => {
    reached ||= (request.poll ?? 0) >= n
    return reached ? to : from
  }
}

/** The deploy step with the registry login and a fast watch: a poll a second. */
async function deploy(
  image: string,
  inputs: Record<string, string> = {},
  run: typeof runAsGithub = runAsGithub,
): Promise<RunResult> {
  const result = await run('deploy', {
    inputs: {
      'webhook-url': webhook.url,
      'webhook-token': TOKEN,
      'frontend-image': image,
      'registry-username': registry.user,
      'registry-password': registry.password,
      'app-url': app.url,
      'promotion-mode': 'auto',
      'poll-seconds': '1',
      'wait-minutes': '0.2',
      ...inputs,
    },
    timeoutMs: 90_000,
  })
  runs.push(result)
  return result
}

/** The app's requests for one file after the deployment, as `<status>` or `<status> if <etag>`. */
function after(server: AppServer, file: string): string[] {
  return server.requests
    .filter((request) => request.afterDeployMs !== undefined && request.path.startsWith(`/${file}`))
    .map(
      (request) =>
        `${request.status ?? ''}${request.headers['if-none-match'] ? ' conditional' : ''}`,
    )
}
const before = (server: AppServer, file: string): string[] =>
  server.requests
    .filter((request) => request.afterDeployMs === undefined && request.path.startsWith(`/${file}`))
    .map((request) => String(request.status))
const polls = (server: AppServer): number =>
  server.requests.filter((request) => request.poll !== undefined).length
const annotations = (run: RunResult, command: string): string[] =>
  runnerCommands(run.stdout)
    .filter((each) => each.command === command)
    .map((each) => each.data)

describe("live means this deployment's build serves", () => {
  test('the version bumped: live once the app serves it; its files asked once it gives this version', async () => {
    play(site(BEFORE, fromPoll(3, BEFORE, THIS)))
    const run = await deploy(await frontendImage(THIS))

    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ rollout: 'live', 'live-version': '1.4.0' })
    // The read before the call, then 1.3.0 on polls 1 and 2, then 1.4.0 twice.
    expect(app.served).toEqual(['1.3.0', '1.3.0', '1.3.0', '1.4.0', '1.4.0'])
    // main.js read before the call, then on the two polls that gave 1.4.0.
    expect(before(app, 'main.js')).toEqual(['200'])
    expect(after(app, 'main.js')).toEqual(['200 conditional', '304 conditional'])
    expect(run.stdout).toContain(
      "Before the call, the app serves 1.3.0: the version tells this build (1.4.0) apart. The files of the served-files label are compared too, so that a file still served as before the call is not taken for this build's.",
    )
    expect(run.summary).toContain('### Olympe rollout: live')
  })

  test('the version unchanged, main.js changed: not live before the switch; one download when it changes', async () => {
    play(site(BEFORE_SAME_VERSION, fromPoll(3, BEFORE_SAME_VERSION, THIS)))
    const run = await deploy(await frontendImage(THIS))

    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ rollout: 'live', 'live-version': '1.4.0' })
    // Before the call: version.json (hashed as it is read) and the two other files, downloaded.
    expect(before(app, 'version.json')).toEqual(['200'])
    expect([...before(app, 'index.html'), ...before(app, 'main.js')]).toEqual(['200', '200'])
    // Then each poll revalidates: 304 until the switch, one download of the new main.js, 304.
    expect(polls(app)).toBe(4)
    expect(after(app, 'main.js')).toEqual([
      '304 conditional',
      '304 conditional',
      '200 conditional',
      '304 conditional',
    ])
    // The new index.html is the same text, with a new ETag (nginx's: time and size): downloaded
    // once to compare, as main.js is.
    expect(after(app, 'index.html')).toEqual([
      '304 conditional',
      '304 conditional',
      '200 conditional',
      '304 conditional',
    ])
    const log = run.stdout
    const waiting = log.indexOf(
      "the app serves 1.4.0 with another build's main.js; waiting for this build.",
    )
    const switched = log.indexOf(
      'the app serves this build: 1.4.0, with index.html, main.js and version.json as built',
    )
    const live = log.indexOf(
      `The app at ${app.url} serves this build: 1.4.0, the version it served before, but with main.js changed to this build's.`,
    )
    expect(waiting).toBeGreaterThan(log.indexOf('::group::Webhook call'))
    expect(switched).toBeGreaterThan(waiting)
    expect(live).toBeGreaterThan(switched)
    expect(run.summary).toContain(
      '| Served-file requests | 10 (8 conditional, 6 answered 304 not modified), 4 download(s) |',
    )
  })

  test('never switches, the version unchanged: never live; only 304s after the call', async () => {
    play(site(BEFORE_SAME_VERSION))
    const run = await deploy(await frontendImage(THIS), { 'wait-minutes': '0.1' })

    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({ rollout: 'timed-out', 'live-version': '1.4.0' })
    expect(before(app, 'main.js')).toEqual(['200'])
    const revalidated = after(app, 'main.js')
    expect(revalidated.length).toBeGreaterThanOrEqual(2)
    expect(new Set(revalidated)).toEqual(new Set(['304 conditional']))
    expect(annotations(run, 'error')).toEqual([
      expect.stringMatching(
        /^The app at .* did not serve this build \(1\.4\.0, with index\.html, main\.js and version\.json as built\) within 'wait-minutes' \(6 s\) \(waited \d+ s; last seen: version 1\.4\.0 with another build's main\.js, status HTTP 200\)\./,
      ),
    ])
    expect(run.summary).toContain('### Not live: timed out')
  })

  test('a backend alone, the frontend the same build: unverified, a warning, never live', async () => {
    play(site(THIS))
    const run = await deploy(await frontendImage(THIS))

    // GitHub has no state between green and red: a warning, and the summary's headline.
    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ rollout: 'unverified', 'live-version': '1.4.0' })
    expect(annotations(run, 'warning')).toEqual([
      expect.stringMatching(
        /^The app already serves 1\.4\.0, the version this deployment brings, with the same index\.html, main\.js and version\.json as this build/,
      ),
      expect.stringMatching(/^Not verified: the app at .* answers with a healthy status/),
    ])
    // Its title, which the annotation shows first: the summary's headline (`:` escaped as %3A).
    expect(
      runnerCommands(run.stdout).find(
        (each) => each.command === 'warning' && each.data.startsWith('Not verified'),
      )?.properties,
    ).toBe('title=Not verified%3A the app already served this build')
    expect(run.summary).toContain('### Not verified: the app already served this build')
    // Two healthy polls, and done: nothing can change.
    expect(polls(app)).toBe(2)
  })

  test('the expected version unknown (no registry login): the app switched, yet not live', async () => {
    play(site(BEFORE, fromPoll(2, BEFORE, THIS)))
    const run = await deploy(await frontendImage(THIS), {
      'registry-username': '',
      'registry-password': '',
    })

    expect(run.code).toBe(0)
    expect(app.served.at(-1)).toBe('1.4.0')
    expect(run.outputs).toMatchObject({ rollout: 'unverified' })
    const warnings = annotations(run, 'warning')
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^The version the app must serve is unknown \(the labels of '.*' could not be read: .*\): nothing can show that the app serves the new build/,
      ),
    )
    expect(warnings.at(-1)).toContain(
      "give the deploy step a registry login ('registry-username' and 'registry-password', read access is enough)",
    )
    expect(run.summary).toContain('### Not verified: the expected version is unknown')
  })

  test('the same on the command line: exit code 80, said', async () => {
    play(site(THIS))
    const run = await deploy(await frontendImage(THIS), {}, runCli)

    expect(run.code).toBe(80)
    expect(run.outputs.rollout).toBe('unverified')
    expect(run.stdout).toContain(
      'Not verified: the app already served this build: exit code 80, which the GitLab templates allow (allow_failure: exit_codes), so that the job passes with warnings.',
    )
  })
})

describe('a manual promotion', () => {
  test('the preview serves this build, then a promotion during the wait: awaiting-promotion seen, then live', async () => {
    play(site(BEFORE, fromPoll(5, BEFORE, THIS)))
    preview.play(site(BEFORE, () => THIS))
    const protectedPreview = preview.url.replace('//', `//preview-bot:${PREVIEW_PASSWORD}@`)
    const run = await deploy(await frontendImage(THIS), {
      'promotion-mode': 'manual',
      'preview-url': protectedPreview,
      'wait-minutes': '0.3',
    })

    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ rollout: 'live', 'live-version': '1.4.0' })
    const log = run.stdout
    const previewed = log.indexOf(
      "the preview serves this build: it awaits a promotion. The app is watched until 'wait-minutes' (18 s) is spent, so that a promotion meanwhile ends live.",
    )
    const live = log.indexOf(`The app at ${app.url} serves 1.4.0: live`)
    expect(previewed).toBeGreaterThan(log.indexOf('::group::Rollout'))
    expect(live).toBeGreaterThan(previewed)
    // The preview: before the call, then until it served this build twice; the app to the end.
    expect(preview.served).toEqual(['1.3.0', '1.4.0', '1.4.0'])
    expect(app.served.slice(-2)).toEqual(['1.4.0', '1.4.0'])
    expect(polls(app)).toBe(6)
    expect(
      preview.requests.every((request) => request.headers.authorization?.startsWith('Basic ')),
    ).toBe(true)
    expect(run.stdout).toContain(`preview-url: http://***@127.0.0.1:`)
  })

  test('the preview serves this build, never promoted: awaiting-promotion, a warning', async () => {
    play(site(BEFORE))
    preview.play(site(BEFORE, () => THIS))
    const run = await deploy(await frontendImage(THIS), {
      'promotion-mode': 'manual',
      'preview-url': preview.url,
      'wait-minutes': '0.1',
    })

    expect(run.code).toBe(0)
    expect(run.outputs.rollout).toBe('awaiting-promotion')
    expect(annotations(run, 'warning')).toEqual([
      expect.stringContaining(
        `the preview at ${preview.url} serves this build (version 1.4.0 with index.html and main.js as built, status HTTP 200). Promote it on the platform once it is validated to go live`,
      ),
    ])
    expect(run.summary).toContain(
      '### Not live: awaiting promotion (the preview serves this build)',
    )
  })

  test("without 'preview-url': awaiting-promotion, saying it cannot tell that from a rollout that never came", async () => {
    play(site(BEFORE))
    const run = await deploy(await frontendImage(THIS), {
      'promotion-mode': 'manual',
      'wait-minutes': '0.1',
    })

    expect(run.code).toBe(0)
    expect(run.outputs.rollout).toBe('awaiting-promotion')
    expect(annotations(run, 'warning')).toEqual([
      expect.stringContaining(
        "or the rollout may never have reached the app; without 'preview-url' (the address where the platform serves the new version until it is promoted) the step cannot tell them apart. Check the deployment on the platform, and promote it there once it is validated. Ask the platform operator whether this environment deploys with no downtime",
      ),
    ])
    expect(run.summary).toContain('### Not live: awaiting promotion')
    const strict = await deploy(await frontendImage(THIS), {
      'promotion-mode': 'manual',
      'wait-minutes': '0.05',
      'require-evidence': 'true',
    })
    expect(strict.code).toBe(1)
    expect(annotations(strict, 'error')[0]).toMatch(
      /'require-evidence' is true, so the step fails\.$/,
    )
  })
})

describe('what the app served before the call, when a read of it failed', () => {
  const unavailable: Reply = { status: 503, body: 'Service Unavailable' }
  const errorPage: Reply = {
    status: 200,
    body: '<!doctype html><title>502 Bad Gateway</title>',
    headers: { 'Content-Type': 'text/html' },
  }

  test.each<[string, Reply | 'hang', string]>([
    ['a 503', unavailable, 'HTTP 503 for version.json'],
    ['an HTML error page', errorPage, 'an HTML page instead of version.json'],
    ['a time-out', 'hang', 'no answer: '],
  ])(
    '%s on every read of version.json: no evidence of a change; the files decide, and a stale app is never live',
    async (_name, reply, said) => {
      // The app already served this version, with older code, and goes on doing so.
      play(beforeTheCall('version.json', reply, site(BEFORE_SAME_VERSION)))
      const run = await deploy(await frontendImage(THIS), { 'wait-minutes': '0.1' })

      expect(run.code).toBe(1)
      expect(run.outputs).toMatchObject({ rollout: 'timed-out', 'live-version': '1.4.0' })
      expectToSay(
        run.stdout,
        `Before the call, the app gives no version: ${said}`,
        "It answered so on every read for a few seconds, so what it serves is unknown and is no evidence of a change; its files tell this build apart (it served another build's main.js), so the watch compares what the app serves with them.",
      )
      // Every file of the label compared after the call: the old main.js, never this build's.
      expect(new Set(after(app, 'main.js'))).toEqual(new Set(['304 conditional']))
      expect(annotations(run, 'error')).toEqual([
        expect.stringMatching(
          /^The app at .* did not serve this build \(1\.4\.0, with index\.html, main\.js and version\.json as built\) within 'wait-minutes' \(6 s\) \(waited \d+ s; last seen: version 1\.4\.0 with another build's main\.js, status HTTP 200\)\./,
        ),
      ])
    },
  )

  test('a 503 once before the call: read again a second later, and the version it gives then tells', async () => {
    let blipped = false
    const switching = site(BEFORE, fromPoll(2, BEFORE, THIS))
    play((request) => {
      if (blipped || request.route !== 'version') return switching(request)
      blipped = true
      return unavailable
    })
    const run = await deploy(await frontendImage(THIS))

    expect(run.code).toBe(0)
    expect(before(app, 'version.json')).toEqual(['503', '200'])
    expect(run.stdout).toContain(
      'Before the call, the app serves 1.3.0: the version tells this build (1.4.0) apart.',
    )
    expect(run.outputs.rollout).toBe('live')
  })

  test('a 503 on every read, no served-files label: the same version is unverified, never live', async () => {
    play(beforeTheCall('version.json', unavailable, site(BEFORE_SAME_VERSION)))
    const run = await deploy(await frontendImage(THIS, 'none'), { 'expected-version': '1.4.0' })

    expect(run.code).toBe(0)
    expect(run.outputs).toMatchObject({ rollout: 'unverified', 'live-version': '1.4.0' })
    expect(annotations(run, 'warning')).toEqual([
      "Before the call, the app gives no version: HTTP 503 for version.json. It answered so on every read for a few seconds, so what it serves is unknown and is no evidence of a change, and without the frontend image's served-files label nothing else can tell this build apart: the watch ends unverified at best. To get evidence, bump the project's version before the images are built (the project template has no script for it: `npm version patch`, or a version set by the pipeline), so that each deployment serves a version of its own; or build the frontend image with build-images, which records in its labels the version and the digests of the files the frontend serves.",
      expect.stringMatching(
        /^Not verified: the app at .* answers with a healthy status \(last seen: version 1\.4\.0, status HTTP 200\), but what it served before the call could not be read \(it kept answering as a restarting app does: HTTP 503 for version\.json\), so nothing shows that 1\.4\.0 is new/,
      ),
    ])
    expect(run.summary).toContain('### Not verified: what the app served before is unknown')
  })

  test("with 'preview-url' and 'require-evidence': a preview that answered 503 before the call is no evidence, the step fails", async () => {
    play(site(BEFORE))
    preview.play(
      beforeTheCall(
        'version.json',
        unavailable,
        site(BEFORE, () => STALE),
      ),
    )
    const run = await deploy(await frontendImage(THIS, 'none'), {
      'expected-version': '1.4.0',
      'promotion-mode': 'manual',
      'preview-url': preview.url,
      'require-evidence': 'true',
      'wait-minutes': '0.1',
    })

    expect(run.code).toBe(1)
    expect(run.outputs.rollout).toBe('unverified')
    expect(annotations(run, 'error')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Not verified: the app at .* did not serve this build within 'wait-minutes' \\(6 s\\), and the promotion mode is manual: the app still serves the build before this deployment \\(last seen: version 1\\.3\\.0, status HTTP 200\\), and the preview at ${preview.url.replace(/\./g, '\\.')} answers \\(version 1\\.4\\.0, status HTTP 200\\), but nothing tells this build from the one it served before the call.* 'require-evidence' is true, so the step fails\\.$`,
        ),
      ),
    ])
  })
})

describe('labelled files: every one compared after the call', () => {
  test('main.js unreadable before the call (503): asked again after it; the old one served is not this build', async () => {
    // Before: index.html without vendor.js, main.js 503. After: this build's index.html and
    // vendor.js, but the old main.js.
    play(
      beforeTheCall(
        'main.js',
        { status: 503 },
        site(BEFORE_SAME_VERSION, () => OLD_MAIN_NEW_VENDOR),
      ),
    )
    const run = await deploy(await frontendImage(THIS_VENDOR), { 'wait-minutes': '0.1' })

    expect(run.code).toBe(1)
    expect(run.outputs.rollout).toBe('timed-out')
    expect(before(app, 'main.js').length).toBeGreaterThan(1)
    expect(new Set(before(app, 'main.js'))).toEqual(new Set(['503']))
    expect(after(app, 'main.js').length).toBeGreaterThanOrEqual(2)
    expect(run.stdout).toContain(
      "the app serves 1.4.0 with another build's main.js; waiting for this build.",
    )
  })

  test('vendor.js new in this build (404 before the call) and still missing after it: not live', async () => {
    const missing = site(BEFORE_SAME_VERSION, () => THIS_VENDOR)
    play((request) =>
      request.path.startsWith('/vendor.js') ? { status: 404, body: 'not found' } : missing(request),
    )
    const run = await deploy(await frontendImage(THIS_VENDOR), { 'wait-minutes': '0.1' })

    expect(run.code).toBe(1)
    expect(run.outputs.rollout).toBe('timed-out')
    expectToSay(
      run.stdout,
      "Before the call, the app serves 1.4.0, this build's version, with another build's index.html and main.js and no vendor.js (HTTP 404)",
      'the app serves 1.4.0 with HTTP 404 for vendor.js; waiting for this build.',
    )
  })

  test('the version changed, main.js still served as before the call: not live', async () => {
    play(site(BEFORE, () => STALE))
    const run = await deploy(await frontendImage(THIS), { 'wait-minutes': '0.1' })

    expect(run.code).toBe(1)
    expect(run.outputs).toMatchObject({ rollout: 'timed-out', 'live-version': '1.4.0' })
    expect(run.stdout).toContain(
      'the app serves 1.4.0 with main.js as served before the call; waiting for this build.',
    )
    expect(annotations(run, 'error')).toEqual([
      expect.stringMatching(
        /^The app at .* did not serve 1\.4\.0 within 'wait-minutes' \(6 s\) \(waited \d+ s; last seen: version 1\.4\.0 with main\.js as served before the call, status HTTP 200\)\./,
      ),
    ])
  })

  test('the version changed, main.js rewritten as the app starts (neither as built nor as before): live, said', async () => {
    play(site(BEFORE, () => REWRITTEN))
    const run = await deploy(await frontendImage(THIS))

    expect(run.code).toBe(0)
    expect(run.outputs.rollout).toBe('live')
    expect(run.stdout).toContain(
      'the app serves this build: 1.4.0, with index.html as built, main.js rewritten (neither as built nor as before the call), status HTTP 200.',
    )
  })
})

describe('a manual promotion, judged on what the app serves at the end', () => {
  test("the preview serves this build while the app answers 502 at the end: fails, 'require-evidence' or not", async () => {
    play((request) =>
      request.afterDeployMs === undefined || (request.poll ?? 0) <= 2
        ? site(BEFORE)(request)
        : { status: 502, body: 'Bad Gateway' },
    )
    preview.play(site(BEFORE, () => THIS))
    const run = await deploy(await frontendImage(THIS), {
      'promotion-mode': 'manual',
      'preview-url': preview.url,
      'require-evidence': 'true',
      'wait-minutes': '0.1',
    })

    expect(run.code).toBe(1)
    expect(run.outputs.rollout).toBe('timed-out')
    expect(annotations(run, 'error')).toEqual([
      expect.stringContaining(
        'The promotion mode is manual, but this is not a pending promotion: until one, the platform keeps serving the build before this deployment, and at the end the app gave no version.',
      ),
    ])
  })
})

// Last on purpose: it reads what every run above printed.
test('no run printed the webhook token, the registry password or the preview credentials', () => {
  expect(runs.length).toBeGreaterThanOrEqual(20)
  const captured: Record<string, string> = {}
  runs.forEach((run, index) => {
    captured[`run ${index} stdout`] = run.stdout
    captured[`run ${index} stderr`] = run.stderr
    for (const [name, text] of Object.entries(run.files)) captured[`run ${index} ${name}`] = text
  })
  expectNoSecrets(captured, [TOKEN, HOOK_PATH, REGISTRY_PASSWORD, PREVIEW_PASSWORD])
})
