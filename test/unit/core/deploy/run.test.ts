import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import type { DeployInputName } from '../../../../src/core/deploy/definition.js'
import {
  HttpFailure,
  type HttpRequest,
  type HttpResponse,
} from '../../../../src/core/shared/http.js'
import { frozenClock } from '../../../helpers/memory-files.js'
import {
  checkAndRunDeploy,
  deployPorts,
  WEBHOOK,
  type DeployRecord,
} from '../../../helpers/unit-fakes.js'
import { acceptedUnwatched } from '../../../helpers/webhook-server.js'

const TOKEN = WEBHOOK.token

/** The registry of the images, `r.io`, when a test turns the image check on. */
type Registry = (request: HttpRequest) => HttpResponse | HttpFailure

/**
 * The deploy core with recording ports; `redact` masks what a hostile echo would carry. The image
 * check is off unless the inputs turn it on: `requests` are then the webhook's alone.
 */
async function deploy(
  inputs: Partial<Record<DeployInputName, string>>,
  answer: HttpResponse = {
    status: 200,
    headers: {},
    body: '{"message":"success"}',
    bodyTruncated: false,
  },
  redact: (text: string) => string = (text) => text.split(TOKEN).join('***'),
  registry: Registry = () => new HttpFailure('refused', 'no registry in this test'),
): Promise<
  DeployRecord & { requests: HttpRequest[]; registryRequests: HttpRequest[]; error?: Error }
> {
  const requests: HttpRequest[] = []
  const registryRequests: HttpRequest[] = []
  const http = {
    request: (request: HttpRequest): Promise<HttpResponse> => {
      if (request.url.host === 'r.io') {
        registryRequests.push(request)
        const said = registry(request)
        return said instanceof HttpFailure ? Promise.reject(said) : Promise.resolve(said)
      }
      requests.push(request)
      return Promise.resolve(answer)
    },
  }
  const ports = deployPorts(http, frozenClock('2026-01-01T00:00:00Z'), redact)
  const { outputs, info, warnings, summaries } = ports
  try {
    await checkAndRunDeploy({ 'verify-images': 'false', ...inputs }, ports)
    return { outputs, requests, registryRequests, info, warnings, summaries }
  } catch (error) {
    const failed = error as Error
    return { outputs, requests, registryRequests, info, warnings, summaries, error: failed }
  }
}

const IMAGES = {
  'frontend-image': 'r.io/shop/frontend:1',
  'backend-images': 'r.io/shop/deploy-api:1',
  'deploy-rules': '[{"source": "deploy", "target": "^(?!manual).*$"}]',
}

describe('the deploy outputs', () => {
  test('built from the inputs alone: written as built, never through the redactor', async () => {
    // A redactor that would garble them, as masking 'deploy' once garbled `deployRules`.
    const garble = (text: string): string => text.replace(/deploy|manual/g, '***')
    const run = await deploy(IMAGES, undefined, garble)
    expect(run.error).toBeUndefined()
    expect(run.outputs).toEqual(acceptedUnwatched(run.requests[0]?.body))
    expect(JSON.parse(run.outputs.payload ?? '')).toEqual({
      frontend: { image: 'r.io/shop/frontend:1' },
      backends: {
        images: ['r.io/shop/deploy-api:1'],
        deployRules: [{ source: 'deploy', target: '^(?!manual).*$' }],
      },
      codeAsData: { updateMode: 'manual' },
      noDowntime: { promotionMode: 'manual' },
    })
  })

  test('they hold no secret by construction: neither the URL nor the token is ever in them', async () => {
    const run = await deploy(IMAGES)
    const all = Object.values(run.outputs).join('\n')
    for (const secret of [TOKEN, 'h.example/deploy', '5e6f7a8b9c0d'])
      expect(all).not.toContain(secret)
  })

  test("a failed call fills 'message' from the response, redacted", async () => {
    const run = await deploy(IMAGES, {
      status: 422,
      headers: {},
      body: JSON.stringify({ message: `image refused for token ${TOKEN}` }),
      bodyTruncated: false,
    })
    expect(run.error?.message).toContain('The webhook answered HTTP 422')
    expect(run.outputs).toMatchObject({ status: '422', message: 'image refused for token ***' })
  })

  test("a failed call without a message leaves 'message' empty", async () => {
    const run = await deploy(IMAGES, {
      status: 500,
      headers: {},
      body: '<html>oops</html>',
      bodyTruncated: false,
    })
    expect(run.outputs).toMatchObject({ status: '500', message: '' })
  })

  test('a dry run sends nothing and leaves status and message empty', async () => {
    const run = await deploy({ ...IMAGES, 'dry-run': 'true' })
    expect(run.requests).toHaveLength(0)
    expect(run.outputs).toMatchObject({ status: '', message: '' })
  })
})

describe('the printed payload and the payload output stay bounded', () => {
  const many = (count: number): string =>
    Array.from({ length: count }, (_, i) => `r.io/shop/backend-${i}:${'t'.repeat(100)}`).join('\n')

  test('the log cuts a long payload with a note; the output holds all of it', async () => {
    const run = await deploy({ 'backend-images': many(1000), 'dry-run': 'true' })
    expect(run.error).toBeUndefined()
    const printed = run.info.find((line) => line.startsWith('{')) ?? ''
    expect(printed.length).toBeLessThan(70_000)
    expect(printed).toMatch(
      /\n… \(cut: \d+ characters in all; the 'payload' output holds the whole payload\)$/,
    )
    const sent = JSON.parse(run.outputs.payload ?? '') as { backends: { images: string[] } }
    expect(sent.backends.images).toHaveLength(1000)
  })

  test('a payload over 1 MiB is refused before anything is sent', async () => {
    const run = await deploy({ 'backend-images': many(9000) })
    expect(run.requests).toHaveLength(0)
    expect(run.outputs).toEqual({})
    expect(run.error?.message).toMatch(
      /^The deployment payload would be \d+ bytes, more than the 1 MiB \(1048576 bytes\) that a step output holds/,
    )
  })
})

const MANIFEST = '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"}'
const DIGEST = `sha256:${createHash('sha256').update(MANIFEST).digest('hex')}`
/** r.io: every image exists, one manifest under every tag, except those under `/missing/`. */
const found: Registry = (request) =>
  request.url.pathname.includes('/missing/')
    ? { status: 404, headers: {}, body: '', bodyTruncated: false }
    : {
        status: 200,
        headers: { 'docker-content-digest': DIGEST },
        body: MANIFEST,
        bodyTruncated: false,
        bodySha256: DIGEST.slice('sha256:'.length),
      }

describe('the image check: after the payload, before the webhook call', () => {
  const checked = { 'verify-images': 'auto', 'frontend-image': 'r.io/shop/frontend:1' }

  test('every image found: the digests output, each digest beside its image, then the POST', async () => {
    const run = await deploy(checked, undefined, undefined, found)
    expect(run.error).toBeUndefined()
    expect(run.registryRequests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'GET /v2/shop/frontend/manifests/1',
    ])
    expect(run.requests).toHaveLength(1)
    expect(run.outputs.digests).toBe(JSON.stringify({ 'r.io/shop/frontend:1': DIGEST }))
    expect(run.summaries[0]?.rows).toContainEqual([
      'Frontend image',
      `r.io/shop/frontend:1 (${DIGEST})`,
    ])
  })

  test('an image that does not exist: the step fails and nothing is sent, dry run or not', async () => {
    for (const dryRun of ['false', 'true']) {
      const inputs = { ...checked, 'frontend-image': 'r.io/shop/missing:1', 'dry-run': dryRun }
      const run = await deploy(inputs, undefined, undefined, found)
      expect(run.requests).toHaveLength(0)
      expect(run.error?.message).toContain(
        "The frontend image 'r.io/shop/missing:1' does not exist in registry 'r.io' (HTTP 404)",
      )
      expect(run.outputs.status).toBeUndefined()
    }
  })

  test("a registry that never answers has half of 'timeout-seconds': the webhook call keeps the rest", async () => {
    const silent: Registry = () => new HttpFailure('timeout', 'no answer')
    const run = await deploy(
      { ...checked, 'timeout-seconds': '60', 'wait-minutes': '0' },
      undefined,
      undefined,
      silent,
    )
    expect(run.registryRequests.map((request) => request.timeoutMs)).toEqual([30_000])
    expect(run.warnings).toEqual([
      expect.stringContaining(
        "could not be checked in registry 'r.io': no answer within the 30.0 s the image check had: half of what was left of 'timeout-seconds' (60 s); raise it to give registries more time",
      ),
    ])
    expect(run.error).toBeUndefined()
    expect(run.requests).toHaveLength(1)
  })
})

describe('pin-digests: the payload names the digest the check read', () => {
  const images = {
    'frontend-image': 'r.io/shop/frontend:1',
    'backend-images': 'r.io/shop/api:1',
    'verify-images': 'auto',
    'pin-digests': 'true',
  }
  const pinned = (reference: string): string => `${reference}@${DIGEST}`

  test('the body sent, the payload output and the summary name each image pinned; digests keeps the references given', async () => {
    const run = await deploy(images, undefined, undefined, found)
    expect(run.error).toBeUndefined()
    const sent = JSON.parse(run.requests[0]?.body ?? '') as Record<string, unknown>
    expect(sent).toMatchObject({
      frontend: { image: pinned('r.io/shop/frontend:1') },
      backends: { images: [pinned('r.io/shop/api:1')] },
    })
    expect(run.outputs.payload).toBe(run.requests[0]?.body)
    expect(JSON.parse(run.outputs.digests ?? '')).toEqual({
      'r.io/shop/frontend:1': DIGEST,
      'r.io/shop/api:1': DIGEST,
    })
    expect(run.summaries[0]?.rows).toContainEqual([
      'Frontend image',
      `${pinned('r.io/shop/frontend:1')} (verified)`,
    ])
    expect(run.info).toEqual(
      expect.arrayContaining([
        "Sent by the digest checked ('pin-digests: true'):",
        `- r.io/shop/frontend:1 as ${pinned('r.io/shop/frontend:1')}`,
      ]),
    )
  })

  test('a dry run prints the request with the pinned references', async () => {
    const run = await deploy({ ...images, 'dry-run': 'true' }, undefined, undefined, found)
    expect(run.requests).toHaveLength(0)
    expect(run.info.find((line) => line.startsWith('Dry run'))).toContain(
      `"image":"${pinned('r.io/shop/frontend:1')}"`,
    )
    expect(JSON.parse(run.outputs.payload ?? '')).toMatchObject({
      frontend: { image: pinned('r.io/shop/frontend:1') },
    })
  })

  test('auto without verify-signatures or a mirror sends the references as given', async () => {
    const run = await deploy({ ...images, 'pin-digests': 'auto' }, undefined, undefined, found)
    expect(JSON.parse(run.requests[0]?.body ?? '')).toMatchObject({
      frontend: { image: 'r.io/shop/frontend:1' },
      backends: { images: ['r.io/shop/api:1'] },
    })
  })

  test('a deploy rule that pinning leaves unmatched: refused before the POST, and no payload output', async () => {
    const run = await deploy(
      { ...images, 'deploy-rules': '[{"source": "api:1$", "target": "api"}]' },
      undefined,
      undefined,
      found,
    )
    expect(run.requests).toHaveLength(0)
    expect(run.outputs.payload).toBeUndefined()
    expect(run.error?.message).toContain(
      `- 'r.io/shop/api:1' is sent as '${pinned('r.io/shop/api:1')}', which the source 'api:1$' of deploy rule [0] of 'deploy-rules' does not match: the platform would not deploy it to that rule's backends ('api')`,
    )
  })

  test('the warning for an image no rule matches is given once, on the reference sent', async () => {
    const run = await deploy(
      {
        ...images,
        'deploy-rules': '[{"source": "^nothing$", "target": "api"}]',
        'wait-minutes': '0',
      },
      undefined,
      undefined,
      found,
    )
    expect(run.error).toBeUndefined()
    expect(run.warnings).toEqual([
      `Backend image '${pinned('r.io/shop/api:1')}' matches no deploy rule's source ('^nothing$'): the platform will not deploy it to any backend.`,
    ])
  })

  test("a webhook that refuses the pinned payload: the message names 'pin-digests'", async () => {
    const refusal = {
      status: 400,
      headers: {},
      body: '{"message":"invalid image reference"}',
      bodyTruncated: false,
    }
    const run = await deploy(images, refusal, undefined, found)
    expect(run.error?.message).toBe(
      "The webhook answered HTTP 400. Response body: {\"message\":\"invalid image reference\"}. The request reached the webhook's server, so the platform may have started the deployment all the same; the step did not send it again: check the platform's deployment history (or ask the platform operator) before running this step again, so that it is not deployed twice. The payload named its images by digest ('<name>:<tag>@sha256:…', 'pin-digests: true'): if the platform refuses references with a digest, ask the platform operator whether it takes them, or set 'pin-digests: false' to send the references as given (refused with 'verify-signatures', whose check only a digest carries through to the platform).",
    )
    expect(run.outputs).toMatchObject({ status: '400', message: 'invalid image reference' })
    // References sent as given: no word of it.
    const given = await deploy({ ...images, 'pin-digests': 'false' }, refusal, undefined, found)
    expect(given.error?.message).not.toContain('pin-digests')
  })

  test.each([401, 403])(
    'a webhook that answers %i to the pinned payload refused the caller: no word of pin-digests',
    async (status) => {
      const refusal = { status, headers: {}, body: '{"message":"denied"}', bodyTruncated: false }
      const run = await deploy(images, refusal, undefined, found)
      expect(run.error?.message).toContain(
        'The platform refused the request, so it did not start the deployment',
      )
      expect(run.error?.message).not.toContain('pin-digests')
    },
  )
})
