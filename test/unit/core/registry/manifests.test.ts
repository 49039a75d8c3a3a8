import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { pushBlob } from '../../../../src/core/registry/blobs.js'
import { readImage, tagManifest } from '../../../../src/core/registry/manifests.js'
import { registryImage } from '../../../../src/core/registry/reference.js'
import { RegistrySession, type Access } from '../../../../src/core/registry/session.js'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { fakeNetwork, respond, type RegistryScript } from '../../../helpers/fake-registry.js'

const sha = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`
const CONFIG = JSON.stringify({
  config: { Labels: { team: 'web' }, OnBuild: ['ARG SOURCES_PATH'] },
})
const MANIFEST = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
  config: {
    mediaType: 'application/vnd.docker.container.image.v1+json',
    digest: sha(CONFIG),
    size: CONFIG.length,
  },
  layers: [],
})
const LOGIN = { username: 'ci', password: 'pw-9', source: 'the test' }

function session(
  script: RegistryScript,
  access: Access = 'pull',
  secrets: string[] = [],
): { network: ReturnType<typeof fakeNetwork>; session: RegistrySession } {
  const network = fakeNetwork(script)
  const target = registryImage('reg.example.com/app/web:main')
  if (isProblem(target)) throw new Error(target.problem)
  const deadline = startDeadline(network.clock, 30, 'the test')
  const ports = {
    ...network,
    registerSecret: (value: string) => secrets.push(value),
    redact: (text: string) => text,
  }
  return { network, session: new RegistrySession(target, LOGIN, access, deadline, ports, 1) }
}

describe('readImage and tagManifest', () => {
  test('Bearer with push scope: one token for the manifest, the blob (through a redirect) and the PUT', async () => {
    const secrets: string[] = []
    const script: RegistryScript = (request) => {
      const { href } = request.url
      if (href.startsWith('https://auth.example.com/token'))
        return respond(200, {}, JSON.stringify({ token: 'tok-123' }))
      if (href.startsWith('https://storage.example.net/')) return respond(200, {}, CONFIG)
      if (request.headers.Authorization !== 'Bearer tok-123')
        return respond(401, {
          'WWW-Authenticate':
            'Bearer realm="https://auth.example.com/token",service="reg.example.com"',
        })
      if (href.endsWith(`/blobs/${sha(CONFIG)}`))
        return respond(307, { Location: 'https://storage.example.net/blob?signature=abc' })
      if (request.method === 'PUT')
        return respond(201, { 'Docker-Content-Digest': sha(request.body ?? '') })
      return respond(
        200,
        { 'Content-Type': 'application/vnd.docker.distribution.manifest.v2+json' },
        MANIFEST,
      )
    }
    const { network, session: registry } = session(script, 'pull,push', secrets)
    const read = await readImage(registry, 'main')
    expect(read).toEqual({
      kind: 'read',
      image: {
        manifest: {
          body: MANIFEST,
          mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
          digest: sha(MANIFEST),
        },
        imageDigest: sha(MANIFEST),
        labels: { team: 'web' },
        onBuild: ['ARG SOURCES_PATH'],
        env: [],
      },
    })
    if (read.kind !== 'read') return
    expect(await tagManifest(registry, read.image.manifest, 'main-5d6e7f8')).toBeUndefined()
    const token = network.requests.filter((r) => r.url.host === 'auth.example.com')
    expect(token.map((r) => r.url.searchParams.get('scope'))).toEqual([
      'repository:app/web:pull,push',
    ])
    expect(secrets).toEqual(['tok-123'])
    // The storage's signed URL authorises itself: the registry's token is not sent there.
    const storage = network.requests.find((r) => r.url.host === 'storage.example.net')
    expect(storage?.headers.Authorization).toBeUndefined()
    const put = network.requests.find((r) => r.method === 'PUT')
    expect(put?.body).toBe(MANIFEST)
    expect(put?.headers['Content-Type']).toBe(
      'application/vnd.docker.distribution.manifest.v2+json',
    )
  })

  test('a manifest whose bytes do not hash to the digest the registry names is not used', async () => {
    const { session: registry } = session(() =>
      respond(200, { 'Docker-Content-Digest': sha('other') }, MANIFEST),
    )
    expect(await readImage(registry, 'main')).toEqual({
      kind: 'unusable',
      detail: `the registry named ${sha('other')}, but its bytes hash to ${sha(MANIFEST)}`,
    })
  })

  test('a PUT answered without a digest: the tag is asked for, and must name the manifest', async () => {
    const manifest = {
      body: MANIFEST,
      mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
      digest: sha(MANIFEST),
    }
    const answer =
      (digest: string): RegistryScript =>
      (request) =>
        request.method === 'PUT' ? respond(201) : respond(200, { 'Docker-Content-Digest': digest })
    expect(
      await tagManifest(session(answer(sha(MANIFEST))).session, manifest, 'v2'),
    ).toBeUndefined()
    expect(await tagManifest(session(answer(sha('x'))).session, manifest, 'v2')).toBe(
      `the registry gave the tag '${sha('x')}', not ${sha(MANIFEST)}`,
    )
  })
})

describe('the registry writes: what an answer they do not accept says', () => {
  const BLOB = '{"payload":1}'
  const UPLOAD = { Location: '/v2/app/web/blobs/uploads/u1' }
  const codes = (code: string): string => JSON.stringify({ errors: [{ code }] })
  const manifest = { body: MANIFEST, mediaType: 'application/vnd.oci.image.manifest.v1+json' }
  const tagged = (script: RegistryScript): Promise<string | undefined> =>
    tagManifest(session(script, 'pull,push').session, { ...manifest, digest: sha(MANIFEST) }, 'v2')
  /** The blob is not there yet; the upload starts and ends as `start` and `put` answer. */
  const pushed = (
    start: RegistryScript,
    put: RegistryScript = () => respond(201),
  ): Promise<string | undefined> =>
    pushBlob(
      session(
        (request) =>
          request.method === 'HEAD'
            ? respond(404)
            : (request.method === 'POST' ? start : put)(request),
        'pull,push',
      ).session,
      { digest: sha(BLOB), text: BLOB },
    )

  test.each<[string, () => Promise<string | undefined>, string | undefined]>([
    [
      'a tag refused',
      () => tagged(() => respond(400, {}, codes('MANIFEST_INVALID'))),
      'the registry answered HTTP 400, MANIFEST_INVALID',
    ],
    [
      'an upload that does not start',
      () => pushed(() => respond(500)),
      'the registry answered HTTP 500 to the start of an upload',
    ],
    [
      'an upload started nowhere',
      () => pushed(() => respond(202)),
      'the registry answered HTTP 202 to the start of an upload, with no Location',
    ],
    [
      'an upload refused',
      () =>
        pushed(
          () => respond(202, UPLOAD),
          () => respond(400, {}, codes('DIGEST_INVALID')),
        ),
      `the registry answered HTTP 400, DIGEST_INVALID to the upload of ${sha(BLOB)}`,
    ],
    [
      'a login refused for the upload',
      () =>
        pushed(
          () => respond(202, UPLOAD),
          () => respond(403),
        ),
      "the registry refused the login from the test (HTTP 403); check that the user name and the password or token are right, and that this user may push to 'app/web'",
    ],
    ['an upload accepted', () => pushed(() => respond(202, UPLOAD)), undefined],
  ])('%s', async (_name, write, said) => {
    expect(await write()).toBe(said)
  })
})
