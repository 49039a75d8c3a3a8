// Signatures against the real cosign binary (Debian's cosign 2.5, no transparency log) and the
// real distribution registry with basic auth: what we sign, cosign verifies; what cosign signs, our
// deploy accepts; and what cosign refuses (no signature, another key's, one moved onto another
// digest), our deploy refuses before any POST. cosign reads the registry login from DOCKER_CONFIG.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { readdir, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { BuiltImage } from '../../src/core/build-images/build.js'
import { isProblem } from '../../src/core/shared/problem.js'
import { openSigningKey, type SigningKey } from '../../src/core/signing/private-key.js'
import { signImages } from '../../src/core/build-images/sign.js'
import { inputsLogin } from '../../src/core/registry/logins.js'
import { MANIFEST_TYPES } from '../../src/core/registry/manifests.js'
import { systemClock } from '../../src/tools/clock.js'
import { nodeFiles } from '../../src/tools/files.js'
import { createHttpClient } from '../../src/tools/http.js'
import { IMAGE_KINDS } from '../../src/core/shared/project-images.js'
import { useCleanup } from '../helpers/suite.js'
import { BASE_IMAGES, pushImage } from '../helpers/docker-env.js'
import { useDockerSuite } from '../helpers/docker-suite.js'
import { startRegistryProxy } from '../helpers/registry-proxy.js'
import { keyPairSecrets, pinnedOf, useCosignDeploys, type KeyPair } from '../helpers/cosign.js'
import { runAsGithub, runOutcome, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'

const KEY_PASSWORD = `cosign-pw-${randomBytes(8).toString('hex')}`
const WEBHOOK_TOKEN = 'signatures-webhook-token-4e2a'
const FINGERPRINT = 'io.olympe.deploy-actions.fingerprint'
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json'

const images: Record<string, { reference: string; digest: string }> = {}
/** Everything the runs printed or wrote, scanned for the keys at the end. */
const captured: Record<string, string> = {}
const cleanup = useCleanup(60_000)
const suite = useDockerSuite(cleanup)
/** `ours`, made by `cosign generate-key-pair` with KEY_PASSWORD: the deploy runs trust it. */
const {
  webhook,
  cosign: cosignTool,
  trusted: ours,
  push,
  deploy,
} = useCosignDeploys(cleanup, suite, {
  namespace: 'sig',
  images,
  trusted: { label: 'ours', password: KEY_PASSWORD },
  webhookToken: WEBHOOK_TOKEN,
  captured,
})
/** Another pair made by cosign; an unencrypted PEM pair. */
let other: KeyPair
let plain: KeyPair

beforeAll(async () => {
  other = await cosignTool.generateKeyPair('other', '')
  plain = plainKeyPair()
  await push('frontend:ours', BASE_IMAGES.frontend)
  await push('frontend:unsigned', BASE_IMAGES.codeasdata)
  await push('frontend:moved', BASE_IMAGES.backend)
  await push('backend:cosign', BASE_IMAGES.backend)
  await push('other:v1', BASE_IMAGES.frontend)
  await push('plain:v1', BASE_IMAGES.codeasdata)
}, 180_000)

function cosign(args: string[]): Promise<{ code: number | null; output: string }> {
  return cosignTool.run(args)
}

/** An ECDSA P-256 key in plain PEM (`EC PRIVATE KEY`), as openssl makes one. */
function plainKeyPair(): KeyPair {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return {
    folder: '',
    key: pair.privateKey.export({ format: 'pem', type: 'sec1' }).toString(),
    publicKey: pair.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  }
}

/** `cosign verify --key`, offline, against the loopback registry. */
function cosignVerify(
  publicKey: string,
  reference: string,
  annotations: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const required = Object.entries(annotations).flatMap(([key, value]) => ['-a', `${key}=${value}`])
  return cosign([
    'verify',
    '--key',
    publicKey,
    '--insecure-ignore-tlog=true',
    '--allow-http-registry=true',
    ...required,
    reference,
  ])
}

/** `cosign sign --key` with a pair's key file, offline, against the loopback registry. */
function cosignSign(
  pair: KeyPair,
  password: string,
  reference: string,
): Promise<{ code: number | null; output: string }> {
  return cosignTool.sign(pair, password, reference)
}

async function publicKeyFile(pair: KeyPair, name: string): Promise<string> {
  const path = join(cosignTool.home, name)
  await writeFile(path, pair.publicKey)
  return path
}

/** Our signer, in this process, on an image a test pushed. */
async function signWith(key: SigningKey, name: string, fingerprint?: string): Promise<string[]> {
  const image = images[name] as { reference: string; digest: string }
  const lines: string[] = []
  const logger = {
    info: (line: string) => lines.push(line),
    warning: (line: string) => lines.push(line),
    error: (line: string) => lines.push(line),
    debug: () => undefined,
    group: <T>(_title: string, body: () => Promise<T>) => body(),
  }
  const built: BuiltImage = {
    id: 'frontend',
    kind: 'frontend',
    reference: image.reference,
    references: [image.reference],
    digest: image.digest,
    ...(fingerprint ? { reused: { since: 'main-1a2b3c4', fingerprint } } : {}),
  }
  const registry = suite.registry
  await signImages(
    [built],
    [],
    {
      signingKey: key,
      push: true,
      login: inputsLogin(
        { registry: registry.host, username: registry.user, password: registry.password },
        [],
      ),
    },
    {
      logger,
      redact: (text) => text,
      registerSecret: () => undefined,
      http: createHttpClient('olympe-deploy-actions-test'),
      clock: systemClock,
      files: nodeFiles,
      dockerConfigPath: join(suite.dockerConfig, 'config.json'),
    },
  )
  captured[`signer ${name}`] = lines.join('\n')
  return lines
}

function opened(pair: KeyPair, password: string): SigningKey {
  const key = openSigningKey(pair.key, password)
  if (isProblem(key)) throw new Error(key.problem)
  return key
}

/** The `.sig` manifest of a digest, as the registry holds it (basic auth). */
async function signatureManifest(
  repository: string,
  digest: string,
): Promise<{ body: string; layers: number }> {
  const response = await fetch(
    `${suite.registry.url}/v2/${repository}/manifests/${digest.replace(':', '-')}.sig`,
    { headers: { Accept: OCI_MANIFEST, Authorization: basic() } },
  )
  const body = await response.text()
  if (response.status !== 200) return { body, layers: 0 }
  return { body, layers: (JSON.parse(body) as { layers: unknown[] }).layers.length }
}

function basic(): string {
  const { user, password } = suite.registry
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
}

const digestOf = (name: string): string => (images[name] as { digest: string }).digest
const pinned = (name: string): string =>
  pinnedOf(images[name] as { reference: string; digest: string })

describe('our signatures, checked by cosign verify --key', () => {
  test('the signer signs an image a test pushed with a key made by cosign generate-key-pair: cosign verify accepts it, fingerprint included', async () => {
    const fingerprint = `sha256:${'f'.repeat(64)}`
    const said = await signWith(opened(ours, KEY_PASSWORD), 'frontend:ours', fingerprint)
    expect(said).toContain(
      `frontend: signed ${digestOf('frontend:ours')} (${digestOf('frontend:ours').replace(':', '-')}.sig, fingerprint ${fingerprint}).`,
    )
    const pub = await publicKeyFile(ours, 'ours.pub')
    const verified = await cosignVerify(pub, pinned('frontend:ours'), {
      [FINGERPRINT]: fingerprint,
    })
    captured['cosign verify ours'] = verified.output
    expect({ code: verified.code, output: verified.output }).toEqual({
      code: 0,
      output: expect.stringContaining(
        'The signatures were verified against the specified public key',
      ),
    })
    // Signing again adds nothing: the signature is there.
    const again = await signWith(opened(ours, KEY_PASSWORD), 'frontend:ours', fingerprint)
    expect(again).toContain(
      `frontend: ${digestOf('frontend:ours')} is signed already under this key (${digestOf('frontend:ours').replace(':', '-')}.sig).`,
    )
    expect((await signatureManifest('sig/frontend', digestOf('frontend:ours'))).layers).toBe(1)
  }, 120_000)

  test('an unencrypted PEM key (EC PRIVATE KEY) signs too, and cosign verify accepts it', async () => {
    await signWith(opened(plain, ''), 'plain:v1')
    const pub = await publicKeyFile(plain, 'plain.pub')
    const verified = await cosignVerify(pub, pinned('plain:v1'))
    expect({ code: verified.code, output: verified.output }).toEqual({
      code: 0,
      output: expect.stringContaining('The cosign claims were validated'),
    })
    // And another key's signature there is kept: ours is appended beside it.
    const signed = await cosignSign(other, '', pinned('other:v1'))
    expect(signed.code).toBe(0)
    await signWith(opened(ours, KEY_PASSWORD), 'other:v1')
    expect((await signatureManifest('sig/other', digestOf('other:v1'))).layers).toBe(2)
    for (const pair of [other, ours]) {
      const verified = await cosignVerify(
        await publicKeyFile(pair, `both-${pair === ours ? 'ours' : 'other'}.pub`),
        pinned('other:v1'),
      )
      expect(verified.code).toBe(0)
    }
  }, 120_000)

  test('a wrong password is refused, naming the input and never the key', async () => {
    const refused = openSigningKey(ours.key, 'not-the-password')
    expect(refused).toEqual({
      input: 'signing-key-password',
      problem:
        "does not open 'signing-key': the key's authentication fails with it. Give the password that `cosign generate-key-pair` was given (COSIGN_PASSWORD; empty if none was)",
    })
    const run = await runAsGithub('build-images', {
      inputs: {
        registry: suite.registry.host,
        'signing-key': ours.key,
        'signing-key-password': 'not-the-password',
      },
    })
    captured['build-images wrong password'] = [
      run.stdout,
      run.stderr,
      ...Object.values(run.files),
    ].join('\n')
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      "::error title=olympe build-images%3A invalid input 'signing-key-password'::Invalid input 'signing-key-password' (value hidden: secret): does not open 'signing-key': the key's authentication fails with it. Give the password that `cosign generate-key-pair` was given (COSIGN_PASSWORD; empty if none was).",
    )
  }, 60_000)
})

describe('deploy with verify-signatures, against cosign', () => {
  test('a signature made by `cosign sign --key` is accepted, with ours: one POST', async () => {
    const signed = await cosignSign(ours, KEY_PASSWORD, pinned('backend:cosign'))
    captured['cosign sign'] = signed.output
    expect(signed.code).toBe(0)
    const { run, posts } = await deploy('accepted', {
      'frontend-image': (images['frontend:ours'] as { reference: string }).reference,
      'backend-images': (images['backend:cosign'] as { reference: string }).reference,
    })
    expect({ code: run.code, posts, tail: run.code === 0 ? '' : run.stdout.slice(-2000) }).toEqual({
      code: 0,
      posts: 1,
      tail: '',
    })
    expect(run.stdout).toContain(
      `frontend ${(images['frontend:ours'] as { reference: string }).reference}: found, ${digestOf('frontend:ours')}; signed`,
    )
    expect(run.stdout).toContain(
      `backend ${(images['backend:cosign'] as { reference: string }).reference}: found, ${digestOf('backend:cosign')}; signed`,
    )
  }, 120_000)

  const refusals = [
    {
      name: 'an unsigned image',
      image: 'frontend:unsigned',
      prepare: (): Promise<void> => Promise.resolve(),
      problem: (pub: string): string =>
        `- The frontend image '${images['frontend:unsigned']?.reference}' (${digestOf('frontend:unsigned')}) has no signature under the key of 'verify-signatures' (${pub}) (no '${digestOf('frontend:unsigned').replace(':', '-')}.sig' in its repository): sign it with the matching private key (build-images' 'signing-key', or \`cosign sign --key\`)`,
      cosign: 'no signatures found',
      cosignExit: 10,
    },
    {
      name: 'an image signed under another key',
      image: 'other:v1',
      prepare: async (): Promise<void> => {
        // Only the other key's signature: a copy of the image in a repository of its own.
        const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
        const reference = `${suite.registry.host}/sig/other-only:v1`
        images['other-only:v1'] = {
          reference,
          digest: await pushImage(BASE_IMAGES.frontend, reference, { env }),
        }
        const signed = await cosignSign(other, '', pinned('other-only:v1'))
        expect(signed.code).toBe(0)
      },
      problem: (pub: string): string =>
        `- The frontend image '${images['other-only:v1']?.reference}' (${digestOf('other-only:v1')}) carries 1 signature(s), none under the key of 'verify-signatures' (${pub}): it was signed with another key; check that 'verify-signatures' holds the public key of build-images' 'signing-key'`,
      cosign: 'no matching signatures',
      cosignExit: 12,
    },
    {
      name: 'a signature moved onto another digest',
      image: 'frontend:moved',
      prepare: async (): Promise<void> => {
        // The .sig manifest of frontend:ours, put under the tag of frontend:moved's digest.
        const { body } = await signatureManifest('sig/frontend', digestOf('frontend:ours'))
        const tag = `${digestOf('frontend:moved').replace(':', '-')}.sig`
        const put = await fetch(`${suite.registry.url}/v2/sig/frontend/manifests/${tag}`, {
          method: 'PUT',
          headers: { 'Content-Type': OCI_MANIFEST, Authorization: basic() },
          body,
        })
        expect(put.status).toBe(201)
      },
      problem: (pub: string): string =>
        `- The frontend image '${images['frontend:moved']?.reference}' (${digestOf('frontend:moved')}) carries a signature under the key of 'verify-signatures' (${pub}) made for another image (${digestOf('frontend:ours')}), not for this digest: a signature moved from another image proves nothing about this one`,
      cosign: 'invalid or missing digest in claim',
      cosignExit: 12,
    },
  ]

  test.each(refusals)(
    '$name is refused before any POST, as cosign verify refuses it',
    async ({ name, image, prepare, problem, cosign: cosignSays, cosignExit }) => {
      await prepare()
      const target = image === 'other:v1' ? 'other-only:v1' : image
      const verified = await cosignVerify(await publicKeyFile(ours, 'refusal.pub'), pinned(target))
      captured[`cosign verify ${name}`] = verified.output
      // cosign's exit codes: 10 no signature at all, 12 none that verifies.
      expect({ code: verified.code, says: verified.output.includes(cosignSays) }).toEqual({
        code: cosignExit,
        says: true,
      })
      const { run, posts } = await deploy(name, {
        'frontend-image': (images[target] as { reference: string }).reference,
      })
      expect({ code: run.code, posts }).toEqual({ code: 1, posts: 0 })
      const shown = /\(ECDSA P-256 key sha256:[0-9a-f]{16}\)/.exec(run.stdout)?.[0] ?? ''
      expect(run.stdout).toContain(
        `The image check failed for 1 of 1 image(s), so the deployment was not requested ('verify-signatures' requires every image to be checked and signed):%0A${problem(shown.slice(1, -1))}`,
      )
    },
    120_000,
  )
})

describe('the tag moved to an unsigned image right after its signature was read', () => {
  test('the payload names the digest whose signature was verified, not the tag', async () => {
    const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
    const at = (name: string): string => `${suite.registry.host}/sig/${name}`
    const signed = await pushImage(BASE_IMAGES.frontend, at('moving:v1'), { env })
    const unsigned = await pushImage(BASE_IMAGES.codeasdata, at('moving:unsigned'), { env })
    images['moving:v1'] = { reference: at('moving:v1'), digest: signed }
    await signWith(opened(ours, KEY_PASSWORD), 'moving:v1')
    // Whoever may push a tag moves v1 to the unsigned image as soon as the step has read the
    // signature of the image v1 named: the registry, reached through a relay that does so.
    const sigPath = `/v2/sig/moving/manifests/${signed.replace(':', '-')}.sig`
    let moved = 0
    const relay = cleanup.track(
      'relay',
      await startRegistryProxy(suite.registry.url, {
        after: async (request) => {
          if (request.method !== 'GET' || request.path !== sigPath || moved > 0) return
          const unsignedManifest = await fetch(
            `${suite.registry.url}/v2/sig/moving/manifests/unsigned`,
            { headers: { Accept: MANIFEST_TYPES, Authorization: basic() } },
          )
          const put = await fetch(`${suite.registry.url}/v2/sig/moving/manifests/v1`, {
            method: 'PUT',
            headers: {
              'Content-Type': unsignedManifest.headers.get('content-type') ?? '',
              Authorization: basic(),
            },
            body: await unsignedManifest.text(),
          })
          expect(put.status).toBe(201)
          moved++
        },
      }),
    )
    const reference = `${relay.host}/sig/moving:v1`
    const { run, posts } = await deploy('tag moved', { 'frontend-image': reference })

    expect({ code: run.code, posts, moved }).toEqual({ code: 0, posts: 1, moved: 1 })
    // The tag now names the unsigned image; the platform is sent the signed one, by digest.
    expect((await suite.registry.manifest('sig/moving', 'v1')).digest).toBe(unsigned)
    const sent = `${reference}@${signed}`
    const body = webhook.requests.at(-1)?.body ?? ''
    expect(JSON.parse(body)).toMatchObject({ frontend: { image: sent } })
    expect(run.outputs.payload).toBe(body)
    expect(JSON.parse(run.outputs.digests ?? '')).toEqual({ [reference]: signed })
    expect(run.stdout).toContain(`frontend ${reference}: found, ${signed}; signed`)
    expect(run.stdout).toContain(
      `Sent by the digest checked ('pin-digests: auto', as 'verify-signatures' is set):\n- ${reference} as ${sent}\n`,
    )
    // The tag was asked only before the signature read (anonymously, then with the login the
    // registry's challenge asks for): everything after went by the digest.
    const tagAsked = relay.requests.flatMap((line, index) =>
      line.includes('/sig/moving/manifests/v1') ? [index] : [],
    )
    expect(tagAsked).toHaveLength(2)
    expect(Math.max(...tagAsked)).toBeLessThan(relay.requests.indexOf(`GET ${sigPath}`))
  }, 120_000)
})

describe('build-images on the real engine, with signing-key', () => {
  let project = ''
  let repository = ''
  let runs = 0

  async function buildImages(): Promise<RunResult> {
    runs++
    const sha = `${runs}`.repeat(40).slice(0, 40)
    const when = new Date(Date.now() + runs * 60_000)
    for (const name of ['', ...(await readdir(project, { recursive: true }))])
      await utimes(join(project, name), when, when)
    const run = await suite.buildOnFreshEngine(project, {
      inputs: { codeasdata: 'true', 'signing-key': ours.key, 'signing-key-password': KEY_PASSWORD },
      env: { GITHUB_SHA: sha, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: '7' },
    })
    captured[`build-images run ${runs}`] = [
      run.stdout,
      run.stderr,
      ...Object.values(run.files),
    ].join('\n')
    expect(runOutcome(run)).toEqual({ code: 0, tail: '' })
    return run
  }

  beforeAll(async () => {
    // The bases in the registry, as a runner pulls them: what lets the second run reuse.
    project = await suite.copyProjectOnRegistryBases()
    repository = suite.uniqueRepository('signed')
  }, 120_000)

  test('every image pushed is signed, its fingerprint in the payload; cosign verify accepts each; a second run re-tags them and finds them signed', async () => {
    const first = await buildImages()
    const pub = await publicKeyFile(ours, 'build.pub')
    for (const kind of IMAGE_KINDS) {
      const digest = first.outputs[`${kind}-digest`] ?? ''
      const name = `${repository}/${kind}`
      const { config } = await suite.registry.manifest(name, 'main')
      const fingerprint = config.Labels?.[FINGERPRINT] ?? ''
      expect(first.stdout).toContain(
        `${kind}: signed ${digest} (${digest.replace(':', '-')}.sig, fingerprint ${fingerprint}).`,
      )
      const verified = await cosignVerify(pub, `${suite.registry.host}/${name}@${digest}`, {
        [FINGERPRINT]: fingerprint,
      })
      captured[`cosign verify ${kind}`] = verified.output
      expect({ kind, code: verified.code }).toEqual({ kind, code: 0 })
    }
    expect(first.summary).toContain('| Signatures | signed with the key of')

    const second = await buildImages()
    expect(JSON.parse(second.outputs.reused ?? '[]')).toEqual([...IMAGE_KINDS])
    for (const kind of IMAGE_KINDS) {
      const digest = second.outputs[`${kind}-digest`] ?? ''
      expect(digest).toBe(first.outputs[`${kind}-digest`])
      expect(second.stdout).toContain(
        `${kind}: ${digest} is signed already under this key (${digest.replace(':', '-')}.sig).`,
      )
      expect((await signatureManifest(`${repository}/${kind}`, digest)).layers).toBe(1)
    }
  }, 400_000)
})

// Last: every run above, every log line of the signer, every argv docker was given.
describe('leaks', () => {
  test('no capture holds a form of a signing key, its password or its PEM body', async () => {
    captured['docker argv'] = (await suite.spy.commands()).join('\n')
    expect(Object.keys(captured).length).toBeGreaterThan(15)
    expectNoSecrets(captured, keyPairSecrets(ours, KEY_PASSWORD))
    expectNoSecrets(captured, keyPairSecrets(plain))
  })
})
