import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { checkImage, type CheckOutcome } from '../../../../src/core/registry/manifest-check.js'
import { registryImage, type RegistryImage } from '../../../../src/core/registry/reference.js'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import type { HttpRequest } from '../../../../src/core/shared/http.js'
import { fakeNetwork, respond, type RegistryScript } from '../../../helpers/fake-registry.js'

const CONFIG = JSON.stringify({
  architecture: 'amd64',
  os: 'linux',
  config: { Labels: { 'org.opencontainers.image.version': '1.4.0', draw_version: '2.15.1' } },
})
const sha = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`
const CONFIG_DIGEST = sha(CONFIG)
const IMAGE_MANIFEST = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: {
    mediaType: 'application/vnd.oci.image.config.v1+json',
    digest: CONFIG_DIGEST,
    size: CONFIG.length,
  },
  layers: [],
})
const AMD64 = sha(IMAGE_MANIFEST)
const ATTESTATION = `sha256:${'a'.repeat(64)}`
const INDEX = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.index.v1+json',
  manifests: [
    { digest: ATTESTATION, platform: { os: 'unknown', architecture: 'unknown' } },
    { digest: `sha256:${'b'.repeat(64)}`, platform: { os: 'linux', architecture: 'arm64' } },
    { digest: AMD64, platform: { os: 'linux', architecture: 'amd64' } },
  ],
})
const BASIC = `Basic ${Buffer.from('ci:pw-9').toString('base64')}`

function image(reference = 'reg.example.com/app/web:v1'): RegistryImage {
  const found = registryImage(reference)
  if ('problem' in found) throw new Error(found.problem)
  return found
}

/** A registry behind Basic auth whose blobs may live on another host. */
function registry(
  options: { manifest?: string; blobAt?: string; config?: string } = {},
): RegistryScript {
  return (request) => {
    const { host, pathname } = request.url
    if (host === 'blobs.example.net') return respond(200, {}, options.config ?? CONFIG)
    if (request.headers.Authorization !== BASIC)
      return respond(401, { 'WWW-Authenticate': 'Basic realm="r"' })
    if (pathname === '/v2/app/web/manifests/v1')
      return respond(
        200,
        { 'Docker-Content-Digest': sha(options.manifest ?? INDEX) },
        options.manifest ?? INDEX,
      )
    if (pathname === `/v2/app/web/manifests/${AMD64}`) return respond(200, {}, IMAGE_MANIFEST)
    if (pathname === `/v2/app/web/blobs/${CONFIG_DIGEST}`)
      return options.blobAt
        ? respond(307, { Location: options.blobAt })
        : respond(200, {}, options.config ?? CONFIG)
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

describe('the image labels, read after the check', () => {
  test("an index: linux/amd64's manifest (not the attestation), then its config blob, with the login", async () => {
    const { outcome, requests } = await labels(registry())
    expect(outcome).toEqual({
      kind: 'found',
      digest: sha(INDEX),
      config: { labels: { 'org.opencontainers.image.version': '1.4.0', draw_version: '2.15.1' } },
    })
    expect(requests.map(line)).toEqual([
      'HEAD https://reg.example.com/v2/app/web/manifests/v1 -',
      'HEAD https://reg.example.com/v2/app/web/manifests/v1 login',
      'GET https://reg.example.com/v2/app/web/manifests/v1 login',
      `GET https://reg.example.com/v2/app/web/manifests/${AMD64} login`,
      `GET https://reg.example.com/v2/app/web/blobs/${CONFIG_DIGEST} login`,
    ])
  })

  test("a blob store's redirect is followed without the login", async () => {
    const { outcome, requests } = await labels(
      registry({ manifest: IMAGE_MANIFEST, blobAt: 'https://blobs.example.net/x?sig=1' }),
    )
    expect(outcome).toMatchObject({
      config: { labels: { 'org.opencontainers.image.version': '1.4.0' } },
    })
    expect(requests.map(line).slice(-2)).toEqual([
      `GET https://reg.example.com/v2/app/web/blobs/${CONFIG_DIGEST} login`,
      'GET https://blobs.example.net/x?sig=1 -',
    ])
  })

  test.each([
    [
      'a redirect to plain http',
      { manifest: IMAGE_MANIFEST, blobAt: 'http://blobs.example.net/x' },
      "the config blob's GET was redirected to a plain http:// address (blobs.example.net)",
    ],
    [
      'a blob that is not what its digest says',
      { manifest: IMAGE_MANIFEST, config: '{"config":{}}' },
      `its config blob does not match its digest ${CONFIG_DIGEST}`,
    ],
    [
      'a manifest without config',
      { manifest: '{"schemaVersion":2,"layers":[]}' },
      'its manifest names no sha256 config blob',
    ],
  ])('%s: no labels, and why', async (_name, options, problem) => {
    const { outcome } = await labels(registry(options))
    expect(outcome).toMatchObject({ kind: 'found', config: { problem } })
  })

  test('not asked: no GET beyond the check', async () => {
    const network = fakeNetwork(registry())
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
    expect(network.requests.map((request) => request.method)).toEqual(['HEAD', 'HEAD'])
  })
})
