import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import type { Payload } from '../../../../src/core/deploy/payload-schema.js'
import {
  checkLogin,
  verifyImages,
  type VerifyInputs,
  type VerifyMode,
} from '../../../../src/core/deploy/verify-images.js'
import type { RegistryLogin } from '../../../../src/core/registry/credentials.js'
import { ActionError, InputError } from '../../../../src/core/shared/errors.js'
import type { HttpRequest } from '../../../../src/core/shared/http.js'
import type { Reporter } from '../../../../src/core/shared/ports.js'
import {
  failure,
  fakeNetwork,
  respond,
  type RegistryScript,
} from '../../../helpers/fake-registry.js'
import { memoryFiles } from '../../../helpers/memory-files.js'
import { recordingLogger } from '../../../helpers/recording.js'
import { expectToSay } from '../../../helpers/assertions.js'

/** What every image of these registries is: one manifest, and its digest. */
const MANIFEST = '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"}'
const DIGEST = `sha256:${createHash('sha256').update(MANIFEST).digest('hex')}`
const OTHER = `sha256:${'2'.repeat(64)}`
const CONFIG = '/home/runner/.docker/config.json'
const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

/**
 * Registries whose repositories say what they are: `found` exists, `missing` does not, `locked`
 * wants a login (Basic, `ci`/`pw`), `misnamed` names another digest than the bytes it sends, and
 * the host `down.example` refuses connections.
 */
const registries: RegistryScript = (request) => {
  if (request.url.host === 'down.example')
    return failure('refused', 'the server refused the connection (ECONNREFUSED)')
  const repository = /\/v2\/(.+)\/manifests\//.exec(request.url.pathname)?.[1] ?? ''
  if (repository.endsWith('missing')) return respond(404)
  if (repository.endsWith('locked') && request.headers.Authorization !== basic('ci', 'pw'))
    return respond(401, { 'WWW-Authenticate': 'Basic realm="r"' })
  if (repository.endsWith('misnamed'))
    return respond(200, { 'Docker-Content-Digest': OTHER }, MANIFEST)
  return respond(200, { 'Docker-Content-Digest': DIGEST }, MANIFEST)
}

interface Verified {
  error?: Error
  shown?: Map<string, string>
  pins?: Map<string, string>
  outputs: Record<string, string>
  infos: string[]
  warnings: Array<{ message: string; title?: string }>
  requests: HttpRequest[]
  secrets: string[]
}

/** The check's inputs and the image inputs: the check phase decides the login's registry. */
type Given = Partial<
  Omit<VerifyInputs, 'login'> & Parameters<typeof checkLogin>[1] & { registryLogin: RegistryLogin }
>

/** As the deploy action does: the login decided in the check phase (checkLogin), then the check. */
async function verify(
  payload: Payload,
  inputs: Given = {},
  files: Record<string, string> = {},
): Promise<Verified> {
  const network = fakeNetwork(registries)
  const { logger, infos, annotations } = recordingLogger()
  const result: Verified = {
    outputs: {},
    infos,
    warnings: annotations,
    requests: network.requests,
    secrets: [],
  }
  const reporter: Reporter = {
    setOutput: (name, value) => (result.outputs[name] = value),
    summary: () => Promise.resolve(),
  }
  try {
    const { registryLogin, frontendImage, backendImages, codeasdataImage, ...rest } = {
      verifyImages: 'auto' as VerifyMode,
      ...imageInputsOf(payload),
      ...inputs,
    }
    const decided = checkLogin(payload, {
      verifyImages: rest.verifyImages,
      frontendImage,
      backendImages: backendImages ?? [],
      codeasdataImage,
      ...(registryLogin ? { registryLogin } : {}),
    })
    if (decided.warning) logger.warning(decided.warning, { title: 'Registry login not used' })
    const verified = await verifyImages(
      payload,
      {
        registryMirrors: [],
        deadline: startDeadline(network.clock, 60),
        ...rest,
        ...(decided.login ? { login: decided.login } : {}),
      },
      {
        ...network,
        logger,
        reporter,
        redact: (text) => text,
        files: memoryFiles(files),
        registerSecret: (value) => result.secrets.push(value),
        dockerConfigPath: CONFIG,
      },
    )
    result.shown = verified.beside
    result.pins = new Map([...verified.pins].map(([given, pin]) => [given, pin.reference]))
  } catch (error) {
    result.error = error as Error
  }
  return result
}

const frontend = (image: string): Payload => ({ frontend: { image } })
/** A frontend and backends, every backend deployed to every target. */
const withBackends = (frontendImage: string, backendImages: string[]): Payload => ({
  frontend: { image: frontendImage },
  backends: { images: backendImages, deployRules: [{ source: '.*', target: '.*' }] },
})

/** Unless a case says otherwise, every image of the payload was given as an input. */
function imageInputsOf(payload: Payload): Pick<Given, ImageInput> {
  return {
    frontendImage: payload.frontend?.image,
    backendImages: payload.backends?.images ?? [],
    codeasdataImage: payload.codeAsData?.image,
  }
}
type ImageInput = 'frontendImage' | 'backendImages' | 'codeasdataImage'

describe('verifyImages: the verdict table', () => {
  const cases: Array<[string, string, Record<VerifyMode, 'passes' | 'warns' | 'fails'>, string]> = [
    ['found', 'r.example/app/found:1', { auto: 'passes', true: 'passes', false: 'passes' }, ''],
    [
      'missing',
      'r.example/app/missing:1',
      { auto: 'fails', true: 'fails', false: 'passes' },
      "The frontend image 'r.example/app/missing:1' does not exist in registry 'r.example' (HTTP 404): check its tag or digest, and that it was pushed",
    ],
    [
      'mismatch',
      `r.example/app/found@${OTHER}`,
      { auto: 'fails', true: 'fails', false: 'passes' },
      `The frontend image 'r.example/app/found@${OTHER}' pins ${OTHER}, but registry 'r.example' answers ${DIGEST} for '${OTHER}': deploy the digest the registry holds, or fix the reference`,
    ],
    [
      'misnamed',
      'r.example/app/misnamed:1',
      { auto: 'fails', true: 'fails', false: 'passes' },
      `The frontend image 'r.example/app/misnamed:1': registry 'r.example' named its manifest ${OTHER} (Docker-Content-Digest), but the manifest it sent hashes to ${DIGEST}; a registry whose digest is not that of what it sends cannot say what the platform would pull: check the registry, and any proxy or cache in front of it`,
    ],
    [
      'unreachable',
      'down.example/app/found:1',
      { auto: 'warns', true: 'fails', false: 'passes' },
      "The frontend image 'down.example/app/found:1' could not be checked in registry 'down.example': the server refused the connection (ECONNREFUSED) (3 attempts)",
    ],
    [
      'unauthorised',
      'r.example/app/locked:1',
      { auto: 'warns', true: 'fails', false: 'passes' },
      "The frontend image 'r.example/app/locked:1' could not be checked in registry 'r.example': the registry refused anonymous access (HTTP 401); give 'registry-username' and 'registry-password', or run `docker login` in an earlier step",
    ],
    [
      'invalid (from payload-file)',
      'r.example/App/found:1',
      { auto: 'fails', true: 'fails', false: 'passes' },
      "The frontend image 'r.example/App/found:1' cannot be checked: 'r.example/App/found:1' has an invalid name",
    ],
  ]
  const rows = cases.flatMap(([name, image, verdicts, message]) =>
    (['auto', 'true', 'false'] as const).map(
      (mode) => [name, mode, verdicts[mode], image, message] as const,
    ),
  )

  test.each(rows)('%s, verify-images %s: %s', async (name, mode, verdict, image, message) => {
    const result = await verify(frontend(image), { verifyImages: mode })
    const warned = result.warnings.map((warning) => `${warning.title ?? ''}: ${warning.message}`)
    switch (verdict) {
      case 'fails':
        expect(result.error).toBeInstanceOf(ActionError)
        expectToSay(
          result.error?.message,
          `The image check failed for 1 of 1 image(s), so the deployment was not requested`,
          `\n- ${message}`,
        )
        expect(warned).toEqual([])
        break
      case 'warns':
        expect(result.error).toBeUndefined()
        expect(warned).toEqual([
          `Image not checked: ${message}. It is deployed unchecked ('verify-images: auto'); set 'verify-images: true' to require the check.`,
        ])
        break
      default:
        expect(result.error).toBeUndefined()
        expect(warned).toEqual([])
    }
    // Nothing is asked when the check is off, or about a reference that does not parse.
    const asks = mode !== 'false' && name !== 'invalid (from payload-file)'
    expect(result.requests.length > 0).toBe(asks)
  })

  test('every image of the payload is checked, and the digests output lists those found', async () => {
    const payload: Payload = {
      ...withBackends('r.example/app/found:1', [
        'r.example/app/api:1',
        'down.example/app/worker:1',
      ]),
      codeAsData: { image: `r.example/app/cad@${DIGEST}`, updateMode: 'manual' },
    }
    const result = await verify(payload)
    expect(result.error).toBeUndefined()
    expect(JSON.parse(result.outputs.digests ?? '')).toEqual({
      'r.example/app/found:1': DIGEST,
      'r.example/app/api:1': DIGEST,
      [`r.example/app/cad@${DIGEST}`]: DIGEST,
    })
    expect(Object.fromEntries(result.shown ?? [])).toEqual({
      'r.example/app/found:1': DIGEST,
      'r.example/app/api:1': DIGEST,
      'down.example/app/worker:1': 'not checked',
      [`r.example/app/cad@${DIGEST}`]: 'verified',
    })
    expect(result.infos).toEqual(
      expect.arrayContaining([
        `frontend r.example/app/found:1: found, ${DIGEST}`,
        `backend r.example/app/api:1: found, ${DIGEST}`,
        expect.stringMatching(
          /^backend down\.example\/app\/worker:1: not checked \(the server refused/,
        ),
        `code-as-data r.example/app/cad@${DIGEST}: found, ${DIGEST}`,
      ]),
    )
  })

  test('every failure is listed in the one message', async () => {
    const payload = withBackends('r.example/app/missing:1', [
      'r.example/app/missing:2',
      'r.example/app/found:2',
    ])
    const { error } = await verify(payload)
    expect(error?.message.split('\n')).toEqual([
      'The image check failed for 2 of 3 image(s), so the deployment was not requested:',
      expect.stringContaining("- The frontend image 'r.example/app/missing:1' does not exist"),
      expect.stringContaining("- The backend image 'r.example/app/missing:2' does not exist"),
    ])
  })

  test('verify-images false: nothing asked, and an empty digests output', async () => {
    const result = await verify(frontend('r.example/app/missing:1'), { verifyImages: 'false' })
    expect(result.requests).toEqual([])
    expect(result.outputs).toEqual({ digests: '{}' })
    expect(result.infos).toEqual([
      "The images were not checked in their registries ('verify-images: false').",
    ])
  })
})

describe('verifyImages: which login each registry is asked with', () => {
  const locked = (host: string): string => `${host}/app/locked:1`
  const authorizations = (result: Verified): Record<string, string[]> => {
    const seen: Record<string, string[]> = {}
    for (const request of result.requests)
      (seen[request.url.host] ??= []).push(request.headers.Authorization ?? '-')
    return seen
  }

  test("the inputs' login, for the images' one registry; registered as secrets", async () => {
    const result = await verify(frontend(locked('r.example')), {
      registryLogin: { username: 'ci', password: 'pw' },
      verifyImages: 'true',
    })
    expect(result.error).toBeUndefined()
    expect(authorizations(result)).toEqual({ 'r.example': ['-', basic('ci', 'pw')] })
    expect(result.secrets).toEqual(['pw', Buffer.from('ci:pw').toString('base64')])
    expect(result.infos).toContain(
      "Registry 'r.example': asked with the login from 'registry-username' and 'registry-password'.",
    )
  })

  test('images in two registries need `registry`: refused before any request', async () => {
    const payload = withBackends(locked('a.example'), [locked('b.example')])
    const { error, requests } = await verify(payload, {
      registryLogin: { username: 'ci', password: 'pw' },
    })
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).input).toBe('registry')
    expect(error?.message).toBe(
      "Invalid input 'registry' '': it is empty, but 'registry-username' and 'registry-password' are given and the images are in 2 registries ('a.example', 'b.example'); set 'registry' to the one these credentials are for (such as 'a.example'), so that they are never sent to another.",
    )
    expect(requests).toEqual([])
  })

  test('with `registry`, the login goes there and nowhere else', async () => {
    const payload = withBackends(locked('a.example'), [locked('b.example')])
    const result = await verify(payload, {
      registryLogin: { registry: 'b.example', username: 'ci', password: 'pw' },
    })
    expect(authorizations(result)).toEqual({
      'a.example': ['-'],
      'b.example': ['-', basic('ci', 'pw')],
    })
    expect(result.warnings.map((warning) => warning.message)).toEqual([
      expect.stringContaining("The frontend image 'a.example/app/locked:1' could not be checked"),
    ])
  })

  test('a login for a registry that holds none of the images is said to be unused', async () => {
    const result = await verify(frontend('r.example/app/found:1'), {
      registryLogin: { registry: 'ghcr.io', username: 'ci', password: 'pw' },
    })
    expect(result.infos).toContain(
      "No image is in 'ghcr.io', the registry 'registry-username' and 'registry-password' are for: they are not used.",
    )
    expect(result.secrets).toEqual([])
  })

  test("the job's Docker config: its login for the registry, registered as secrets; helpers noted", async () => {
    const config = JSON.stringify({
      auths: {
        'https://r.example': { auth: Buffer.from('ci:pw').toString('base64') },
        'other.example': { auth: Buffer.from('x:other-pw').toString('base64') },
      },
      credsStore: 'desktop',
    })
    const result = await verify(
      frontend(locked('r.example')),
      { verifyImages: 'true' },
      { [CONFIG]: config },
    )
    expect(result.error).toBeUndefined()
    expect(authorizations(result)).toEqual({ 'r.example': ['-', basic('ci', 'pw')] })
    expect(result.secrets).toEqual(['pw', Buffer.from('ci:pw').toString('base64')])
    expect(result.infos).toEqual(
      expect.arrayContaining([
        `Registry 'r.example': asked with the login from the Docker config ${CONFIG}.`,
        expect.stringContaining(
          `the Docker config ${CONFIG} names credential helpers (credsStore 'desktop')`,
        ),
      ]),
    )
  })

  test("the inputs' login wins over the Docker config's for the same registry", async () => {
    const config = JSON.stringify({
      auths: { 'r.example': { auth: Buffer.from('old:x').toString('base64') } },
    })
    const result = await verify(
      frontend(locked('r.example')),
      { registryLogin: { username: 'ci', password: 'pw' } },
      { [CONFIG]: config },
    )
    expect(authorizations(result)).toEqual({ 'r.example': ['-', basic('ci', 'pw')] })
  })

  const NOT_USED = `'registry-username' and 'registry-password' are given but 'registry' is empty, and no image input names a registry (the images come from 'payload-file' only): the registry a login is for is never taken from a file, so the images are checked without it. Set 'registry' to the registry these credentials are for.`

  test('a registry named only by payload-file gets no login: checked anonymously, with a warning to set registry', async () => {
    const result = await verify(frontend(locked('elsewhere.example')), {
      registryLogin: { username: 'ci', password: 'pw' },
      frontendImage: undefined,
      backendImages: [],
    })
    expect(authorizations(result)).toEqual({ 'elsewhere.example': ['-'] })
    expect(result.secrets).toEqual([])
    expect(result.warnings).toEqual([
      { title: 'Registry login not used', message: NOT_USED },
      {
        title: 'Image not checked',
        message: expect.stringContaining(
          "could not be checked in registry 'elsewhere.example': the registry refused anonymous access (HTTP 401)",
        ) as unknown,
      },
    ])
    expect(result.infos).toContain("Registry 'elsewhere.example': asked anonymously.")
  })

  test("the login's registry is inferred from the image inputs alone, whatever payload-file adds", async () => {
    const payload = withBackends(locked('r.example'), [
      locked('elsewhere.example'),
      locked('third.example'),
    ])
    const result = await verify(payload, {
      registryLogin: { username: 'ci', password: 'pw' },
      frontendImage: locked('r.example'),
      backendImages: [],
    })
    expect(result.error).toBeUndefined()
    expect(authorizations(result)).toEqual({
      'r.example': ['-', basic('ci', 'pw')],
      'elsewhere.example': ['-'],
      'third.example': ['-'],
    })
    expect(result.warnings.map((warning) => warning.title)).toEqual([
      'Image not checked',
      'Image not checked',
    ])
  })

  test('no login anywhere: asked anonymously', async () => {
    const result = await verify(frontend('r.example/app/found:1'))
    expect(result.infos).toContain("Registry 'r.example': asked anonymously.")
    expect(authorizations(result)).toEqual({ 'r.example': ['-'] })
  })
})

describe('verifyImages with registry-mirrors: a mirror answers only for an image then sent pinned', () => {
  const MIRRORS = [
    { registry: 'docker.io', location: 'r.example/hub', host: 'r.example' },
    { registry: 'ghcr.io', location: 'down.example/ghcr', host: 'down.example' },
  ]
  const mirrored = { registryMirrors: MIRRORS, pinning: 'mirrored' as const }

  test('found at the mirror: its digest, the reference given pinned to it, the mirror in the log', async () => {
    const result = await verify(frontend('acme/found:1'), mirrored)
    expect(result.error).toBeUndefined()
    expect(result.requests.map((request) => request.url.href)).toEqual([
      'https://r.example/v2/hub/acme/found/manifests/1',
    ])
    expect(JSON.parse(result.outputs.digests ?? '')).toEqual({ 'acme/found:1': DIGEST })
    expect(Object.fromEntries(result.pins ?? [])).toEqual({
      'acme/found:1': `acme/found:1@${DIGEST}`,
    })
    expect(Object.fromEntries(result.shown ?? [])).toEqual({
      [`acme/found:1@${DIGEST}`]: 'verified',
    })
    expect(result.infos).toContain(
      `frontend acme/found:1 (asked at its mirror 'r.example'): found, ${DIGEST}`,
    )
  })

  test('missing at the mirror: the message names the mirror and what it serves', async () => {
    const { error } = await verify(frontend('acme/missing:1'), mirrored)
    expect(error?.message).toBe(
      "The image check failed for 1 of 1 image(s), so the deployment was not requested:\n- The frontend image 'acme/missing:1' does not exist in registry 'r.example' (the mirror of 'docker.io' in 'registry-mirrors') (HTTP 404): check its tag or digest, and that it was pushed",
    )
  })

  test('a mirror out of reach: the warning of auto names it, and the image goes as given', async () => {
    const result = await verify(frontend('ghcr.io/acme/x:1'), mirrored)
    expect(result.warnings).toEqual([
      {
        title: 'Image not checked',
        message: expect.stringMatching(
          /^The frontend image 'ghcr\.io\/acme\/x:1' could not be checked in registry 'down\.example' \(the mirror of 'ghcr\.io' in 'registry-mirrors'\): the server refused the connection/,
        ) as unknown as string,
      },
    ])
    expect(result.pins?.size).toBe(0)
  })

  test('an image of a registry no mirror serves: asked where its name says, and not pinned', async () => {
    const result = await verify(frontend('r.example/app/found:1'), mirrored)
    expect(result.requests.map((request) => request.url.href)).toEqual([
      'https://r.example/v2/app/found/manifests/1',
    ])
    expect(result.pins?.size).toBe(0)
    expect(Object.fromEntries(result.shown ?? [])).toEqual({ 'r.example/app/found:1': DIGEST })
  })

  test('nothing pinned: the registry itself is asked, not its mirror, and the log says why', async () => {
    const result = await verify(frontend('r.example/app/found:1'), {
      registryMirrors: [
        { registry: 'r.example', location: 'down.example/r', host: 'down.example' },
      ],
      pinning: 'none',
    })
    expect(result.error).toBeUndefined()
    expect(result.requests.map((request) => request.url.href)).toEqual([
      'https://r.example/v2/app/found/manifests/1',
    ])
    expect(result.infos).toContain(
      "The images of 'r.example' are asked at 'r.example' itself, not at its mirror in 'registry-mirrors': nothing is sent pinned by digest ('pin-digests'), and a mirror may answer only for an image sent by the digest it gave, since the platform pulls from 'r.example'.",
    )
    expect(result.pins?.size).toBe(0)
  })
})

describe('verifyImages pinning every image (pin-digests: true, or verify-signatures)', () => {
  const every = { pinning: 'every' as const, pinReason: "'pin-digests: true'" }

  test('each image found gets its pinned reference, the tag kept; a given digest stays as given', async () => {
    const payload: Payload = {
      ...withBackends('r.example/app/found:1', [`r.example/app/api@${DIGEST}`]),
      codeAsData: { image: `r.example/app/cad:2@${DIGEST}`, updateMode: 'manual' },
    }
    const result = await verify(payload, every)
    expect(result.error).toBeUndefined()
    expect(Object.fromEntries(result.pins ?? [])).toEqual({
      'r.example/app/found:1': `r.example/app/found:1@${DIGEST}`,
      [`r.example/app/api@${DIGEST}`]: `r.example/app/api@${DIGEST}`,
      [`r.example/app/cad:2@${DIGEST}`]: `r.example/app/cad:2@${DIGEST}`,
    })
    // The summary shows each as sent; the digests output keeps the references given.
    expect([...(result.shown ?? []).keys()]).toEqual([...(result.pins ?? []).values()])
    expect(Object.keys(JSON.parse(result.outputs.digests ?? '') as object)).toEqual([
      'r.example/app/found:1',
      `r.example/app/api@${DIGEST}`,
      `r.example/app/cad:2@${DIGEST}`,
    ])
  })

  test('an image that cannot be checked has no digest to send: it fails under auto too, saying why', async () => {
    const result = await verify(frontend('down.example/app/found:1'), every)
    expect(result.warnings).toEqual([])
    expect(result.error?.message).toMatch(
      /^The image check failed for 1 of 1 image\(s\), so the deployment was not requested \('pin-digests: true' requires every image to be checked, to send it by the digest read\):\n- The frontend image 'down\.example\/app\/found:1' could not be checked in registry 'down\.example': the server refused the connection/,
    )
  })
})
