// Registries (and a webhook) that answer as an attacker would, on loopback, against the deploy
// bundle run as the runner runs it and through the command line as a GitLab job runs it: a
// registry that echoes the login it got into its digest header and error texts, one whose
// token realm points at another address over plain http, one named only by `payload-file`,
// and one whose error codes carry GitLab section markers. Each registry records the
// Authorization headers it received; the token service counts the requests it got.
import { describe, expect, test } from '@jest/globals'
import { createHash, randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { withCleanup } from '../helpers/cleanup.js'
import { useCleanup, useStarted } from '../helpers/suite.js'
import { runAsGithub, runCli, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import {
  answer,
  startWebhookServer,
  type ReceivedRequest,
  type Responder,
} from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

const USER = 'deployer'
const PASSWORD = `pw-${randomBytes(12).toString('hex')}`
const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`
const CREDENTIALS = { 'registry-username': USER, 'registry-password': PASSWORD }
const WEBHOOK_TOKEN = `hostile-webhook-token-${randomBytes(6).toString('hex')}`
const MANIFEST = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: {
    mediaType: 'application/vnd.oci.image.config.v1+json',
    digest: `sha256:${'c'.repeat(64)}`,
    size: 2,
  },
  layers: [],
})
const MANIFEST_DIGEST = `sha256:${createHash('sha256').update(MANIFEST).digest('hex')}`
const FORGED_CODE = 'X\r\u001b[0Ksection_start:1:evil\r\u001b[0KFAKE'
const ESCAPED_CODE = "'X\\x0d\\x1b[0Ksection_start:1:evil\\x0d\\x1b[0KFAKE'"

const cleanup = useCleanup()
const webhook = useStarted('webhook', () => startWebhookServer(answer(200)), cleanup)
/** Every run's texts, for the secret scan at the end. */
const runs: Record<string, string> = {}

/** A registry on loopback, played by `respond`; `host` is `127.0.0.1:<port>`. */
async function startRegistry(
  respond: Responder,
  listen = '127.0.0.1',
): Promise<{ host: string; requests: ReceivedRequest[] }> {
  const server = cleanup.track(
    `registry on ${listen}`,
    await startWebhookServer(respond, { listen }),
  )
  return { host: `${listen}:${server.port}`, requests: server.requests }
}

const json = (res: Parameters<Responder>[2], status: number, body: unknown, headers = {}): void => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

/** A registry asking for Basic: `respond` answers the requests that carry a login. */
const basicRegistry =
  (respond: Responder): Responder =>
  (request, index, res) => {
    if (request.headers.authorization) return respond(request, index, res)
    json(
      res,
      401,
      { errors: [{ code: 'UNAUTHORIZED' }] },
      { 'WWW-Authenticate': 'Basic realm="r"' },
    )
  }

async function deploy(
  label: string,
  inputs: Record<string, string>,
  options: { cli?: boolean; gitlab?: boolean; cwd?: string } = {},
): Promise<{ run: RunResult; posts: number }> {
  webhook.respondWith(answer(200))
  return withCleanup(async (own) => {
    const given = {
      inputs: { 'webhook-url': webhook.url, 'webhook-token': WEBHOOK_TOKEN, ...inputs },
      // No login of this machine's: only what a case gives.
      env: {
        DOCKER_CONFIG: await own.tempDir('olympe-docker-config-'),
        ...(options.gitlab ? { GITLAB_CI: 'true', CI: 'true' } : {}),
      },
      cwd: options.cwd,
    }
    const run = options.cli ? await runCli('deploy', given) : await runAsGithub('deploy', given)
    runs[label] = [run.stdout, run.stderr, ...Object.values(run.files)].join('\n')
    return { run, posts: webhook.requests.length }
  })
}

describe('an echoing registry puts nothing but digests in outputs and files', () => {
  // It answers with the Authorization it got: as the digest header of every manifest, and as
  // the code and message of its errors ('gone' does not exist).
  const echo = basicRegistry((request, _index, res) => {
    const auth = request.headers.authorization ?? ''
    if (request.path.includes('/gone/')) {
      json(res, 404, { errors: [{ code: auth, message: `denied for ${auth}` }] })
      return
    }
    res.writeHead(200, {
      'Content-Type': 'application/vnd.oci.image.manifest.v1+json',
      'Docker-Content-Digest': auth,
    })
    res.end(MANIFEST)
  })

  test.each([
    ['the runner', { cli: false, gitlab: false }],
    ['the command line with --dotenv', { cli: true, gitlab: true }],
  ])('through %s', async (via, options) => {
    const registry = await startRegistry(echo)
    const found = `${registry.host}/app/web:v1`
    const gone = `${registry.host}/app/gone:v1`
    const inputs = { 'frontend-image': found, 'verify-images': 'true', ...CREDENTIALS }
    const passed = await deploy(`echo ${via}: found`, inputs, options)
    const failed = await deploy(`echo ${via}: gone`, { ...inputs, 'backend-images': gone }, options)

    // The login did reach the registry: what came back is what the test is about.
    expect(registry.requests.some((request) => request.headers.authorization === BASIC)).toBe(true)
    expect([passed.run.code, passed.posts, failed.run.code, failed.posts]).toEqual([0, 1, 1, 0])
    for (const { run } of [passed, failed])
      expect(JSON.parse(run.outputs.digests ?? '')).toEqual({ [found]: MANIFEST_DIGEST })
    expect(failed.run.stdout + failed.run.stderr).toContain(
      `The backend image '${gone}' does not exist in registry '${registry.host}' (HTTP 404, 'Basic ***')`,
    )
    if (!options.cli) {
      expect(passed.run.summary).toContain(`| Frontend image | ${found} (${MANIFEST_DIGEST}) |`)
      expect(failed.run.summary).toContain("(HTTP 404, 'Basic \\*\\*\\*')")
    } else expect(passed.run.files.dotenv).toContain(`"${found}":"${MANIFEST_DIGEST}"`)
    const written = { outputs: '', summary: '', files: '' }
    for (const { run } of [passed, failed]) {
      written.outputs += JSON.stringify(run.outputs)
      written.summary += run.summary
      written.files += Object.values(run.files).join('\n')
    }
    expectNoSecrets(written, [PASSWORD, BASIC, BASIC.slice('Basic '.length)])
  })
})

describe('a plain-http realm on another address gets no request', () => {
  // This machine routes all of 127.0.0.0/8 to its loopback interface (`local 127.0.0.0/8 dev
  // lo`): the token service listens on 127.0.0.2, the registry on 127.0.0.1.
  test.each([
    ['with a login', CREDENTIALS],
    ['anonymously', {}],
  ])('%s', async (how, login) => {
    const tokens = cleanup.track(
      'token service',
      await startWebhookServer(
        (_request, _index, res) => json(res, 200, { token: 'tkn-from-elsewhere' }),
        {
          listen: '127.0.0.2',
          path: '/token',
        },
      ),
    )
    const registry = await startRegistry((request, _index, res) => {
      if (request.headers.authorization === 'Bearer tkn-from-elsewhere') {
        res.writeHead(200, { 'Docker-Content-Digest': MANIFEST_DIGEST })
        res.end(MANIFEST)
        return
      }
      json(
        res,
        401,
        { errors: [{ code: 'UNAUTHORIZED' }] },
        {
          'WWW-Authenticate': `Bearer realm="${tokens.url}",service="hostile"`,
        },
      )
    })
    const image = `${registry.host}/app/web:v1`
    const { run, posts } = await deploy(`realm ${how}`, {
      'frontend-image': image,
      'verify-images': 'true',
      ...login,
    })

    expect(tokens.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/token$/)
    expect([run.code, posts, tokens.requests.length, tokens.connections()]).toEqual([1, 0, 0, 0])
    expect(run.stdout).toContain(
      `The frontend image '${image}' could not be checked in registry '${registry.host}': the registry's token service is a plain http:// address (127.0.0.2:${tokens.port}): a token service is asked over https, or over http only on the address of a registry on this machine, so it was not asked`,
    )
  })
})

describe('a payload-file registry gets no login', () => {
  const NOT_USED =
    "'registry-username' and 'registry-password' are given but 'registry' is empty, and no image input names a registry (the images come from 'payload-file' only): the registry a login is for is never taken from a file, so the images are checked without it. Set 'registry' to the registry these credentials are for."
  const found = basicRegistry((_request, _index, res) => {
    res.writeHead(200, { 'Docker-Content-Digest': MANIFEST_DIGEST })
    res.end(MANIFEST)
  })
  const logins = (requests: ReceivedRequest[]): string[] =>
    requests.map((request) => request.headers.authorization ?? '-')

  test('images from payload-file only: asked anonymously, and the warning says to set registry', async () => {
    const registry = await startRegistry(found)
    await withCleanup(async (own) => {
      const workspace = await own.tempDir('olympe-hostile-ws-')
      const image = `${registry.host}/app/web:v1`
      await writeFile(join(workspace, 'payload.json'), JSON.stringify({ frontend: { image } }))
      const { run, posts } = await deploy(
        'payload-file only',
        { 'payload-file': 'payload.json', ...CREDENTIALS },
        { cwd: workspace },
      )

      expect(logins(registry.requests)).toEqual(['-'])
      // verify-images auto: the image that could not be checked is deployed, with warnings.
      expect([run.code, posts]).toEqual([0, 1])
      expectToSay(
        run.stdout,
        `::warning title=Registry login not used::${NOT_USED}`,
        `Registry '${registry.host}': asked anonymously.`,
      )
    })
  })

  test('an image input and payload-file: the login goes to the input’s registry alone', async () => {
    const named = await startRegistry(found)
    const elsewhere = await startRegistry(found)
    await withCleanup(async (own) => {
      const workspace = await own.tempDir('olympe-hostile-ws-')
      const backend = `${elsewhere.host}/app/api:v1`
      await writeFile(
        join(workspace, 'payload.json'),
        JSON.stringify({ backends: { images: [backend] } }),
      )
      const { run, posts } = await deploy(
        'payload-file and an input',
        {
          'frontend-image': `${named.host}/app/web:v1`,
          'payload-file': 'payload.json',
          ...CREDENTIALS,
        },
        { cwd: workspace, cli: true, gitlab: true },
      )

      expect(logins(named.requests)).toEqual(['-', BASIC])
      expect(logins(elsewhere.requests)).toEqual(['-'])
      expect([run.code, posts]).toEqual([0, 1])
      expect(run.stderr).toContain(
        `Warning: The backend image '${backend}' could not be checked in registry '${elsewhere.host}': the registry refused anonymous access (HTTP 401)`,
      )
    })
  })
})

describe('control characters from a server are escaped in the CLI log', () => {
  /** Our own section markers (see gitlabSections in src/platform/plain-runtime.ts), taken out. */
  const withoutOurSections = (log: string): string =>
    log.replace(
      // eslint-disable-next-line no-control-regex -- GitLab's markers start with ESC
      /\u001b\[0Ksection_(?:start|end):\d+:olympe_\d+_[a-z0-9_]*(?:\[collapsed=false\])?\r\u001b\[0K/g,
      '',
    )
  const expectClean = (run: RunResult): void => {
    const log = run.stdout + run.stderr
    expect(log).toContain('section_start:')
    expect(withoutOurSections(log)).not.toMatch(/(?![\n\t])\p{Cc}/u)
    // GitLab reads a marker only after ESC[0K: every one in the log is ours.
    // eslint-disable-next-line no-control-regex -- GitLab's markers start with ESC
    const markers = [...log.matchAll(/\u001b\[0Ksection_(?:start|end):\d+:([^\r[]*)/g)]
    expect(markers.length).toBeGreaterThanOrEqual(4)
    expect(
      markers.map((marker) => marker[1]).filter((id) => !/^olympe_\d+_/.test(id ?? '')),
    ).toEqual([])
  }

  test('registry error codes', async () => {
    const registry = await startRegistry((_request, _index, res) =>
      json(res, 404, { errors: [{ code: FORGED_CODE, message: FORGED_CODE }] }),
    )
    const image = `${registry.host}/app/web:v1`
    const { run, posts } = await deploy(
      'forged code',
      { 'frontend-image': image },
      { cli: true, gitlab: true },
    )

    expect([run.code, posts]).toEqual([1, 0])
    expect(run.stderr).toContain(
      `Error: The image check failed for 1 of 1 image(s), so the deployment was not requested:\n- The frontend image '${image}' does not exist in registry '${registry.host}' (HTTP 404, ${ESCAPED_CODE}): check its tag or digest, and that it was pushed`,
    )
    expectClean(run)
  })

  test('a webhook response body', async () => {
    webhook.respondWith(
      answer(500, `boom\r\u001b[0Ksection_start:1:evil\r\u001b[0KFAKE\n\u001b[31mred`),
    )
    const run = await runCli('deploy', {
      inputs: {
        'webhook-url': webhook.url,
        'webhook-token': WEBHOOK_TOKEN,
        'frontend-image': '127.0.0.1:9/app/web:v1',
        'verify-images': 'false',
      },
      env: { GITLAB_CI: 'true', CI: 'true' },
    })
    runs['forged webhook body'] = run.stdout + run.stderr

    expect(run.code).toBe(1)
    expect(run.stderr).toContain(
      'Response body: boom\\x0d\\x1b[0Ksection_start:1:evil\\x0d\\x1b[0KFAKE\\x0a\\x1b[31mred.',
    )
    expectClean(run)
  })
})

// Last on purpose: it reads what every run above printed.
test('no run printed the registry password, its base64 login or the webhook secrets', () => {
  expect(Object.keys(runs).length).toBeGreaterThanOrEqual(9)
  expectNoSecrets(runs, [PASSWORD, BASIC, WEBHOOK_TOKEN, webhook.url])
})
