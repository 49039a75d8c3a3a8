// Deploy only images that exist, against the real distribution registry: once with
// htpasswd (Basic) and once with `auth: token` and a token service on loopback (Bearer, as
// ghcr.io, GitLab's registry and Docker Hub answer). The images are pushed with the real docker
// CLI; the deploy bundle runs as the GitHub runner runs it; the webhook counts the POSTs, and
// every case that must fail must fail with none.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { withCleanup } from '../helpers/cleanup.js'
import { listenOnLoopback, type Listening } from '../helpers/loopback.js'
import { useCleanup, useStarted } from '../helpers/suite.js'
import {
  dockerLogin,
  ensureBaseImages,
  ensureDockerDaemon,
  freePort,
  pushImage,
  removeImages,
  startRegistry,
  type BaseImages,
  type Registry,
  type RegistryOptions,
} from '../helpers/docker-env.js'
import { externalAddress } from '../helpers/connect-proxy.js'
import { runAsGithub, runCli, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { startRegistryProxy } from '../helpers/registry-proxy.js'
import { makeTlsFiles, type TlsFiles } from '../helpers/tls-certificates.js'
import { startTokenServer, type TokenServer } from '../helpers/token-server.js'
import { answer, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

const WEBHOOK_TOKEN = 'verify-webhook-token-6d1f'
const USER = 'deployer'
const PASSWORD = `pw-${randomBytes(10).toString('hex')}`
const WRONG_PASSWORD = `wrong-${randomBytes(6).toString('hex')}`
const CREDENTIALS = { 'registry-username': USER, 'registry-password': PASSWORD }
const WRONG_CREDENTIALS = { 'registry-username': USER, 'registry-password': WRONG_PASSWORD }

interface Pushed {
  reference: string
  digest: string
}

interface Setup {
  registry: Registry
  tokens?: TokenServer
  /** A DOCKER_CONFIG that a real `docker login` to this registry wrote. */
  loggedIn: string
  /** app/frontend:v1, app/backend:v1, and app/frontend:v2 (another image). */
  images: { frontend: Pushed; backend: Pushed; frontendV2: Pushed }
  host: string
}

type Kind = 'basic' | 'bearer'

let webhook: WebhookServer
let tokens: TokenServer
let emptyConfig = ''
const setups: Partial<Record<Kind, Setup>> = {}
const runs: Record<string, string> = {}
// The servers, the Docker configs and the pushed images, undone after the suite even when
// beforeAll stopped halfway.
const cleanup = useCleanup()

beforeAll(async () => {
  await ensureDockerDaemon()
  const base = await ensureBaseImages()
  webhook = cleanup.track('webhook', await startWebhookServer(answer(200)))
  emptyConfig = await cleanup.tempDir('olympe-docker-config-empty-')
  tokens = cleanup.track('token server', await startTokenServer({ user: USER, password: PASSWORD }))
  const auths: Record<Kind, RegistryOptions> = {
    basic: { user: USER, password: PASSWORD },
    bearer: { user: USER, password: PASSWORD, token: tokens },
  }
  for (const kind of ['basic', 'bearer'] as const) {
    const registry = cleanup.track(`${kind} registry`, await startRegistry(auths[kind]))
    setups[kind] = await pushTestImages(kind, registry, base)
  }
}, 180_000)

/** A real `docker login` to `registry` in a Docker config of its own, and three images pushed. */
async function pushTestImages(kind: Kind, registry: Registry, base: BaseImages): Promise<Setup> {
  // Before the first push: whatever is pushed goes from this machine at the end.
  cleanup.add(`images of ${registry.host}`, () => removeImages(`${registry.host}/`))
  const loggedIn = await cleanup.tempDir('olympe-docker-config-login-')
  const env = { ...process.env, DOCKER_CONFIG: loggedIn }
  await dockerLogin(registry, { env })
  const push = async (source: string, name: string): Promise<Pushed> => {
    const reference = `${registry.host}/${name}`
    return { reference, digest: await pushImage(source, reference, { env }) }
  }
  return {
    registry,
    loggedIn,
    host: registry.host,
    ...(kind === 'bearer' ? { tokens } : {}),
    images: {
      frontend: await push(base.frontend, 'app/frontend:v1'),
      backend: await push(base.backend, 'app/backend:v1'),
      frontendV2: await push(base.codeasdata, 'app/frontend:v2'),
    },
  }
}

interface Deployed {
  run: RunResult
  /** The POSTs the webhook received during this run. */
  posts: number
}

async function deploy(
  label: string,
  inputs: Record<string, string>,
  options: { env?: Record<string, string>; cwd?: string; cli?: boolean } = {},
): Promise<Deployed> {
  webhook.respondWith(answer(200))
  const given = {
    inputs: { 'webhook-url': webhook.url, 'webhook-token': WEBHOOK_TOKEN, ...inputs },
    // Never the machine's own ~/.docker/config.json: only the logins a case gives.
    env: { DOCKER_CONFIG: emptyConfig, ...options.env },
    cwd: options.cwd,
  }
  const run = options.cli ? await runCli('deploy', given) : await runAsGithub('deploy', given)
  runs[label] = [run.stdout, run.stderr, ...Object.values(run.files)].join('\n')
  return { run, posts: webhook.requests.length }
}

/**
 * deploy with `inputs` and verify-images auto (the default), then true, labelled `<label> auto`
 * and `<label> true`: auto warns and the POST goes out, true fails with no POST. Both runs.
 */
async function autoAndTrue(label: string, inputs: Record<string, string>): Promise<RunResult[]> {
  const auto = await deploy(`${label} auto`, inputs)
  const strict = await deploy(`${label} true`, { ...inputs, 'verify-images': 'true' })

  expect([auto.run.code, auto.posts]).toEqual([0, 1])
  expect([strict.run.code, strict.posts]).toEqual([1, 0])
  return [auto.run, strict.run]
}

const setupOf = (kind: Kind): Setup => {
  const setup = setups[kind]
  if (!setup) throw new Error(`the ${kind} registry did not start`)
  return setup
}

describe.each(['basic', 'bearer'] as const)('against the real registry, %s auth', (kind) => {
  test('pushed images pass: one POST, their digests in the output and the summary', async () => {
    const { images, host } = setupOf(kind)
    const pinned = `${host}/app/frontend@${images.frontendV2.digest}`
    const { run, posts } = await deploy(`${kind}: pushed`, {
      'frontend-image': images.frontend.reference,
      'backend-images': images.backend.reference,
      'codeasdata-image': pinned,
      'verify-images': 'true',
      ...CREDENTIALS,
    })

    expect(run.code).toBe(0)
    expect(posts).toBe(1)
    expect(JSON.parse(run.outputs.digests ?? '')).toEqual({
      [images.frontend.reference]: images.frontend.digest,
      [images.backend.reference]: images.backend.digest,
      [pinned]: images.frontendV2.digest,
    })
    expectToSay(
      run.stdout,
      `Registry '${host}': asked with the login from 'registry-username' and 'registry-password'.`,
      `frontend ${images.frontend.reference}: found, ${images.frontend.digest}`,
    )
    expectToSay(
      run.summary,
      `| Frontend image | ${images.frontend.reference} (${images.frontend.digest}) |`,
      `| Code-as-data image | ${pinned} (verified) |`,
    )
    if (kind === 'bearer') {
      const asked = tokens.requests.filter((request) =>
        request.scopes.includes('repository:app/backend:pull'),
      )
      expect(asked.at(-1)).toMatchObject({
        user: USER,
        authenticated: true,
        service: tokens.service,
      })
    }
  })

  test.each(['auto', 'true'])(
    'a missing tag and a never-pushed image fail with verify-images %s, naming each reference and the registry, with no POST',
    async (mode) => {
      const { images, host } = setupOf(kind)
      const { run, posts } = await deploy(`${kind}: missing ${mode}`, {
        'frontend-image': images.frontend.reference,
        'backend-images': `${host}/app/backend:1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d\n${host}/app/never-pushed:v1`,
        'verify-images': mode,
        ...CREDENTIALS,
      })

      expect(run.code).toBe(1)
      expect(posts).toBe(0)
      expectToSay(
        run.stdout,
        '::error title=olympe deploy failed::The image check failed for 2 of 3 image(s), so the deployment was not requested',
        `The backend image '${host}/app/backend:1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d' does not exist in registry '${host}' (HTTP 404, MANIFEST_UNKNOWN): check its tag or digest, and that it was pushed`,
      )
      expect(run.stdout).toMatch(
        new RegExp(
          `The backend image '${host}/app/never-pushed:v1' does not exist in registry '${host}' \\(HTTP 404, (MANIFEST|NAME)_UNKNOWN\\)`,
        ),
      )
      expect(run.outputs.digests).toBe(
        JSON.stringify({ [images.frontend.reference]: images.frontend.digest }),
      )
    },
  )

  test('wrong credentials fail with verify-images true, with no POST', async () => {
    const { images } = setupOf(kind)
    const { run, posts } = await deploy(`${kind}: wrong true`, {
      'frontend-image': images.frontend.reference,
      'verify-images': 'true',
      ...WRONG_CREDENTIALS,
    })

    expect(run.code).toBe(1)
    expect(posts).toBe(0)
    expectToSay(
      run.stdout,
      `The frontend image '${images.frontend.reference}' could not be checked in registry '${setupOf(kind).host}': `,
      "refused the login from 'registry-username' and 'registry-password' (HTTP 401)",
      "'verify-images: true' requires every image to be checked",
    )
  })

  test('wrong credentials only warn with verify-images auto, and the POST goes out', async () => {
    const { images } = setupOf(kind)
    const { run, posts } = await deploy(`${kind}: wrong auto`, {
      'frontend-image': images.frontend.reference,
      ...WRONG_CREDENTIALS,
    })

    expect(run.code).toBe(0)
    expect(posts).toBe(1)
    expectToSay(
      run.stdout,
      `::warning title=Image not checked::The frontend image '${images.frontend.reference}' could not be checked in registry '${setupOf(kind).host}': `,
      "It is deployed unchecked ('verify-images: auto')",
    )
    expect(run.outputs.digests).toBe('{}')
    expect(run.summary).toContain(`| Frontend image | ${images.frontend.reference} (not checked) |`)
  })

  test('without any login the registry is asked anonymously: a warning in auto, a failure in true', async () => {
    const { images } = setupOf(kind)
    const inputs = { 'frontend-image': images.frontend.reference }
    for (const run of await autoAndTrue(`${kind}: anonymous`, inputs))
      expect(run.stdout).toContain(
        "the registry refused anonymous access (HTTP 401); give 'registry-username' and 'registry-password', or run `docker login` in an earlier step",
      )
  })

  test('a digest that does not match the tag fails, with no POST', async () => {
    const { images } = setupOf(kind)
    const stale = `${images.frontend.reference}@${images.frontendV2.digest}`
    const { run, posts } = await deploy(`${kind}: mismatch`, {
      'frontend-image': stale,
      ...CREDENTIALS,
    })

    expect(run.code).toBe(1)
    expect(posts).toBe(0)
    expect(run.stdout).toContain(
      `The frontend image '${stale}' pins ${images.frontendV2.digest}, but registry '${setupOf(kind).host}' answers ${images.frontend.digest} for 'v1'`,
    )
  })

  test('the login that `docker login` wrote to the Docker config is used', async () => {
    const { images, loggedIn } = setupOf(kind)
    const { run, posts } = await deploy(
      `${kind}: docker config`,
      { 'frontend-image': images.frontend.reference, 'verify-images': 'true' },
      { env: { DOCKER_CONFIG: loggedIn } },
    )

    expect(run.code).toBe(0)
    expect(posts).toBe(1)
    expect(run.stdout).toContain(
      `Registry '${setupOf(kind).host}': asked with the login from the Docker config ${join(loggedIn, 'config.json')}.`,
    )
    expect(JSON.parse(run.outputs.digests ?? '')).toEqual({
      [images.frontend.reference]: images.frontend.digest,
    })
  })

  test('the images of payload-file are checked too, and a dry run checks as well', async () => {
    const { images, host } = setupOf(kind)
    await withCleanup(async (testCleanup) => {
      const workspace = await testCleanup.tempDir('olympe-verify-ws-')
      await writeFile(
        join(workspace, 'base.json'),
        JSON.stringify({ backends: { images: [`${host}/app/legacy:7`] } }),
      )
      const inputs = {
        'frontend-image': images.frontend.reference,
        'payload-file': 'base.json',
        ...CREDENTIALS,
      }
      const sent = await deploy(`${kind}: payload-file`, inputs, { cwd: workspace })
      const dry = await deploy(
        `${kind}: dry run`,
        { ...inputs, 'dry-run': 'true' },
        { cwd: workspace },
      )

      for (const { run, posts } of [sent, dry]) {
        expect(run.code).toBe(1)
        expect(posts).toBe(0)
        expect(run.stdout).toContain(
          `The backend image '${host}/app/legacy:7' does not exist in registry '${host}'`,
        )
      }
    })
  })
})

describe('what is checked is what is sent', () => {
  test('a registry whose Docker-Content-Digest names another manifest than the one it sends is refused, naming both, with no POST', async () => {
    const { images, registry } = setupOf('basic')
    // The real registry behind a relay that claims frontend:v2's digest for frontend:v1.
    const liar = cleanup.track(
      'lying relay',
      await startRegistryProxy(registry.url, {
        headers: (request, headers) =>
          request.path.endsWith('/app/frontend/manifests/v1')
            ? { ...headers, 'docker-content-digest': images.frontendV2.digest }
            : headers,
      }),
    )
    const reference = `${liar.host}/app/frontend:v1`
    for (const mode of ['auto', 'true'])
      for (const pin of ['auto', 'false']) {
        const { run, posts } = await deploy(`lying digest ${mode} ${pin}`, {
          'frontend-image': reference,
          'verify-images': mode,
          'pin-digests': pin,
          ...CREDENTIALS,
        })
        expect({ mode, pin, code: run.code, posts }).toEqual({ mode, pin, code: 1, posts: 0 })
        expect(run.stdout).toContain(
          `The frontend image '${reference}': registry '${liar.host}' named its manifest ${images.frontendV2.digest} (Docker-Content-Digest), but the manifest it sent hashes to ${images.frontend.digest}; a registry whose digest is not that of what it sends cannot say what the platform would pull: check the registry, and any proxy or cache in front of it`,
        )
        expect(run.outputs.digests).toBe('{}')
      }
    // Each image is resolved by one GET of its manifest: nothing asks its tag twice.
    expect(liar.requests.filter((line) => line.startsWith('HEAD'))).toEqual([])
  })

  test('with registry-mirrors, the payload names the digest the mirror gave, which the mirror and the registry name differently', async () => {
    const { images, host } = setupOf('basic')
    const mirror = cleanup.track(
      'mirror',
      await startRegistry({ user: 'unused', password: 'unused-password', anonymous: true }),
    )
    cleanup.add(`images of ${mirror.host}`, () => removeImages(`${mirror.host}/`))
    const base = await ensureBaseImages()
    // The mirror's frontend:v1 is another image than the registry's.
    const mirrored = await pushImage(base.codeasdata, `${mirror.host}/cache/app/frontend:v1`)
    expect(mirrored).not.toBe(images.frontend.digest)
    const inputs = {
      'frontend-image': images.frontend.reference,
      'registry-mirrors': `${host}=${mirror.host}/cache`,
      'verify-images': 'true',
      ...CREDENTIALS,
    }
    const { run, posts } = await deploy('mirror pins', inputs)

    expect({ code: run.code, posts }).toEqual({ code: 0, posts: 1 })
    const sent = `${images.frontend.reference}@${mirrored}`
    expect(JSON.parse(webhook.requests[0]?.body ?? '')).toMatchObject({ frontend: { image: sent } })
    expect(run.outputs.payload).toBe(webhook.requests[0]?.body)
    expect(JSON.parse(run.outputs.digests ?? '')).toEqual({
      [images.frontend.reference]: mirrored,
    })
    expect(run.stdout).toContain(
      `frontend ${images.frontend.reference} (asked at its mirror '${mirror.host}'): found, ${mirrored}`,
    )
    expect(run.summary).toContain(`| Frontend image | ${sent} (verified) |`)

    // pin-digests false: the mirror may not answer, the registry itself is asked.
    const given = await deploy('mirror unused', { ...inputs, 'pin-digests': 'false' })
    expect({ code: given.run.code, posts: given.posts }).toEqual({ code: 0, posts: 1 })
    expect(JSON.parse(webhook.requests[0]?.body ?? '')).toMatchObject({
      frontend: { image: images.frontend.reference },
    })
    expect(JSON.parse(given.run.outputs.digests ?? '')).toEqual({
      [images.frontend.reference]: images.frontend.digest,
    })
    expect(given.run.stdout).toContain(
      `The images of '${host}' are asked at '${host}' itself, not at its mirror in 'registry-mirrors'`,
    )
  }, 120_000)
})

/** A registry that accepts connections and requests, and never answers: one that hangs. */
async function startSilentRegistry(asked: string[]): Promise<Listening & { host: string }> {
  const silent = createServer((req) => asked.push(`${req.method ?? ''} ${req.url ?? ''}`))
  const listening = await listenOnLoopback(silent)
  return { ...listening, host: `127.0.0.1:${listening.port}` }
}

describe('registries that cannot be asked', () => {
  const asked: string[] = []
  const silent = useStarted('silent registry', () => startSilentRegistry(asked))

  test('a refused connection is retried, then warns in auto and fails in true', async () => {
    const closed = `127.0.0.1:${await freePort()}`
    const inputs = { 'frontend-image': `${closed}/app/frontend:v1` }
    for (const run of await autoAndTrue('refused', inputs))
      expect(run.stdout).toContain(
        `could not be checked in registry '${closed}': the server refused the connection (ECONNREFUSED) (3 attempts)`,
      )
  })

  test('an https registry that does not resolve: a warning, then the (plain http) webhook is called', async () => {
    const { run, posts } = await deploy('unknown host', {
      'frontend-image': 'registry.olympe.invalid/app/frontend:v1',
    })

    expect([run.code, posts]).toEqual([0, 1])
    expect(run.stdout).toContain(
      "could not be checked in registry 'registry.olympe.invalid': the host name could not be resolved (ENOTFOUND) (3 attempts)",
    )
  })

  test('a registry that never answers is given up on within timeout-seconds', async () => {
    const inputs = { 'frontend-image': `${silent.host}/app/frontend:v1`, 'timeout-seconds': '2' }
    // The check has half of the time left; the webhook call keeps the rest, and is made.
    for (const run of await autoAndTrue('silent', inputs))
      expect(run.stdout).toMatch(
        new RegExp(
          `could not be checked in registry '${silent.host}': no answer within the [01]\\.\\d s the image check had: half of what was left of 'timeout-seconds' \\(2 s\\); raise it to give registries more time`,
        ),
      )
    expect(asked).toContain('GET /v2/app/frontend/manifests/v1')
  })

  test('verify-images false asks no registry at all', async () => {
    asked.length = 0
    const { run, posts } = await deploy('false', {
      'frontend-image': `${silent.host}/app/frontend:v1`,
      'verify-images': 'false',
    })

    expect([run.code, posts]).toEqual([0, 1])
    expect(asked).toEqual([])
    expect(run.stdout).toContain(
      "The images were not checked in their registries ('verify-images: false').",
    )
    expect(run.outputs.digests).toBe('{}')
  })

  test('the command line (GitLab jobs) fails the same way, with no POST', async () => {
    const { images, host } = setupOf('basic')
    const { run, posts } = await deploy(
      'cli missing',
      { 'frontend-image': `${host}/app/frontend:nope`, ...CREDENTIALS },
      { cli: true, env: { GITLAB_CI: 'true' } },
    )

    expect([run.code, posts]).toEqual([1, 0])
    expect(run.stderr).toContain(
      `Error: The image check failed for 1 of 1 image(s), so the deployment was not requested:\n- The frontend image '${host}/app/frontend:nope' does not exist in registry '${host}' (HTTP 404, MANIFEST_UNKNOWN)`,
    )
    expect(images.frontend.digest).toMatch(/^sha256:/)
  })
})

describe('a registry behind a private certificate authority (certs.d, a docker-container builder)', () => {
  // Docker pushes to it on 127.0.0.1 without trusting the authority (loopback is an insecure
  // registry); the image check asks it at this machine's external address, over https, as a
  // deploy job asks a company registry: Node.js trusts the authority only through
  // NODE_EXTRA_CA_CERTS.
  let tls: TlsFiles
  let pushed: Pushed
  let reference = ''
  const tlsCleanup = useCleanup()

  beforeAll(async () => {
    const address = externalAddress()
    tls = tlsCleanup.track('certificates', await makeTlsFiles([address, '127.0.0.1']))
    const registry = tlsCleanup.track(
      'registry',
      await startRegistry({ user: USER, password: PASSWORD, tls }),
    )
    tlsCleanup.add(`images of ${registry.host}`, () => removeImages(`${registry.host}/`))
    const env = {
      ...process.env,
      DOCKER_CONFIG: await tlsCleanup.tempDir('olympe-docker-config-tls-'),
    }
    await dockerLogin(registry, { env })
    const base = await ensureBaseImages()
    const local = `${registry.host}/app/frontend:v1`
    pushed = { reference: local, digest: await pushImage(base.frontend, local, { env }) }
    reference = local.replace('127.0.0.1:', `${address}:`)
  }, 120_000)

  test('without NODE_EXTRA_CA_CERTS the certificate is refused, and the message says what to set', async () => {
    const inputs = { 'frontend-image': reference, ...CREDENTIALS }
    for (const run of await autoAndTrue('private CA, no CA', inputs))
      expect(run.stdout).toMatch(
        /could not be checked in registry '[\d.]+:\d+': the server's TLS certificate was refused \([A-Z_]+\); if it is signed by a private certificate authority, give that authority's PEM file in the NODE_EXTRA_CA_CERTS environment variable of the step/,
      )
  })

  test('with NODE_EXTRA_CA_CERTS the image is found over https, with the digest docker pushed', async () => {
    const { run, posts } = await deploy(
      'private CA, with CA',
      { 'frontend-image': reference, 'verify-images': 'true', ...CREDENTIALS },
      { env: { NODE_EXTRA_CA_CERTS: tls.caFile } },
    )

    expect([run.code, posts]).toEqual([0, 1])
    expect(JSON.parse(run.outputs.digests ?? '')).toEqual({ [reference]: pushed.digest })
  })
})

// Last on purpose: it reads what every run above printed.
test('no run printed the registry password, its base64 login, a bearer token or the webhook secrets', () => {
  expect(Object.keys(runs).length).toBeGreaterThanOrEqual(20)
  expect(tokens.issued.length).toBeGreaterThan(0)
  expectNoSecrets(runs, [
    PASSWORD,
    WRONG_PASSWORD,
    Buffer.from(`${USER}:${PASSWORD}`).toString('base64'),
    Buffer.from(`${USER}:${WRONG_PASSWORD}`).toString('base64'),
    WEBHOOK_TOKEN,
    webhook.url,
    ...tokens.issued,
  ])
})
