import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { checkImage, type CheckOutcome } from '../../../../src/core/registry/manifest-check.js'
import { MANIFEST_TYPES } from '../../../../src/core/registry/manifests.js'
import type { RegistryCredentials } from '../../../../src/core/registry/credentials.js'
import { loginForms } from '../../../../src/core/registry/inputs.js'
import { registryImage, type RegistryImage } from '../../../../src/core/registry/reference.js'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import type { HttpRequest } from '../../../../src/core/shared/http.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { Redactor } from '../../../../src/core/shared/redactor.js'
import {
  errorBody,
  failure,
  fakeNetwork,
  respond,
  type RegistryScript,
} from '../../../helpers/fake-registry.js'

const sha256Of = (text: string): string =>
  `sha256:${createHash('sha256').update(text).digest('hex')}`
/** The manifest the registries of these tests hold under `v1`, and its digest. */
const BODY = '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"}'
const DIGEST = sha256Of(BODY)
const OTHER = `sha256:${'e'.repeat(64)}`
/** The manifest, as a registry sends it: its bytes, and their digest in the header. */
const MANIFEST_ANSWER = respond(200, { 'Docker-Content-Digest': DIGEST }, BODY)
const LOGIN: RegistryCredentials = {
  username: 'ci',
  password: 'pw-9',
  source: "'registry-username' and 'registry-password'",
}
const BASIC = `Basic ${Buffer.from('ci:pw-9').toString('base64')}`
const MANIFEST = 'https://reg.example.com/v2/app/web/manifests/v1'
const BEARER_CHALLENGE =
  'Bearer realm="https://auth.example.com/token",service="reg.example.com",scope="repository:app/web:pull"'

function image(reference = 'reg.example.com/app/web:v1'): RegistryImage {
  const found = registryImage(reference)
  if (isProblem(found)) throw new Error(found.problem)
  return found
}

interface Checked {
  outcome: CheckOutcome
  requests: HttpRequest[]
  waits: number[]
  /** What had been registered as a secret when each request was made. */
  secretsAt: string[][]
}

async function check(
  script: RegistryScript,
  options: { credentials?: RegistryCredentials; reference?: string; deadline?: number } = {},
): Promise<Checked> {
  const secrets: string[] = []
  const secretsAt: string[][] = []
  // As the platform does: the login's forms are registered before the check (see logins.ts).
  const redactor = new Redactor()
  const { credentials } = options
  for (const secret of credentials ? loginForms(credentials.username, credentials.password) : [])
    redactor.add(secret)
  const network = fakeNetwork((request) => {
    secretsAt.push([...secrets])
    return script(request)
  })
  const outcome = await checkImage(
    image(options.reference),
    options.credentials,
    startDeadline(network.clock, (options.deadline ?? 60_000) / 1000, "'timeout-seconds' (60 s)"),
    {
      ...network,
      registerSecret: (value) => {
        secrets.push(value)
        redactor.add(value)
      },
      redact: (text) => redactor.redact(text),
    },
  )
  return { outcome, requests: network.requests, waits: network.waits, secretsAt }
}

const asked = (request: HttpRequest): string =>
  `${request.method} ${request.url.href} ${request.headers.Authorization ?? '-'}`

/** A registry that answers `status`, with the error `code` in its body. */
const bodyOnGet =
  (status: number, code: string): RegistryScript =>
  () =>
    respond(status, {}, errorBody(code))

/** The outcome of an image the registry would not show with the login the step has (or none). */
const unauthorised = (detail: string): CheckOutcome => ({ kind: 'unauthorised', detail })

describe('checkImage: one GET, the challenge answered, the verdict', () => {
  test('an open registry: one GET that accepts every manifest kind, its bytes hashed as they come', async () => {
    const { outcome, requests } = await check(() => MANIFEST_ANSWER)
    expect(outcome).toEqual({ kind: 'found', digest: DIGEST })
    expect(requests.map(asked)).toEqual([`GET ${MANIFEST} -`])
    expect(requests[0]?.headers.Accept).toBe(MANIFEST_TYPES)
    expect(requests[0]?.hashBody).toBe(true)
    for (const type of [
      'application/vnd.oci.image.index.v1+json',
      'application/vnd.docker.distribution.manifest.list.v2+json',
      'application/vnd.oci.image.manifest.v1+json',
      'application/vnd.docker.distribution.manifest.v2+json',
    ])
      expect(MANIFEST_TYPES).toContain(type)
  })

  describe('Basic', () => {
    const basicRegistry: RegistryScript = (request) =>
      request.headers.Authorization === BASIC
        ? MANIFEST_ANSWER
        : respond(401, { 'WWW-Authenticate': 'Basic realm="registry"' })

    test('the challenge is answered with the login', async () => {
      const { outcome, requests } = await check(basicRegistry, { credentials: LOGIN })
      expect(outcome).toEqual({ kind: 'found', digest: DIGEST })
      expect(requests.map(asked)).toEqual([`GET ${MANIFEST} -`, `GET ${MANIFEST} ${BASIC}`])
    })

    test('without a login, anonymous access is refused', async () => {
      const { outcome, requests } = await check(basicRegistry)
      expect(outcome).toEqual(
        unauthorised(
          "the registry refused anonymous access (HTTP 401); give 'registry-username' and 'registry-password', or run `docker login` in an earlier step",
        ),
      )
      expect(requests).toHaveLength(1)
    })

    test('a wrong login is refused, naming where it came from', async () => {
      const { outcome } = await check(basicRegistry, {
        credentials: { ...LOGIN, password: 'wrong' },
      })
      expect(outcome).toEqual(
        unauthorised(
          "the registry refused the login from 'registry-username' and 'registry-password' (HTTP 401); check that the user name and the password or token are right, and that this user may pull 'app/web'",
        ),
      )
    })
  })

  describe('Bearer', () => {
    const bearerRegistry =
      (tokenAnswer: () => ReturnType<RegistryScript>): RegistryScript =>
      (request) => {
        if (request.url.host === 'auth.example.com') return tokenAnswer()
        return request.headers.Authorization === 'Bearer tkn-123'
          ? MANIFEST_ANSWER
          : respond(401, { 'WWW-Authenticate': BEARER_CHALLENGE })
      }
    const tokenService = bearerRegistry(() => respond(200, {}, '{"token":"tkn-123"}'))

    test('a token for pull on the repository, from the realm, with the login; masked before use', async () => {
      const { outcome, requests, secretsAt } = await check(tokenService, { credentials: LOGIN })
      expect(outcome).toEqual({ kind: 'found', digest: DIGEST })
      expect(requests.map(asked)).toEqual([
        `GET ${MANIFEST} -`,
        `GET https://auth.example.com/token?service=reg.example.com&scope=repository%3Aapp%2Fweb%3Apull ${BASIC}`,
        `GET ${MANIFEST} Bearer tkn-123`,
      ])
      expect(secretsAt[2]).toEqual(['tkn-123'])
    })

    test('an anonymous token without a login; `access_token` is read too', async () => {
      const { outcome, requests } = await check(
        bearerRegistry(() => respond(200, {}, '{"access_token":"tkn-123"}')),
      )
      expect(outcome).toEqual({ kind: 'found', digest: DIGEST })
      expect(requests[1]?.headers.Authorization).toBeUndefined()
    })

    test.each([
      [
        'the token service refuses the login',
        () => respond(401, {}, errorBody('UNAUTHORIZED')),
        unauthorised(
          "the token service auth.example.com refused the login from 'registry-username' and 'registry-password' (HTTP 401); check that the user name and the password or token are right, and that this user may pull 'app/web'",
        ),
      ],
      [
        'the token service gives no token',
        () => respond(200, {}, '{"expires_in":300}'),
        {
          kind: 'unreachable',
          detail: 'the token service auth.example.com gave no token (HTTP 200)',
        },
      ],
      [
        'the token service is down',
        () => respond(503),
        {
          kind: 'unreachable',
          detail: 'the token service auth.example.com gave no token (HTTP 503)',
        },
      ],
    ])('%s', async (_name, tokenAnswer, expected) => {
      const { outcome } = await check(bearerRegistry(tokenAnswer), { credentials: LOGIN })
      expect(outcome).toEqual(expected)
    })

    test('a token that does not give access is refused', async () => {
      const { outcome } = await check(
        bearerRegistry(() => respond(200, {}, '{"token":"no-access"}')),
      )
      expect(outcome).toMatchObject({
        kind: 'unauthorised',
        detail: expect.stringContaining(
          'the registry refused anonymous access (HTTP 401)',
        ) as unknown,
      })
    })

    test.each([
      ['with a login', { credentials: LOGIN }],
      ['anonymously', {}],
    ])(
      'a plain http token service is never asked, %s: no token from it is forwarded',
      async (_name, options) => {
        const { outcome, requests } = await check(
          () =>
            respond(401, {
              'WWW-Authenticate': 'Bearer realm="http://auth.example.com/token",service="r"',
            }),
          options,
        )
        expect(outcome).toEqual(
          unauthorised(
            "the registry's token service is a plain http:// address (auth.example.com): a token service is asked over https, or over http only on the address of a registry on this machine, so it was not asked",
          ),
        )
        expect(requests.map(asked)).toEqual([`GET ${MANIFEST} -`])
      },
    )

    test('a realm at a cloud metadata address is never asked', async () => {
      const { outcome, requests } = await check(() =>
        respond(401, {
          'WWW-Authenticate': 'Bearer realm="https://169.254.169.254/latest/meta-data",service="r"',
        }),
      )
      expect(outcome).toEqual(
        unauthorised(
          "the registry's token service is at a link-local address (169.254.0.0/16 or fe80::/10, where cloud metadata services answer) (169.254.169.254), which is asked only when the registry itself is on that address, so it was not asked",
        ),
      )
      expect(requests).toHaveLength(1)
    })

    test("a local registry's plain http realm on its own address is asked, with the login", async () => {
      const local = 'http://127.0.0.1:5000/v2/app/web/manifests/v1'
      const { outcome, requests } = await check(
        (request) => {
          if (request.url.port === '5001') return respond(200, {}, '{"token":"tkn-local"}')
          return request.headers.Authorization === 'Bearer tkn-local'
            ? MANIFEST_ANSWER
            : respond(401, {
                'WWW-Authenticate': 'Bearer realm="http://127.0.0.1:5001/token",service="r"',
              })
        },
        { credentials: LOGIN, reference: '127.0.0.1:5000/app/web:v1' },
      )
      expect(outcome).toEqual({ kind: 'found', digest: DIGEST })
      expect(requests.map(asked)).toEqual([
        `GET ${local} -`,
        `GET http://127.0.0.1:5001/token?service=r&scope=repository%3Aapp%2Fweb%3Apull ${BASIC}`,
        `GET ${local} Bearer tkn-local`,
      ])
    })

    test.each([
      ['a realm that is no URL', 'Bearer realm="token",service="r"', "'token'"],
      [
        "a realm's control characters are shown escaped",
        'Bearer realm="a\u001b[0Kb\rc"',
        "'a\\x1b[0Kb\\x0dc'",
      ],
    ])('%s', async (_name, challenge, shown) => {
      const { outcome } = await check(() => respond(401, { 'WWW-Authenticate': challenge }))
      expect(outcome).toEqual({
        kind: 'unreachable',
        detail: `the registry named no usable token service (realm ${shown})`,
      })
    })
  })

  test('a 401 without a challenge that can be answered', async () => {
    const { outcome } = await check(() => respond(401, { 'WWW-Authenticate': 'Negotiate' }))
    expect(outcome).toEqual(
      unauthorised(
        "the registry answered 401 with no challenge this step can answer (WWW-Authenticate: 'Negotiate')",
      ),
    )
    const hostile = await check(() =>
      respond(401, { 'WWW-Authenticate': `Negotiate \u001b]8;;x\u0007${'y'.repeat(300)}` }),
    )
    expect(hostile.outcome).toEqual(
      unauthorised(
        `the registry answered 401 with no challenge this step can answer (WWW-Authenticate: 'Negotiate \\x1b]8;;x\\x07${'y'.repeat(177)}… (cut)')`,
      ),
    )
  })

  describe('what the answer means', () => {
    test.each<[string, RegistryScript, CheckOutcome]>([
      [
        '404: missing, with the code the GET body gives',
        bodyOnGet(404, 'MANIFEST_UNKNOWN'),
        { kind: 'missing', detail: 'HTTP 404, MANIFEST_UNKNOWN' },
      ],
      ['404 with no body: missing', () => respond(404), { kind: 'missing', detail: 'HTTP 404' }],
      [
        'another status with NAME_UNKNOWN: missing',
        bodyOnGet(400, 'NAME_UNKNOWN'),
        { kind: 'missing', detail: 'HTTP 400, NAME_UNKNOWN' },
      ],
      [
        '403: refused',
        () => respond(403),
        unauthorised(
          "the registry refused anonymous access (HTTP 403); give 'registry-username' and 'registry-password', or run `docker login` in an earlier step",
        ),
      ],
      [
        '500: cannot be asked',
        bodyOnGet(500, 'UNKNOWN'),
        { kind: 'unreachable', detail: 'the registry answered HTTP 500, UNKNOWN' },
      ],
      [
        '429: cannot be asked',
        () => respond(429),
        { kind: 'unreachable', detail: 'the registry answered HTTP 429' },
      ],
      [
        'a redirect is not followed',
        () => respond(307, { Location: 'https://elsewhere.example.com/' }),
        { kind: 'unreachable', detail: 'the registry answered HTTP 307' },
      ],
    ])('%s', async (_name, script, expected) => {
      expect((await check(script)).outcome).toEqual(expected)
    })

    test("a registry's error codes: words as they are, anything else quoted and escaped, a few", async () => {
      const hostile = 'X\r\u001b[0Ksection_start:1:evil\r\u001b[0KFAKE'
      const { outcome } = await check(() => respond(404, {}, errorBody(hostile)))
      expect(outcome).toEqual({
        kind: 'missing',
        detail: "HTTP 404, 'X\\x0d\\x1b[0Ksection_start:1:evil\\x0d\\x1b[0KFAKE'",
      })
      const many = await check(() =>
        respond(500, {}, errorBody(...Array<string>(8).fill('UNKNOWN'))),
      )
      expect(many.outcome).toEqual({
        kind: 'unreachable',
        detail:
          'the registry answered HTTP 500, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, and 3 more',
      })
    })

    test('an error code that echoes the login is masked before it is cut', async () => {
      const long: RegistryCredentials = { ...LOGIN, password: `pw-${'k'.repeat(90)}` }
      const auth = `Basic ${Buffer.from(`ci:${long.password}`).toString('base64')}`
      const { outcome } = await check(
        (request) => {
          if (!request.headers.Authorization)
            return respond(401, { 'WWW-Authenticate': 'Basic realm="r"' })
          return respond(404, {}, errorBody(`${request.headers.Authorization}\u001b[0K`))
        },
        { credentials: long },
      )
      expect(auth.length).toBeGreaterThan(64)
      expect(outcome).toEqual({ kind: 'missing', detail: "HTTP 404, 'Basic ***\\x1b[0K'" })
    })

    test('the one GET says why: no second request', async () => {
      const { outcome, requests } = await check(bodyOnGet(404, 'MANIFEST_UNKNOWN'))
      expect(outcome).toEqual({ kind: 'missing', detail: 'HTTP 404, MANIFEST_UNKNOWN' })
      expect(requests).toHaveLength(1)
    })
  })

  describe('the digest: the hash of the bytes sent, never the header alone', () => {
    test('without Docker-Content-Digest: the bytes are hashed', async () => {
      const { outcome, requests } = await check(() => respond(200, {}, BODY))
      expect(outcome).toEqual({ kind: 'found', digest: DIGEST })
      expect(requests).toHaveLength(1)
    })

    test('the bytes as they came: the hash the port made of them, not of their text', async () => {
      // A body that is not valid UTF-8 loses bytes as text: the port hashes what arrived.
      const raw = 'f'.repeat(64)
      const { outcome } = await check(() => ({
        ...respond(200, {}, '{"x":"\uFFFD"}'),
        bodySha256: raw,
      }))
      expect(outcome).toEqual({ kind: 'found', digest: `sha256:${raw}` })
    })

    test.each([
      ['another manifest', OTHER],
      ['the digest of an empty body', sha256Of('')],
    ])(
      'a Docker-Content-Digest that names %s than the bytes sent: refused, naming both',
      async (_name, header) => {
        const { outcome } = await check(() =>
          respond(200, { 'Docker-Content-Digest': header }, BODY),
        )
        expect(outcome).toEqual({ kind: 'misnamed', named: header, hashed: DIGEST })
      },
    )

    test.each([
      ['the Authorization echoed back', BASIC],
      ['a digest with more after it', `${OTHER} Basic x`],
      ['upper-case hex', OTHER.toUpperCase().replace('SHA256', 'sha256')],
      ['a short digest', `sha256:${'d'.repeat(63)}`],
      ['another algorithm', `md5:${'d'.repeat(32)}`],
      ['two digests', `${DIGEST}, ${OTHER}`],
    ])(
      'a Docker-Content-Digest that is not a digest (%s) names nothing: the bytes are hashed',
      async (_name, header) => {
        const { outcome } = await check(
          () => respond(200, { 'Docker-Content-Digest': header }, BODY),
          { credentials: LOGIN },
        )
        expect(outcome).toEqual({ kind: 'found', digest: DIGEST })
      },
    )

    test('a sha512 header is checked against the sha512 of the bytes', async () => {
      const sha512 = `sha512:${createHash('sha512').update(BODY).digest('hex')}`
      const right = await check(() =>
        respond(200, { 'Docker-Content-Digest': ` ${sha512} ` }, BODY),
      )
      expect(right.outcome).toEqual({ kind: 'found', digest: DIGEST })
      const wrong = `sha512:${'a'.repeat(128)}`
      const lying = await check(() => respond(200, { 'Docker-Content-Digest': wrong }, BODY))
      expect(lying.outcome).toEqual({ kind: 'misnamed', named: wrong, hashed: sha512 })
    })

    test('a body cut at 4 MiB is hashed whole all the same; its sha512 cannot be', async () => {
      const cut = { ...respond(200, {}, BODY), bodyTruncated: true }
      expect((await check(() => cut)).outcome).toEqual({ kind: 'found', digest: DIGEST })
      const sha512 = `sha512:${'a'.repeat(128)}`
      const { outcome } = await check(() => cut, { reference: `reg.example.com/app/web@${sha512}` })
      expect(outcome).toEqual({
        kind: 'unreachable',
        detail:
          'its manifest could not be hashed (it is larger than 4194304 bytes), so its digest is unknown',
      })
    })

    const OTHER_BODY = '{"schemaVersion":2}'
    test.each<[string, string, string, CheckOutcome]>([
      [
        'pinned by digest, matching',
        `reg.example.com/app/web@${DIGEST}`,
        BODY,
        { kind: 'found', digest: DIGEST },
      ],
      [
        'pinned by digest, another manifest sent',
        `reg.example.com/app/web@${DIGEST}`,
        OTHER_BODY,
        { kind: 'mismatch', digest: sha256Of(OTHER_BODY), pinned: DIGEST, asked: DIGEST },
      ],
      [
        'a tag and a digest: the tag must still point at it',
        `reg.example.com/app/web:v1@${DIGEST}`,
        OTHER_BODY,
        { kind: 'mismatch', digest: sha256Of(OTHER_BODY), pinned: DIGEST, asked: 'v1' },
      ],
    ])('%s', async (_name, reference, sent, expected) => {
      const answered = respond(200, { 'Docker-Content-Digest': sha256Of(sent) }, sent)
      const { outcome } = await check(() => answered, { reference })
      expect(outcome).toEqual(expected)
    })

    test('a pinned digest is compared with the hash of the bytes when the header is missing', async () => {
      const { outcome } = await check(() => respond(200, {}, BODY), {
        reference: `reg.example.com/app/web@${OTHER}`,
      })
      expect(outcome).toEqual({ kind: 'mismatch', digest: DIGEST, pinned: OTHER, asked: OTHER })
    })
  })

  describe('only failures that never reached the server are repeated', () => {
    test.each(['refused', 'dns', 'connect-timeout'] as const)(
      '%s: three attempts, 250 ms then 500 ms apart, then cannot be asked',
      async (kind) => {
        const { outcome, requests, waits } = await check(() => failure(kind, `no way (${kind})`))
        expect(outcome).toEqual({ kind: 'unreachable', detail: `no way (${kind}) (3 attempts)` })
        expect(requests).toHaveLength(3)
        expect(waits).toEqual([250, 500])
      },
    )

    test('a refused connection that then answers is found', async () => {
      let calls = 0
      const { outcome } = await check(() => (++calls === 1 ? failure('refused') : MANIFEST_ANSWER))
      expect(outcome).toEqual({ kind: 'found', digest: DIGEST })
    })

    test.each(['tls', 'proxy', 'reset', 'partial', 'other'] as const)(
      '%s: one attempt',
      async (kind) => {
        const { outcome, requests } = await check(() => failure(kind, `broken (${kind})`))
        expect(outcome).toEqual({ kind: 'unreachable', detail: `broken (${kind})` })
        expect(requests).toHaveLength(1)
      },
    )

    test('a time-out is the budget spent: said in terms of timeout-seconds, not repeated', async () => {
      const { outcome, requests } = await check(() => failure('timeout'))
      expect(outcome).toEqual({
        kind: 'unreachable',
        detail: "no answer within 'timeout-seconds' (60 s)",
      })
      expect(requests).toHaveLength(1)
    })

    test('each request gets the time left, and none starts once it is spent', async () => {
      const spent = await check(() => respond(200), { deadline: 0 })
      expect(spent.outcome).toEqual({
        kind: 'unreachable',
        detail: "no answer within 'timeout-seconds' (60 s)",
      })
      expect(spent.requests).toHaveLength(0)
      const { requests } = await check(() => failure('refused'), { deadline: 400 })
      expect(requests.map((request) => request.timeoutMs)).toEqual([400, 150])
    })

    test('each request must connect within a third of the time, so that a retry fits', async () => {
      const { requests, waits } = await check(() => failure('connect-timeout'), { deadline: 9000 })
      expect(requests.map((request) => request.connectTimeoutMs)).toEqual([3000, 3000, 3000])
      expect(waits).toEqual([250, 500])
      const long = await check(() => respond(200), { deadline: 600_000 })
      expect(long.requests[0]?.connectTimeoutMs).toBe(10_000)
    })
  })
})

const LABELLED_CONFIG = JSON.stringify({
  architecture: 'amd64',
  os: 'linux',
  config: { Labels: { 'org.opencontainers.image.version': '1.4.0', draw_version: '2.15.1' } },
})
const LABELLED_CONFIG_DIGEST = sha256Of(LABELLED_CONFIG)
const LABELLED_MANIFEST = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: {
    mediaType: 'application/vnd.oci.image.config.v1+json',
    digest: LABELLED_CONFIG_DIGEST,
    size: LABELLED_CONFIG.length,
  },
  layers: [],
})
const AMD64_MANIFEST = sha256Of(LABELLED_MANIFEST)
const ATTESTATION_MANIFEST = `sha256:${'a'.repeat(64)}`
const LABELLED_INDEX = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.index.v1+json',
  manifests: [
    { digest: ATTESTATION_MANIFEST, platform: { os: 'unknown', architecture: 'unknown' } },
    { digest: `sha256:${'b'.repeat(64)}`, platform: { os: 'linux', architecture: 'arm64' } },
    { digest: AMD64_MANIFEST, platform: { os: 'linux', architecture: 'amd64' } },
  ],
})

/** A registry behind Basic auth whose blobs may live on another host. */
function labelledRegistry(
  options: { manifest?: string; blobAt?: string; config?: string; child?: string } = {},
): RegistryScript {
  return (request) => {
    const { host, pathname } = request.url
    if (host === 'blobs.example.net') return respond(200, {}, options.config ?? LABELLED_CONFIG)
    if (request.headers.Authorization !== BASIC)
      return respond(401, { 'WWW-Authenticate': 'Basic realm="r"' })
    if (pathname === '/v2/app/web/manifests/v1')
      return respond(
        200,
        { 'Docker-Content-Digest': sha256Of(options.manifest ?? LABELLED_INDEX) },
        options.manifest ?? LABELLED_INDEX,
      )
    if (pathname === `/v2/app/web/manifests/${AMD64_MANIFEST}`)
      return respond(200, {}, options.child ?? LABELLED_MANIFEST)
    if (pathname === `/v2/app/web/blobs/${LABELLED_CONFIG_DIGEST}`)
      return options.blobAt
        ? respond(307, { Location: options.blobAt })
        : respond(200, {}, options.config ?? LABELLED_CONFIG)
    return respond(404)
  }
}

async function labels(
  script: RegistryScript,
): Promise<{ outcome: CheckOutcome; requests: HttpRequest[] }> {
  const network = fakeNetwork(script)
  const outcome = await checkImage(
    image(),
    { username: 'ci', password: 'pw-9', source: 'the inputs' },
    startDeadline(network.clock, 60),
    { ...network, registerSecret: () => undefined, redact: (text: string) => text },
    { readConfig: true },
  )
  return { outcome, requests: network.requests }
}

const line = (request: HttpRequest): string =>
  `${request.method} ${request.url.href} ${request.headers.Authorization === undefined ? '-' : 'login'}`

describe('the image labels, read from the manifest the check resolved', () => {
  test("an index: linux/amd64's manifest (not the attestation), then its config blob, with the login", async () => {
    const { outcome, requests } = await labels(labelledRegistry())
    expect(outcome).toEqual({
      kind: 'found',
      digest: sha256Of(LABELLED_INDEX),
      config: { labels: { 'org.opencontainers.image.version': '1.4.0', draw_version: '2.15.1' } },
    })
    // The index as the check read it: the tag is asked once, then only digests.
    expect(requests.map(line)).toEqual([
      'GET https://reg.example.com/v2/app/web/manifests/v1 -',
      'GET https://reg.example.com/v2/app/web/manifests/v1 login',
      `GET https://reg.example.com/v2/app/web/manifests/${AMD64_MANIFEST} login`,
      `GET https://reg.example.com/v2/app/web/blobs/${LABELLED_CONFIG_DIGEST} login`,
    ])
  })

  test("a blob store's redirect is followed without the login", async () => {
    const { outcome, requests } = await labels(
      labelledRegistry({
        manifest: LABELLED_MANIFEST,
        blobAt: 'https://blobs.example.net/x?sig=1',
      }),
    )
    expect(outcome).toMatchObject({
      config: { labels: { 'org.opencontainers.image.version': '1.4.0' } },
    })
    expect(requests.map(line).slice(-2)).toEqual([
      `GET https://reg.example.com/v2/app/web/blobs/${LABELLED_CONFIG_DIGEST} login`,
      'GET https://blobs.example.net/x?sig=1 -',
    ])
  })

  test.each([
    [
      'a redirect to plain http',
      { manifest: LABELLED_MANIFEST, blobAt: 'http://blobs.example.net/x' },
      `the configuration blob ${LABELLED_CONFIG_DIGEST}: redirected to a plain http:// address (blobs.example.net)`,
    ],
    [
      'a blob that is not what its digest says',
      { manifest: LABELLED_MANIFEST, config: '{"config":{}}' },
      `the configuration blob ${LABELLED_CONFIG_DIGEST}: the registry named ${LABELLED_CONFIG_DIGEST}, but its bytes hash to ${sha256Of('{"config":{}}')}`,
    ],
    [
      "an index's entry sent with other bytes than its digest's",
      { child: '{"schemaVersion":2}' },
      `asked for ${AMD64_MANIFEST}, the registry sent a manifest whose bytes hash to ${sha256Of('{"schemaVersion":2}')}`,
    ],
    [
      'a manifest without config',
      { manifest: '{"schemaVersion":2,"layers":[]}' },
      'its manifest names no media type, so it is no image manifest',
    ],
  ])('%s: no labels, and why', async (_name, options, problem) => {
    const { outcome } = await labels(labelledRegistry(options))
    expect(outcome).toMatchObject({ kind: 'found', config: { problem } })
  })

  test('not asked: no GET beyond the check', async () => {
    const network = fakeNetwork(labelledRegistry())
    await checkImage(
      image(),
      { username: 'ci', password: 'pw-9', source: 'x' },
      startDeadline(network.clock, 60),
      {
        ...network,
        registerSecret: () => undefined,
        redact: (text: string) => text,
      },
    )
    expect(network.requests.map((request) => request.method)).toEqual(['GET', 'GET'])
  })
})
