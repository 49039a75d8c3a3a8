import { createHash } from 'node:crypto'
import { errorMessage } from '../shared/errors.js'
import type { HttpResponse } from '../shared/http.js'
import { isLoopbackHost } from '../shared/loopback.js'
import { isObject, parseJsonText } from '../shared/json-text.js'
import { isProblem } from '../shared/problem.js'
import { ask, Unreachable, writeProblem } from './ask.js'
import { errorCodesOf, isRefusal, type RegistrySession, type Refusal } from './session.js'

/**
 * Reading an image's manifest and configuration through the registry API (OCI distribution
 * and image specs), and giving a manifest one more tag, byte for byte: no pull, no layer.
 */

/** Every manifest kind an image reference can name, multi-platform indexes included. */
export const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ')
/** The digests this step takes from a registry's header: anything else is not one. */
const DIGEST = /^(?:sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128})$/

/** The `Docker-Content-Digest` header when it holds a digest and nothing else. */
export function validDigest(header: string | undefined): string | undefined {
  const digest = header?.trim()
  return digest !== undefined && DIGEST.test(digest) ? digest : undefined
}

const INDEX_TYPES = new Set([
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
])
const IMAGE_TYPES = new Set([
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
])
const CONFIG_TYPES = new Set([
  'application/vnd.oci.image.config.v1+json',
  'application/vnd.docker.container.image.v1+json',
])
/** The distribution spec's manifest size that registries must accept. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024
/** An image configuration: history and inline cache metadata included, far below this. */
const MAX_CONFIG_BYTES = 8 * 1024 * 1024

/** A manifest as the registry holds it: its bytes (valid UTF-8 JSON), type and digest. */
export interface Manifest {
  body: string
  mediaType: string
  digest: string
}

export interface ImageRead {
  /** What the reference names: an image manifest, or an index of one image and its attestations. */
  manifest: Manifest
  /** The image manifest itself: the index's entry for the platform, or `manifest`. */
  imageDigest: string
  labels: Record<string, string>
  /** ONBUILD triggers, as `docker image inspect` shows them. */
  onBuild: string[]
  /** The environment (`NAME=value`), which a build FROM it expands its variables with. */
  env: string[]
}

export type ReadOutcome =
  | { kind: 'read'; image: ImageRead }
  | { kind: 'missing' | 'unusable' | 'unauthorised' | 'unreachable'; detail: string }

/** `os/arch[/variant]`: picks an index's entry; without it, an index must hold one image. */
export interface ReadOptions {
  platform?: string
}

/** The manifest and configuration that `reference` (a tag or a digest) names in the session's repository. */
export function readImage(
  session: RegistrySession,
  reference: string,
  options: ReadOptions = {},
): Promise<ReadOutcome> {
  return outcomeOf(async () => {
    const top = await getManifest(session, reference)
    return 'kind' in top ? top : imageOf(session, top, options)
  })
}

/**
 * The image a manifest already read names: itself, or the index's entry for the platform (read
 * by its digest), then its configuration. Whoever read `top` checked its bytes against its digest.
 */
export function readImageOf(
  session: RegistrySession,
  top: Manifest,
  options: ReadOptions = {},
): Promise<ReadOutcome> {
  return outcomeOf(() => imageOf(session, top, options))
}

/** A registry that does not answer, as an outcome. */
async function outcomeOf(read: () => Promise<ReadOutcome>): Promise<ReadOutcome> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof Unreachable) return { kind: 'unreachable', detail: error.message }
    throw error
  }
}

async function imageOf(
  session: RegistrySession,
  top: Manifest,
  options: ReadOptions,
): Promise<ReadOutcome> {
  let image = top
  if (INDEX_TYPES.has(top.mediaType)) {
    const entry = chooseEntry(top, options.platform)
    if (typeof entry !== 'object') return { kind: 'unusable', detail: entry }
    const child = await getManifest(session, entry.digest)
    if ('kind' in child) return child.kind === 'missing' ? { ...child, kind: 'unusable' } : child
    image = child
  }
  if (!IMAGE_TYPES.has(image.mediaType))
    return {
      kind: 'unusable',
      detail:
        image.mediaType === ''
          ? 'its manifest names no media type, so it is no image manifest'
          : `its manifest is a '${image.mediaType}', not an image`,
    }
  const config = await readConfig(session, image)
  if ('kind' in config) return config
  return { kind: 'read', image: { manifest: top, imageDigest: image.digest, ...config } }
}

/** PUTs `manifest` under `tag`; undefined when the tag now names it, else why not. */
export function tagManifest(
  session: RegistrySession,
  manifest: Manifest,
  tag: string,
): Promise<string | undefined> {
  return writeProblem(async () => {
    const put = await session.sendWrite(
      {
        method: 'PUT',
        path: `manifests/${tag}`,
        headers: { 'Content-Type': manifest.mediaType },
        body: manifest.body,
        maxBodyBytes: 64 * 1024,
      },
      [201, 200],
    )
    if (typeof put === 'string') return put
    // The registry says which digest the tag now names; when it does not, ask it.
    let digest = validDigest(put.headers['docker-content-digest'])
    if (!digest) {
      const head = await session.send({
        method: 'HEAD',
        path: `manifests/${tag}`,
        headers: { Accept: MANIFEST_TYPES },
        maxBodyBytes: 0,
      })
      if (isRefusal(head)) return head.detail
      digest = validDigest(head.headers['docker-content-digest'])
    }
    if (digest !== manifest.digest)
      return `the registry gave the tag ${digest ? `'${digest}'` : 'no digest'}, not ${manifest.digest}`
    return undefined
  })
}

export type Got =
  Manifest | { kind: 'missing' | 'unusable' | 'unauthorised' | 'unreachable'; detail: string }

/**
 * The manifest `reference` names, checked against its digest; throws Unreachable (ask.ts) when
 * the registry does not answer.
 */
export async function getManifest(session: RegistrySession, reference: string): Promise<Got> {
  const response = await session.send({
    method: 'GET',
    path: `manifests/${reference}`,
    headers: { Accept: MANIFEST_TYPES },
    maxBodyBytes: MAX_MANIFEST_BYTES,
  })
  const problem = answerProblem(session, response, `'${reference}'`)
  if (problem) return problem
  const ok = response as HttpResponse
  if (ok.bodyTruncated)
    return { kind: 'unusable', detail: `its manifest is larger than ${MAX_MANIFEST_BYTES} bytes` }
  // Asked by a digest, the bytes must be that digest's, whatever the header says.
  const asked = validDigest(reference)
  const named = validDigest(ok.headers['docker-content-digest'])
  const digest = verifiedDigest(ok, named, (named ?? asked)?.split(':')[0])
  if (typeof digest !== 'object') return { kind: 'unusable', detail: digest }
  if (asked && digest.digest !== asked)
    return {
      kind: 'unusable',
      detail: `asked for ${asked}, the registry sent a manifest whose bytes hash to ${digest.digest}`,
    }
  return { body: ok.body, mediaType: manifestType(ok), digest: digest.digest }
}

/** A manifest's media type: its `Content-Type`, else the `mediaType` its JSON declares; '' if none. */
export function manifestType(response: HttpResponse): string {
  const parsed = parseJsonText(response.body)
  const declared = 'value' in parsed && isObject(parsed.value) ? parsed.value.mediaType : undefined
  return (
    response.headers['content-type']?.split(';')[0]?.trim() ||
    (typeof declared === 'string' ? declared : '')
  )
}

/**
 * The digest of a body the registry sent, with the algorithm of the one it named (else
 * `algorithm`, else sha256), checked against the one it named.
 */
function verifiedDigest(
  response: HttpResponse,
  named: string | undefined,
  algorithm = named?.split(':')[0] ?? 'sha256',
): { digest: string } | string {
  // The port hands bodies over as text: a body that was not valid UTF-8 cannot be given back byte for byte.
  if (response.body.includes('\uFFFD')) return 'its manifest is not valid UTF-8'
  if (algorithm !== 'sha256' && algorithm !== 'sha512')
    return `its digest uses '${algorithm}', which this step does not check`
  const hashed = `${algorithm}:${createHash(algorithm).update(response.body, 'utf8').digest('hex')}`
  if (named && named !== hashed)
    return `the registry named ${named}, but its bytes hash to ${hashed}`
  return { digest: hashed }
}

interface IndexEntry {
  digest: string
  mediaType?: string
  platform?: { os?: string; architecture?: string; variant?: string }
  annotations?: Record<string, string>
}

/**
 * The index's image for `platform`; without one, its only image. BuildKit adds an attestation
 * manifest (provenance, `unknown/unknown`) beside each image it pushes: those are not images.
 */
function chooseEntry(index: Manifest, platform: string | undefined): IndexEntry | string {
  const parsed = parseJsonText(index.body)
  const list = 'value' in parsed && isObject(parsed.value) ? parsed.value.manifests : undefined
  if (!Array.isArray(list)) return 'its index lists no manifests'
  const images = (list as IndexEntry[]).filter(
    (entry) =>
      isObject(entry) &&
      typeof entry.digest === 'string' &&
      entry.annotations?.['vnd.docker.reference.type'] !== 'attestation-manifest' &&
      entry.platform?.os !== 'unknown',
  )
  if (platform) {
    const [os, architecture, variant] = platform.split('/')
    const found = images.find(
      (entry) =>
        entry.platform?.os === os &&
        entry.platform?.architecture === architecture &&
        (variant === undefined || entry.platform?.variant === variant),
    )
    if (found) return found
  }
  const [only, ...others] = images
  if (only && others.length === 0) return only
  return platform
    ? `it is a manifest list of ${images.length} platforms, none of them ${platform}`
    : `it is a manifest list of ${images.length} platforms`
}

type Config = { labels: Record<string, string>; onBuild: string[]; env: string[] }

async function readConfig(
  session: RegistrySession,
  image: Manifest,
): Promise<Config | { kind: 'unusable' | 'unauthorised' | 'unreachable'; detail: string }> {
  const parsed = parseJsonText(image.body)
  const config = 'value' in parsed && isObject(parsed.value) ? parsed.value.config : undefined
  if (!isObject(config) || typeof config.digest !== 'string')
    return { kind: 'unusable', detail: 'its manifest names no configuration' }
  if (typeof config.mediaType === 'string' && !CONFIG_TYPES.has(config.mediaType))
    return { kind: 'unusable', detail: `its configuration is a '${config.mediaType}'` }
  if (typeof config.size === 'number' && config.size > MAX_CONFIG_BYTES)
    return {
      kind: 'unusable',
      detail: `its configuration is larger than ${MAX_CONFIG_BYTES} bytes`,
    }
  const blob = await getBlob(session, config.digest)
  if (typeof blob !== 'string') return blob
  const document = parseJsonText(blob)
  if (isProblem(document))
    return { kind: 'unusable', detail: `its configuration is ${document.problem}` }
  const section = isObject(document.value) ? document.value.config : undefined
  const labels = isObject(section) && isObject(section.Labels) ? section.Labels : {}
  const onBuild = isObject(section) && Array.isArray(section.OnBuild) ? section.OnBuild : []
  const env = isObject(section) && Array.isArray(section.Env) ? section.Env : []
  return {
    labels: Object.fromEntries(
      Object.entries(labels).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    ),
    onBuild: onBuild.filter((line): line is string => typeof line === 'string'),
    env: env.filter((entry): entry is string => typeof entry === 'string'),
  }
}

/**
 * A blob's text, from the registry or from where it redirects, checked against its digest;
 * throws Unreachable (ask.ts) when the registry does not answer.
 */
export async function getBlob(
  session: RegistrySession,
  digest: string,
  what = `the configuration blob ${digest}`,
  maxBytes = MAX_CONFIG_BYTES,
): Promise<string | { kind: 'unusable' | 'unauthorised' | 'unreachable'; detail: string }> {
  let response: HttpResponse | Refusal = await session.send({
    method: 'GET',
    path: `blobs/${digest}`,
    maxBodyBytes: maxBytes,
  })
  for (let hops = 0; !isRefusal(response) && isRedirect(response.status); hops++) {
    const target = redirectTarget(response, session.origin, hops)
    if (typeof target === 'string') return { kind: 'unusable', detail: `${what}: ${target}` }
    // The storage a registry redirects to authorises the request by its signed URL: the
    // registry's login is never sent to another host.
    response = await ask(
      { method: 'GET', url: target, headers: {}, maxBodyBytes: maxBytes },
      session.deadline,
      session.ports,
      session.attempts,
    )
  }
  const problem = answerProblem(session, response, what)
  if (problem)
    return problem.kind === 'missing'
      ? { kind: 'unusable', detail: problem.detail }
      : { kind: problem.kind, detail: problem.detail }
  const ok = response as HttpResponse
  if (ok.bodyTruncated)
    return { kind: 'unusable', detail: `${what} is larger than ${maxBytes} bytes` }
  const checked = verifiedDigest(ok, digest)
  if (typeof checked !== 'object') return { kind: 'unusable', detail: `${what}: ${checked}` }
  return ok.body
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308
}

/** Registries send blobs from their storage (S3, a CDN) through a redirect or two. */
const MAX_REDIRECTS = 3

function redirectTarget(response: HttpResponse, origin: string, hops: number): URL | string {
  if (hops >= MAX_REDIRECTS) return `more than ${MAX_REDIRECTS} redirects`
  const location = response.headers.location
  if (!location) return `a redirect (HTTP ${response.status}) without a Location`
  let target: URL
  try {
    target = new URL(location, origin)
  } catch (error) {
    return `a redirect to an address that is not a URL (${errorMessage(error)})`
  }
  if (
    target.protocol !== 'https:' &&
    !(target.protocol === 'http:' && isLoopbackHost(target.hostname))
  )
    return `redirected to a plain ${target.protocol}// address (${target.host})`
  return target
}

/** What a registry answer that is not a 2xx says, as an outcome; undefined for a 2xx. */
function answerProblem(
  session: RegistrySession,
  response: HttpResponse | Refusal,
  what: string,
): { kind: 'missing' | 'unauthorised' | 'unreachable'; detail: string } | undefined {
  if (isRefusal(response)) return response
  const { status } = response
  if (status >= 200 && status < 300) return undefined
  if (status === 401 || status === 403) return session.refused(status)
  const codes = errorCodesOf(response.body)
  if (status === 404)
    return { kind: 'missing', detail: `${what} does not exist (HTTP 404${codes})` }
  return { kind: 'unreachable', detail: `the registry answered HTTP ${status}${codes} for ${what}` }
}
