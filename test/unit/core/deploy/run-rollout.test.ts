// The deploy core with the rollout watch: the webhook, the registry and the app played behind the
// HttpClient port on one clock that advances only when the step sleeps.
import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import type { DeployInputName } from '../../../../src/core/deploy/definition.js'
import type { HttpRequest, HttpResponse } from '../../../../src/core/shared/http.js'
import type { StepEnd } from '../../../../src/core/shared/step-end.js'
import { fakeNetwork, respond, type Answer } from '../../../helpers/fake-registry.js'
import { checkAndRunDeploy, deployPorts, type DeployRecord } from '../../../helpers/unit-fakes.js'
import { expectToSay } from '../../../helpers/assertions.js'

const sha = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`
/** The template's main.js is not content-hashed: a new build with the same version changes it. */
const NEW_JS = 'console.log("this build")\n'
const OLD_JS = 'console.log("the build before")\n'
const LABELS = {
  'org.opencontainers.image.version': '1.4.0',
  'io.olympe.deploy-actions.served-files': JSON.stringify({ 'main.js': sha(NEW_JS) }),
}

/** The registry r.io, open, holding r.io/shop/frontend:1 with these labels. */
function registry(labels: Record<string, string>): (request: HttpRequest) => Answer {
  const config = JSON.stringify({ config: { Labels: labels } })
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { digest: sha(config) },
    layers: [],
  })
  return (request) => {
    if (request.url.pathname === '/v2/shop/frontend/manifests/1')
      return respond(200, { 'Docker-Content-Digest': sha(manifest) }, manifest)
    if (request.url.pathname === `/v2/shop/frontend/blobs/${sha(config)}`)
      return respond(200, {}, config)
    return respond(404)
  }
}

const version = (value: string): HttpResponse =>
  respond(200, {}, JSON.stringify({ version: value }))

/** main.js as nginx serves it: its ETag changes with the file, a matching If-None-Match is a 304. */
function script(body: string, request: HttpRequest): HttpResponse {
  const etag = `"${sha(body).slice(7, 15)}-${body.length.toString(16)}"`
  return request.headers['If-None-Match'] === etag
    ? respond(304, { ETag: etag })
    : respond(200, { ETag: etag }, body)
}

interface Run extends DeployRecord {
  /** Every request, in order, as `METHOD host path`. */
  requests: string[]
  end?: StepEnd
  error?: Error
}

/** What the app (or the preview) serves at `ms` since the step began. */
type App = (ms: number, request: HttpRequest) => Answer

/** The app serves `app(ms since the step began)`; its status route answers 200. */
async function deploy(
  inputs: Partial<Record<DeployInputName, string>>,
  app: App = () => version('1.3.0'),
  options: { webhook?: Answer; labels?: Record<string, string>; preview?: App } = {},
): Promise<Run> {
  const requests: string[] = []
  const images = registry(options.labels ?? LABELS)
  const network: ReturnType<typeof fakeNetwork> = fakeNetwork((request) => {
    requests.push(`${request.method} ${request.url.host} ${request.url.pathname}`)
    const now = network.clock.now().getTime()
    if (request.url.host === 'r.io') return images(request)
    if (request.url.host === 'h.example')
      return options.webhook ?? respond(200, {}, '{"message":"success"}')
    if (request.url.pathname.endsWith('/OlympeServer/status')) return respond(200)
    if (request.url.host === 'preview.shop.example.com')
      return (options.preview ?? app)(now, request)
    return app(now, request)
  })
  const ports = deployPorts(network.http, network.clock)
  const { outputs, info, warnings, summaries } = ports
  const run: Run = { outputs, requests, info, warnings, summaries }
  const raw: Partial<Record<DeployInputName, string>> = {
    'frontend-image': 'r.io/shop/frontend:1',
    'app-url': 'https://shop.example.com',
    'promotion-mode': 'auto',
    'poll-seconds': '5',
    'wait-minutes': '1',
    ...inputs,
  }
  try {
    run.end = await checkAndRunDeploy(raw, ports)
  } catch (error) {
    run.error = error as Error
  }
  return run
}

const POST = 'POST h.example /deploy/5e6f7a8b9c0d'
const VERSION = 'GET shop.example.com /version.json'
const STATUS = 'GET shop.example.com /OlympeServer/status'
const SCRIPT = 'GET shop.example.com /main.js'
// One GET resolves the image; its labels are read from that manifest's config blob.
const LABEL_READ = [
  'GET r.io /v2/shop/frontend/manifests/1',
  expect.stringMatching(/^GET r\.io \/v2\/shop\/frontend\/blobs\/sha256:/),
]
/** `count` polls, each asking `asked` in this order. */
const polls = (count: number, ...asked: string[]): string[] =>
  Array.from({ length: count }, () => asked).flat()
/** The run ended live at `liveVersion`, its summary naming `evidence` as what told this build apart. */
function expectLive(run: Run, liveVersion: string, evidence: string): void {
  expect(run.outputs).toMatchObject({ rollout: 'live', 'live-version': liveVersion })
  expect(run.summaries[1]?.rows).toContainEqual(['Evidence', evidence])
}

const FROM_LABEL = "the org.opencontainers.image.version label of 'r.io/shop/frontend:1'"

describe('deploy, then watch the rollout', () => {
  test("the expected version from the frontend image's label; live once it serves it twice", async () => {
    const run = await deploy({}, (ms) => version(ms >= 10_000 ? '1.4.0' : '1.3.0'), {
      labels: { 'org.opencontainers.image.version': '1.4.0' },
    })

    expect(run.error).toBeUndefined()
    expect(run.end).toEqual({})
    // The version changed, and the image has no served-files label: no file is asked. A poll
    // every 2 s: 1.3.0 until +8 s, 1.4.0 at +10 s and +12 s.
    expect(run.requests).toEqual([...LABEL_READ, VERSION, POST, ...polls(7, VERSION, STATUS)])
    expectToSay(
      run.info,
      `Expected version: 1.4.0 (from ${FROM_LABEL}).`,
      'Before the call, the app serves 1.3.0: the version tells this build (1.4.0) apart.',
      "Watching https://shop.example.com every 2 s for up to 1 min ('wait-minutes'): live once it serves 1.4.0 with a healthy status on 2 polls in a row.",
      "The app at https://shop.example.com serves 1.4.0: live +12 s after the webhook's answer.",
    )
    expect(run.warnings).toEqual([])
    expect(run.outputs).toMatchObject({
      url: 'https://shop.example.com',
      rollout: 'live',
      'live-version': '1.4.0',
    })
    expect(run.summaries.map((summary) => summary.heading)).toEqual([
      'Olympe deployment requested',
      'Olympe rollout: live',
    ])
    // r.io has no page for people to read: no link, never the registry API.
    expect(run.summaries[0]?.links).toEqual([])
    expect(run.summaries[1]?.rows).toEqual([
      ['App', 'https://shop.example.com'],
      ['Outcome', 'live'],
      ['Expected version', `1.4.0 (from ${FROM_LABEL})`],
      ['Evidence', 'the version (1.3.0 before the call)'],
      ['Versions served', '1.3.0, 1.4.0'],
      ['Polls', '7 in 12 s'],
      ['+0 s', 'accepted by the webhook'],
      ['+10 s', 'first answer with this build (1.4.0)'],
      ['+12 s', 'live: 1.4.0'],
    ])
    expect(run.summaries[1]?.links).toEqual([
      { label: 'App (live)', url: 'https://shop.example.com' },
    ])
  })

  test('never live: fails at wait-minutes naming both versions, after writing the summary', async () => {
    const run = await deploy({ 'wait-minutes': '0.5', 'expected-version': '1.4.0' })
    expect(run.error?.message).toBe(
      "The app at https://shop.example.com did not serve 1.4.0 within 'wait-minutes' (30 s) (waited 30 s; last seen: version 1.3.0, status HTTP 200). The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform, and that 'app-url' is the address of this environment. Check too that the project's version was bumped before the images were built (the version must change for the new rollout to be told from the old one).",
    )
    expect(run.requests.filter((request) => request === POST)).toHaveLength(1)
    expect(run.outputs).toMatchObject({ rollout: 'timed-out', 'live-version': '1.3.0' })
    expect(run.summaries.map((summary) => summary.heading)).toEqual([
      'Olympe deployment requested',
      'Not live: timed out',
    ])
  })

  test("the version changed, the label's files compared too: main.js as before the call is not this build's", async () => {
    const run = await deploy({ 'wait-minutes': '0.5' }, (ms, request) =>
      request.url.pathname.endsWith('/main.js')
        ? script(ms >= 20_000 ? NEW_JS : OLD_JS, request)
        : version(ms >= 10_000 ? '1.4.0' : '1.3.0'),
    )
    expect(run.error).toBeUndefined()
    // Before the call: version.json and main.js; then 1.3.0 until +8 s (its files not asked),
    // 1.4.0 with the old main.js from +10 s, this build's main.js from +20 s.
    expect(run.requests).toEqual([
      ...LABEL_READ,
      VERSION,
      SCRIPT,
      POST,
      ...polls(5, VERSION, STATUS),
      ...polls(7, VERSION, STATUS, SCRIPT),
    ])
    expectToSay(
      run.info,
      "Before the call, the app serves 1.3.0: the version tells this build (1.4.0) apart. The files of the served-files label are compared too, so that a file still served as before the call is not taken for this build's.",
      '+10 s: the app serves 1.4.0 with main.js as served before the call; waiting for this build.',
      '+20 s: the app serves this build: 1.4.0, with main.js as built, status HTTP 200.',
    )
    expectLive(run, '1.4.0', 'the version (1.3.0 before the call), and the served files')
  })

  test('the version unchanged, main.js of a new build: one download when it changes, then live', async () => {
    const run = await deploy({}, (ms, request) =>
      request.url.pathname.endsWith('/main.js')
        ? script(ms >= 10_000 ? NEW_JS : OLD_JS, request)
        : version('1.4.0'),
    )
    expect(run.error).toBeUndefined()
    expect(run.end).toEqual({})
    expect(run.requests).toEqual([
      ...LABEL_READ,
      VERSION,
      SCRIPT,
      POST,
      ...polls(7, VERSION, STATUS, SCRIPT),
    ])
    expectToSay(
      run.info,
      "Before the call, the app serves 1.4.0, this build's version, with another build's main.js: those files tell this build apart, so the watch compares what the app serves with them (conditional requests: a file is downloaded again only when it changed).",
      "The app at https://shop.example.com serves this build: 1.4.0, the version it served before, but with main.js changed to this build's. Live +12 s after the webhook's answer.",
    )
    expectLive(
      run,
      '1.4.0',
      'the served files, the version unchanged: main.js differed before the call',
    )
    // Before the call: a download; then 304 five times, the new file downloaded, 304.
    expect(run.summaries[1]?.rows).toContainEqual([
      'Served-file requests',
      '8 (7 conditional, 6 answered 304 not modified), 2 download(s)',
    ])
  })

  test('the app already served these very files (a backend alone): unverified, a warning state', async () => {
    const run = await deploy({}, (_ms, request) =>
      request.url.pathname.endsWith('/main.js') ? script(NEW_JS, request) : version('1.4.0'),
    )
    expect(run.error).toBeUndefined()
    expect(run.end).toEqual({ notLive: 'Not verified: the app already served this build' })
    expect(run.outputs).toMatchObject({ rollout: 'unverified', 'live-version': '1.4.0' })
    const advice =
      "To make every deployment verifiable, bump the project's version before the images are built (the project template has no script for it: `npm version patch`, or a version set by the pipeline), so that each deployment serves a version of its own."
    expect(run.warnings).toEqual([
      `The app already serves 1.4.0, the version this deployment brings, with the same main.js as this build: this deployment changes nothing the frontend serves (a backend alone, or the same build again), so the watch cannot tell the new rollout from the old one: it ends unverified at best. ${advice}`,
      `Not verified: the app at https://shop.example.com answers with a healthy status (last seen: version 1.4.0, status HTTP 200), but it already served 1.4.0 with the same main.js as this build before the call: this deployment changed nothing the frontend serves (a backend alone, or the same build again), so nothing tells it from the one before. The deployment was accepted; whether the new build serves is for you to check. ${advice}`,
    ])
    // Two healthy polls, then it ends: there is nothing to wait for.
    expect(run.requests.filter((request) => request === VERSION)).toHaveLength(3)
    expect(run.summaries[1]?.heading).toBe('Not verified: the app already served this build')
  })

  test("with 'require-evidence', an unverified rollout fails", async () => {
    const run = await deploy({ 'require-evidence': 'true', 'verify-images': 'false' })
    expect(run.error?.message).toMatch(
      /^Not verified: the app at https:\/\/shop\.example\.com answers .* 'require-evidence' is true, so the step fails\.$/,
    )
    expect(run.outputs.rollout).toBe('unverified')
  })

  test('the expected version unknown: a warning, then unverified, never live', async () => {
    const run = await deploy({ 'verify-images': 'false' })
    const reason =
      "the labels of 'r.io/shop/frontend:1' could not be read: the registry was not asked ('verify-images: false')"
    expect(run.warnings[0]).toBe(
      `The version the app must serve is unknown (${reason}): nothing can show that the app serves the new build, so the rollout ends unverified at best. To get evidence, bump the project's version before the images are built (the project template has no script for it: \`npm version patch\`, or a version set by the pipeline), so that each deployment serves a version of its own; or let the step read the frontend image's labels, where build-images records the version and the digests of the files the frontend serves: give the deploy step a registry login ('registry-username' and 'registry-password', read access is enough) and leave 'verify-images' on.`,
    )
    expect(run.warnings).toHaveLength(2)
    expect(run.end).toEqual({ notLive: 'Not verified: the expected version is unknown' })
    expect(run.outputs).toMatchObject({ rollout: 'unverified', 'live-version': '1.3.0' })
    expect(run.requests.some((request) => request.includes('r.io'))).toBe(false)
  })

  test('an image without the served-files label, the version unchanged: unverified', async () => {
    const run = await deploy({}, () => version('1.4.0'), {
      labels: { 'org.opencontainers.image.version': '1.4.0' },
    })
    expect(run.outputs.rollout).toBe('unverified')
    expect(run.end).toEqual({ notLive: 'Not verified: the version did not change' })
    expectToSay(
      run.warnings[0],
      "and the files the frontend serves are unknown ('r.io/shop/frontend:1' has no io.olympe.deploy-actions.served-files label (build-images adds it to the frontend image))",
      'or build the frontend image with build-images',
    )
  })

  /** Manual promotion, watched for 15 s. */
  const MANUAL = { 'wait-minutes': '0.25', 'promotion-mode': 'manual' }

  test("manual promotion without 'preview-url': awaiting-promotion, saying what it cannot tell and what to ask", async () => {
    const run = await deploy(MANUAL)
    expect(run.error).toBeUndefined()
    expect(run.outputs.rollout).toBe('awaiting-promotion')
    expect(run.end).toEqual({ notLive: 'Not live: awaiting promotion' })
    expect(run.warnings).toEqual([
      "The app at https://shop.example.com did not serve this build within 'wait-minutes' (15 s), and the promotion mode is manual: the app still serves the build before this deployment (last seen: version 1.3.0, status HTTP 200). The new version may be waiting for someone to promote it on the platform, or the rollout may never have reached the app; without 'preview-url' (the address where the platform serves the new version until it is promoted) the step cannot tell them apart. Check the deployment on the platform, and promote it there once it is validated. Ask the platform operator whether this environment deploys with no downtime (the promotion mode applies only there): if it does, ask for its preview address and give it as 'preview-url', so that the step verifies the new version there; if it does not, the rollout did not reach the app: check the deployment's status.",
    ])
    // Said only there: the log before it does not speak of the promotion.
    expect(run.info.filter((line) => line.includes('promotion mode'))).toEqual([])
    const strict = await deploy({ ...MANUAL, 'require-evidence': 'true' })
    expect(strict.error?.message).toMatch(/'require-evidence' is true, so the step fails\.$/)
  })

  test('manual promotion with a preview that serves this build: verified, awaiting promotion', async () => {
    // The app keeps the version before; the preview serves this build from 5 s on.
    const previewed = (inputs: Partial<Record<DeployInputName, string>>): Promise<Run> =>
      deploy(
        { ...MANUAL, 'preview-url': 'https://preview.shop.example.com', ...inputs },
        () => version('1.3.0'),
        {
          preview: (ms, request) =>
            request.url.pathname.endsWith('/main.js')
              ? script(ms >= 5000 ? NEW_JS : OLD_JS, request)
              : version(ms >= 5000 ? '1.4.0' : '1.3.0'),
        },
      )
    const run = await previewed({})
    expect(run.error).toBeUndefined()
    expect(run.end).toEqual({
      notLive: 'Not live: awaiting promotion (the preview serves this build)',
    })
    const preview = run.requests.filter((request) => request.startsWith('GET preview.'))
    // Before the call, then every 2 s until it served this build twice (+6 s and +8 s).
    expect(preview.filter((request) => request.endsWith('/version.json'))).toHaveLength(6)
    expect(run.summaries[1]?.rows).toContainEqual([
      'Preview',
      'https://preview.shop.example.com: serves this build (last seen: version 1.4.0 with main.js as built, status HTTP 200)',
    ])
    const strict = await previewed({ 'require-evidence': 'true' })
    // Verified on the preview: not for 'require-evidence' to fail.
    expect(strict.error).toBeUndefined()
  })

  test("automatic promotion: 'preview-url' is not asked", async () => {
    const run = await deploy({ 'preview-url': 'https://preview.shop.example.com' }, (ms) =>
      version(ms >= 5000 ? '1.4.0' : '1.3.0'),
    )
    expect(run.outputs.rollout).toBe('live')
    expect(run.requests.some((request) => request.includes('preview.'))).toBe(false)
    expect(run.info).toContain(
      "The promotion mode is auto: the app itself is watched, and 'preview-url' is not used.",
    )
  })

  test.each<[string, Partial<Record<DeployInputName, string>>, Answer | undefined, string[]]>([
    ['a dry run', { 'dry-run': 'true' }, undefined, []],
    ["'wait-minutes: 0'", { 'wait-minutes': '0' }, undefined, [POST]],
    // The version before the call is read; nothing after it.
    ['a failed call', {}, respond(500, {}, 'oops'), [VERSION, SCRIPT, POST]],
  ])('%s: no poll after the POST, rollout not-watched', async (_name, inputs, webhook, sent) => {
    const run = await deploy(inputs, undefined, webhook ? { webhook } : {})
    expect(run.requests.filter((request) => !request.includes(' r.io '))).toEqual(sent)
    expect(run.outputs).toMatchObject({
      url: 'https://shop.example.com',
      rollout: 'not-watched',
      'live-version': '',
    })
  })

  test("no 'app-url': a warning that says how to watch, or to say it should not be", async () => {
    const run = await deploy({ 'app-url': '' })
    expect(run.warnings).toEqual([
      "The rollout is not watched: no 'app-url': the step ends when the webhook accepts the deployment, before the new version serves. Set 'app-url' to the app's address to watch the rollout, or 'wait-minutes: 0' to say that it is not to be watched.",
    ])
    expect(run.outputs).toMatchObject({ url: '', rollout: 'not-watched' })
    expect(run.end).toEqual({})
    const quiet = await deploy({ 'app-url': '', 'wait-minutes': '0' })
    expect(quiet.warnings).toEqual([])
  })
})

/** The requests up to the webhook call, that one included. */
const upToTheCall = (run: Run): string[] => run.requests.slice(0, run.requests.indexOf(POST) + 1)

describe('what the app served before the call, read again when it may be a blip', () => {
  const unavailable = respond(503, {}, '<html>Service Unavailable</html>')
  /** version.json answers `first` until +4 s (the reads before the call), then `then`. */
  const blip =
    (first: () => HttpResponse, then: string): App =>
    (ms, request) =>
      request.url.pathname.endsWith('/main.js')
        ? script(OLD_JS, request)
        : ms <= 4000
          ? first()
          : version(then)
  const VERSION_ONLY = { 'org.opencontainers.image.version': '1.4.0' }

  test('a 503, then the version a second later: the version tells this build apart', async () => {
    let reads = 0
    const run = await deploy({ 'wait-minutes': '0.1' }, (ms, request) =>
      request.url.pathname.endsWith('/main.js')
        ? script(ms >= 3000 ? NEW_JS : OLD_JS, request)
        : ++reads === 1
          ? unavailable
          : version(ms >= 3000 ? '1.4.0' : '1.3.0'),
    )
    expect(upToTheCall(run)).toEqual([...LABEL_READ, VERSION, VERSION, SCRIPT, POST])
    expect(run.info).toContain(
      "Before the call, the app serves 1.3.0: the version tells this build (1.4.0) apart. The files of the served-files label are compared too, so that a file still served as before the call is not taken for this build's.",
    )
    expect(run.outputs.rollout).toBe('live')
  })

  test('a 503 on every read for 4 s, no served-files label: never evidence; the same version is unverified, not live', async () => {
    const run = await deploy(
      {},
      blip(() => unavailable, '1.4.0'),
      { labels: VERSION_ONLY },
    )
    // Read at +0 s, then a second apart while 4 s have not passed.
    expect(upToTheCall(run)).toEqual([...LABEL_READ, ...polls(5, VERSION), POST])
    expect(run.warnings[0]).toBe(
      "Before the call, the app gives no version: HTTP 503 for version.json. It answered so on every read for a few seconds, so what it serves is unknown and is no evidence of a change, and without the frontend image's served-files label nothing else can tell this build apart: the watch ends unverified at best. To get evidence, bump the project's version before the images are built (the project template has no script for it: `npm version patch`, or a version set by the pipeline), so that each deployment serves a version of its own; or build the frontend image with build-images, which records in its labels the version and the digests of the files the frontend serves.",
    )
    expect(run.outputs).toMatchObject({ rollout: 'unverified', 'live-version': '1.4.0' })
    expect(run.end).toEqual({ notLive: 'Not verified: what the app served before is unknown' })
    expect(run.summaries[1]?.rows).toContainEqual([
      'Evidence',
      'none: what the app served before the call is unknown',
    ])
  })

  test('an HTML page on every read, with the served-files label: the files decide; the old main.js is never live', async () => {
    const page = (): HttpResponse => respond(200, {}, '<!doctype html><title>Starting</title>')
    const run = await deploy({ 'wait-minutes': '0.25' }, blip(page, '1.4.0'))
    expect(upToTheCall(run)).toEqual([...LABEL_READ, ...polls(5, VERSION), SCRIPT, POST])
    expect(run.info).toContain(
      "Before the call, the app gives no version: an HTML page instead of version.json. It answered so on every read for a few seconds, so what it serves is unknown and is no evidence of a change; its files tell this build apart (it served another build's main.js), so the watch compares what the app serves with them.",
    )
    expect(run.outputs).toMatchObject({ rollout: 'timed-out', 'live-version': '1.4.0' })
    expect(run.error?.message).toMatch(
      /^The app at https:\/\/shop\.example\.com did not serve this build \(1\.4\.0, with main\.js as built\) within 'wait-minutes' \(15 s\) \(waited 15 s; last seen: version 1\.4\.0 with another build's main\.js, status HTTP 200\)\./,
    )
  })

  test('a 404 on every read for 4 s: the app served nothing, which the version tells apart', async () => {
    const run = await deploy(
      {},
      blip(() => respond(404), '1.4.0'),
      { labels: VERSION_ONLY },
    )
    expect(upToTheCall(run)).toEqual([...LABEL_READ, ...polls(5, VERSION), POST])
    expect(run.outputs.rollout).toBe('live')
  })
})
