// A registry played by a function, behind the HttpClient port, with a clock that never waits:
// for the unit tests of the image check's HTTP exchange and verdicts. The real registry is
// exercised by test/e2e/deploy-verify-images.test.ts.
import { createHash } from 'node:crypto'
import {
  HttpFailure,
  type HttpClient,
  type HttpRequest,
  type HttpResponse,
} from '../../src/core/shared/http.js'
import type { Clock } from '../../src/core/shared/ports.js'

export type Answer = HttpResponse | HttpFailure
export type RegistryScript = (request: HttpRequest) => Answer

export interface FakeNetwork {
  http: HttpClient
  clock: Clock
  requests: HttpRequest[]
  /** The sleeps asked for, in milliseconds. */
  waits: number[]
}

export function fakeNetwork(script: RegistryScript): FakeNetwork {
  let now = 0
  const requests: HttpRequest[] = []
  const waits: number[] = []
  return {
    requests,
    waits,
    http: {
      request: (request) => {
        requests.push(request)
        const answer = script(request)
        if (answer instanceof HttpFailure) return Promise.reject(answer)
        // As the real client does: the digest of the whole body, when asked for.
        const hashed =
          request.hashBody && answer.bodySha256 === undefined
            ? { bodySha256: createHash('sha256').update(answer.body).digest('hex') }
            : {}
        return Promise.resolve({ ...answer, ...hashed })
      },
    },
    clock: {
      now: () => new Date(now),
      sleep: (ms) => {
        waits.push(ms)
        now += ms
        return Promise.resolve()
      },
    },
  }
}

export function respond(
  status: number,
  headers: Record<string, string> = {},
  body = '',
): HttpResponse {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  return { status, headers: lower, body, bodyTruncated: false }
}

export const failure = (kind: HttpFailure['kind'], message = `simulated ${kind}`): HttpFailure =>
  new HttpFailure(kind, message)

export const errorBody = (...codes: string[]): string =>
  JSON.stringify({ errors: codes.map((code) => ({ code, message: code.toLowerCase() })) })

const IMAGE_MANIFEST = 'application/vnd.oci.image.manifest.v1+json'
const INDEX = 'application/vnd.oci.image.index.v1+json'

export interface StoredImage {
  labels?: Record<string, string>
  onBuild?: string[]
}

/**
 * A registry held in memory, behind a RegistryScript: manifests by tag and digest, and blobs,
 * per repository, as the distribution API serves them (GET and HEAD of manifests, GET and HEAD of
 * blobs, PUT of a manifest under a tag, monolithic blob uploads: POST then PUT with the digest). Every request must carry `authorization` when one is given.
 */
export interface MemoryRegistry {
  script: RegistryScript
  /** Stores an image (its config blob and manifest) under `tag`: resolves to the manifest digest. */
  put(repository: string, tag: string, image: StoredImage): string
  /** Stores an index of the image for each platform (and a provenance manifest) under `tag`. */
  putIndex(repository: string, tag: string, platforms: Record<string, StoredImage>): string
  /** The digest a tag names, or undefined. */
  digestOf(repository: string, tag: string): string | undefined
  /** `PUT <repository>:<tag>` for each manifest PUT, in order. */
  puts: string[]
  /** The text of a blob, or undefined. */
  blob(repository: string, digest: string): string | undefined
}

export function memoryRegistry(origin: string, authorization?: string): MemoryRegistry {
  const manifests = new Map<string, { body: string; mediaType: string }>()
  const tags = new Map<string, string>()
  const blobs = new Map<string, string>()
  const puts: string[] = []
  let uploads = 0
  const digest = (text: string): string =>
    `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`
  const storeManifest = (repository: string, body: string, mediaType: string): string => {
    const named = digest(body)
    manifests.set(`${repository}@${named}`, { body, mediaType })
    return named
  }
  const storeImage = (repository: string, image: StoredImage, platform = 'linux/amd64'): string => {
    const [os, architecture] = platform.split('/')
    const config = JSON.stringify({
      architecture,
      os,
      config: { Labels: image.labels ?? {}, OnBuild: image.onBuild ?? null },
      rootfs: { type: 'layers', diff_ids: [] },
    })
    blobs.set(`${repository}@${digest(config)}`, config)
    const body = JSON.stringify({
      schemaVersion: 2,
      mediaType: IMAGE_MANIFEST,
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: digest(config),
        size: config.length,
      },
      layers: [],
    })
    return storeManifest(repository, body, IMAGE_MANIFEST)
  }
  const script: RegistryScript = (request) => {
    if (!request.url.href.startsWith(`${origin}/v2/`))
      return failure('dns', 'the host name could not be resolved (ENOTFOUND)')
    if (authorization && request.headers.Authorization !== authorization)
      return respond(401, { 'WWW-Authenticate': 'Basic realm="memory"' })
    const path = request.url.pathname.slice('/v2/'.length)
    const upload = /^(.+)\/blobs\/uploads\/(\d*)$/.exec(path)
    if (upload) {
      const [, repository = ''] = upload
      if (request.method === 'POST')
        return respond(202, { Location: `/v2/${repository}/blobs/uploads/${++uploads}` })
      const named = request.url.searchParams.get('digest') ?? ''
      const body = request.body ?? ''
      if (named !== digest(body)) return respond(400, {}, errorBody('DIGEST_INVALID'))
      blobs.set(`${repository}@${named}`, body)
      return respond(201, { 'Docker-Content-Digest': named })
    }
    const match = /^(.+)\/(manifests|blobs)\/([^/]+)$/.exec(path)
    if (!match) return respond(404, {}, errorBody('NAME_UNKNOWN'))
    const [, repository = '', kind, reference = ''] = match
    if (kind === 'blobs') {
      const blob = blobs.get(`${repository}@${reference}`)
      return blob === undefined
        ? respond(404, {}, errorBody('BLOB_UNKNOWN'))
        : respond(
            200,
            { 'Docker-Content-Digest': reference },
            request.method === 'HEAD' ? '' : blob,
          )
    }
    if (request.method === 'PUT') {
      const body = request.body ?? ''
      const named = storeManifest(repository, body, request.headers['Content-Type'] ?? '')
      tags.set(`${repository}:${reference}`, named)
      puts.push(`PUT ${repository}:${reference}`)
      return respond(201, { 'Docker-Content-Digest': named })
    }
    const named = reference.startsWith('sha256:')
      ? reference
      : tags.get(`${repository}:${reference}`)
    const found = named === undefined ? undefined : manifests.get(`${repository}@${named}`)
    if (!found || named === undefined) return respond(404, {}, errorBody('MANIFEST_UNKNOWN'))
    const headers = { 'Docker-Content-Digest': named, 'Content-Type': found.mediaType }
    return respond(200, headers, request.method === 'HEAD' ? '' : found.body)
  }
  return {
    script,
    puts,
    put: (repository, tag, image) => {
      const named = storeImage(repository, image)
      tags.set(`${repository}:${tag}`, named)
      return named
    },
    putIndex: (repository, tag, platforms) => {
      const entries = Object.entries(platforms).map(([platform, image]) => {
        const [os, architecture] = platform.split('/')
        const named = storeImage(repository, image, platform)
        return { mediaType: IMAGE_MANIFEST, digest: named, size: 1, platform: { os, architecture } }
      })
      const provenance = {
        mediaType: IMAGE_MANIFEST,
        digest: `sha256:${'a'.repeat(64)}`,
        size: 1,
        platform: { os: 'unknown', architecture: 'unknown' },
        annotations: { 'vnd.docker.reference.type': 'attestation-manifest' },
      }
      const body = JSON.stringify({
        schemaVersion: 2,
        mediaType: INDEX,
        manifests: [...entries, provenance],
      })
      const named = storeManifest(repository, body, INDEX)
      tags.set(`${repository}:${tag}`, named)
      return named
    },
    digestOf: (repository, tag) => tags.get(`${repository}:${tag}`),
    blob: (repository, named) => blobs.get(`${repository}@${named}`),
  }
}
