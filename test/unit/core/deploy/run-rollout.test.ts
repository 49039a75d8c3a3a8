// The deploy core with the rollout watch: the webhook, the registry and the app played behind the
// HttpClient port on one clock that advances only when the step sleeps.
import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { withDefaults } from '../../../../src/core/definition.js'
import { deployDefinition, type DeployInputName } from '../../../../src/core/deploy/definition.js'
import { checkDeploy } from '../../../../src/core/deploy/check.js'
import { runDeploy } from '../../../../src/core/deploy/run.js'
import type { HttpRequest, HttpResponse } from '../../../../src/core/shared/http.js'
import type { Logger, Summary } from '../../../../src/core/shared/ports.js'
import { fakeNetwork, respond, type Answer } from '../../../helpers/fake-registry.js'
import { memoryFiles } from '../../../helpers/memory-files.js'

const sha = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`
const CONFIG = JSON.stringify({
  config: { Labels: { 'org.opencontainers.image.version': '1.4.0' } },
})
const MANIFEST = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: { digest: sha(CONFIG) },
  layers: [],
})

/** The registry r.io, open, holding r.io/shop/frontend:1 with its version label. */
function registry(request: HttpRequest): Answer {
  if (request.url.pathname === '/v2/shop/frontend/manifests/1')
    return respond(200, { 'Docker-Content-Digest': sha(MANIFEST) }, MANIFEST)
  if (request.url.pathname === `/v2/shop/frontend/blobs/${sha(CONFIG)}`)
    return respond(200, {}, CONFIG)
  return respond(404)
}

const version = (value: string): HttpResponse =>
  respond(200, {}, JSON.stringify({ version: value }))

interface Run {
  outputs: Record<string, string>
  /** Every request, in order, as `METHOD host path`. */
  requests: string[]
  info: string[]
  warnings: string[]
  summaries: Summary[]
  error?: Error
}

/** The app serves `app(ms since the step began)`; its status route answers 200. */
async function deploy(
  inputs: Partial<Record<DeployInputName, string>>,
  app: (ms: number) => Answer = () => version('1.3.0'),
  webhook: Answer = respond(200, {}, '{"message":"success"}'),
): Promise<Run> {
  const run: Run = { outputs: {}, requests: [], info: [], warnings: [], summaries: [] }
  const network: ReturnType<typeof fakeNetwork> = fakeNetwork((request) => {
    run.requests.push(`${request.method} ${request.url.host} ${request.url.pathname}`)
    if (request.url.host === 'r.io') return registry(request)
    if (request.url.host === 'h.example') return webhook
    if (request.url.pathname.endsWith('/version.json')) return app(network.clock.now().getTime())
    return respond(200)
  })
  const logger: Logger = {
    info: (message) => run.info.push(message),
    warning: (message) => run.warnings.push(message),
    error: () => undefined,
    debug: () => undefined,
    group: (_title, body) => body(),
  }
  const raw = withDefaults(deployDefinition, {
    'webhook-url': 'https://h.example/deploy/5e6f7a8b9c0d',
    'webhook-token': 'tok-9c8b7a6d5e',
    'frontend-image': 'r.io/shop/frontend:1',
    'app-url': 'https://shop.example.com',
    'promotion-mode': 'auto',
    'poll-seconds': '5',
    'wait-minutes': '1',
    ...inputs,
  })
  try {
    const ports: Parameters<typeof runDeploy>[2] = {
      logger,
      reporter: {
        setOutput: (name, value) => (run.outputs[name] = value),
        summary: (summary) => {
          run.summaries.push(summary)
          return Promise.resolve()
        },
      },
      redact: (text) => text,
      clock: network.clock,
      files: memoryFiles({}),
      registerSecret: () => undefined,
      dockerConfigPath: '/home/runner/.docker/config.json',
      http: network.http,
    }
    const checked = await checkDeploy(raw, { parseYaml: JSON.parse }, { workspace: '/ws' }, ports)
    await runDeploy(checked, {}, ports)
  } catch (error) {
    run.error = error as Error
  }
  return run
}

const POST = 'POST h.example /deploy/5e6f7a8b9c0d'
const VERSION = 'GET shop.example.com /version.json'
const STATUS = 'GET shop.example.com /OlympeServer/status'

describe('deploy, then watch the rollout', () => {
  test("the expected version from the frontend image's label; live once it serves it twice", async () => {
    const run = await deploy({}, (ms) => version(ms >= 10_000 ? '1.4.0' : '1.3.0'))

    expect(run.error).toBeUndefined()
    expect(run.requests).toEqual([
      'HEAD r.io /v2/shop/frontend/manifests/1',
      'GET r.io /v2/shop/frontend/manifests/1',
      `GET r.io /v2/shop/frontend/blobs/${sha(CONFIG)}`,
      VERSION,
      POST,
      ...[VERSION, STATUS, VERSION, STATUS, VERSION, STATUS, VERSION, STATUS],
    ])
    expect(run.info).toContain(
      "Expected version: 1.4.0 (from the org.opencontainers.image.version label of 'r.io/shop/frontend:1').",
    )
    expect(run.info).toContain('Before the call, the app serves 1.3.0.')
    expect(run.info).toContain(
      "The app at https://shop.example.com serves 1.4.0: live +15 s after the webhook's answer.",
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
      [
        'Expected version',
        "1.4.0 (from the org.opencontainers.image.version label of 'r.io/shop/frontend:1')",
      ],
      ['Versions served', '1.3.0, 1.4.0'],
      ['Polls', '4 in 15 s'],
      ['+0 s', 'accepted by the webhook'],
      ['+10 s', 'first answer with 1.4.0'],
      ['+15 s', 'live: 1.4.0'],
    ])
    expect(run.summaries[1]?.links).toEqual([
      { label: 'App (live)', url: 'https://shop.example.com' },
    ])
  })

  test('never live: fails at wait-minutes naming both versions, after writing the summary', async () => {
    const run = await deploy({ 'wait-minutes': '0.5', 'expected-version': '1.4.0' })
    expect(run.error?.message).toBe(
      "The app at https://shop.example.com did not serve 1.4.0 within 'wait-minutes' (30 s) (waited 30 s; last seen: version 1.3.0, status HTTP 200). The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform. Check too that 'app-url' is the address of this environment, and that the project's version was bumped before the images were built (the version must change for the new rollout to be told from the old one).",
    )
    expect(run.requests.filter((request) => request === POST)).toHaveLength(1)
    expect(run.outputs).toMatchObject({ rollout: 'timed-out', 'live-version': '1.3.0' })
    expect(run.summaries.map((summary) => summary.heading)).toEqual([
      'Olympe deployment requested',
      'Olympe rollout: timed-out',
    ])
  })

  test('manual promotion, never served: a warning and awaiting-promotion, not a failure', async () => {
    const run = await deploy({ 'wait-minutes': '0.25', 'promotion-mode': 'manual' })
    expect(run.error).toBeUndefined()
    expect(run.outputs.rollout).toBe('awaiting-promotion')
    expect(run.warnings).toEqual([
      expect.stringContaining('and the promotion mode is manual: the new version may be waiting'),
    ])
  })

  test('the app already serves the expected version: a warning before the call', async () => {
    const run = await deploy({}, () => version('1.4.0'))
    expect(run.warnings).toEqual([
      "The app already serves 1.4.0, the version this deployment brings, so the watch cannot tell the new rollout from the old one and will report it live at once. Bump the project's version before building the images (the project template's version-bump script), so that each deployment serves a version of its own.",
    ])
    expect(run.outputs.rollout).toBe('live')
  })

  test('the expected version unknown: a warning, then only that the app answers', async () => {
    const run = await deploy({ 'verify-images': 'false' })
    expect(run.warnings).toEqual([
      "The version the app must serve is unknown (the labels of 'r.io/shop/frontend:1' could not be read: the registry was not asked ('verify-images: false')): the rollout watch only checks that the app answers with a healthy status, not that it serves the new version. Set 'expected-version', or build the images with build-images, which labels them with the project's version.",
    ])
    expect(run.outputs).toMatchObject({ rollout: 'live', 'live-version': '1.3.0' })
    expect(run.requests.some((request) => request.includes('r.io'))).toBe(false)
  })

  test.each<[string, Partial<Record<DeployInputName, string>>, Answer | undefined, string[]]>([
    ['a dry run', { 'dry-run': 'true' }, undefined, []],
    ["'wait-minutes: 0'", { 'wait-minutes': '0' }, undefined, [POST]],
    // The version before the call is read; nothing after it.
    ['a failed call', {}, respond(500, {}, 'oops'), [VERSION, POST]],
  ])('%s: no poll after the POST, rollout not-watched', async (_name, inputs, webhook, sent) => {
    const run = await deploy(inputs, undefined, webhook)
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
    const quiet = await deploy({ 'app-url': '', 'wait-minutes': '0' })
    expect(quiet.warnings).toEqual([])
  })
})
