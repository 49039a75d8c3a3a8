import { createHash } from 'node:crypto'
import type { Deadline } from '../shared/deadline.js'
import type { HttpResponse } from '../shared/http.js'
import { isLoopbackHost } from '../shared/loopback.js'
import { ask, Unreachable, type AskPorts } from './ask.js'
import { manifestUrl, type RegistryImage } from './reference.js'

/** The image's labels (its config's `config.Labels`), or why they could not be read. */
export type ImageConfigRead = { labels: Record<string, string> } | { problem: string }

/** A GET of the registry with the login the image check answered its challenge with. */
export type RegistryGet = (url: URL, accept: string, maxBodyBytes: number) => Promise<HttpResponse>

const INDEX_TYPES = new Set([
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
])
const CONFIG_TYPES =
  'application/vnd.oci.image.config.v1+json, application/vnd.docker.container.image.v1+json, application/json'
/** The distribution spec's manifest size, and as much for a config (a few KiB in practice). */
const MAX_BYTES = 4 * 1024 * 1024
/** Blob stores (S3, GCS, GitHub's) answer a blob GET with a redirect to a signed address. */
const MAX_REDIRECTS = 3
const REDIRECTS = new Set([301, 302, 303, 307, 308])
const PREFERRED_PLATFORM = { os: 'linux', architecture: 'amd64' }

interface Descriptor {
  mediaType?: string
  digest?: string
  platform?: { os?: string; architecture?: string }
}

/**
 * Reads an image's labels through the registry API, with the image check's login and within its
 * time: the manifest (for a multi-platform index, linux/amd64's, else the first real platform's:
 * the attestations BuildKit adds have `unknown/unknown`), then its config blob, following a blob
 * store's redirect without the login, and checked against its digest.
 */
export async function readImageConfig(
  image: RegistryImage,
  get: RegistryGet,
  deadline: Deadline,
  ports: AskPorts,
): Promise<ImageConfigRead> {
  try {
    const manifest = await readManifest(image, get)
    if ('problem' in manifest) return manifest
    const digest = manifest.config?.digest
    if (typeof digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(digest))
      return { problem: 'its manifest names no sha256 config blob' }
    const url = new URL(`${image.origin}/v2/${image.repository}/blobs/${digest}`)
    const blob = await followRedirects(url, get, deadline, ports)
    if ('problem' in blob) return blob
    return labelsOf(blob, digest)
  } catch (error) {
    if (error instanceof Unreachable) return { problem: error.message }
    throw error
  }
}

async function readManifest(
  image: RegistryImage,
  get: RegistryGet,
): Promise<{ config?: Descriptor } | { problem: string }> {
  const accept = [
    ...INDEX_TYPES,
    'application/vnd.oci.image.manifest.v1+json',
    'application/vnd.docker.distribution.manifest.v2+json',
  ].join(', ')
  const first = await getJson(manifestUrl(image), accept, get, 'manifest')
  if ('problem' in first) return first
  const document = first.value as { mediaType?: unknown; manifests?: unknown; config?: unknown }
  const isIndex =
    Array.isArray(document.manifests) ||
    (typeof document.mediaType === 'string' && INDEX_TYPES.has(document.mediaType))
  if (!isIndex) return { config: document.config as Descriptor | undefined }
  const chosen = platformManifest((document.manifests ?? []) as Descriptor[])
  if (!chosen?.digest) return { problem: 'its index lists no image for a platform' }
  const platform = await getJson(manifestUrl(image, chosen.digest), accept, get, 'manifest')
  if ('problem' in platform) return platform
  return { config: (platform.value as { config?: Descriptor }).config }
}

function platformManifest(manifests: Descriptor[]): Descriptor | undefined {
  const real = manifests.filter(
    (entry) => typeof entry.digest === 'string' && entry.platform?.os !== 'unknown',
  )
  const preferred = real.find(
    (entry) =>
      entry.platform?.os === PREFERRED_PLATFORM.os &&
      entry.platform.architecture === PREFERRED_PLATFORM.architecture,
  )
  return preferred ?? real[0]
}

async function getJson(
  url: URL,
  accept: string,
  get: RegistryGet,
  what: string,
): Promise<{ value: unknown } | { problem: string }> {
  const response = await get(url, accept, MAX_BYTES)
  if (response.status !== 200)
    return { problem: `the registry answered HTTP ${response.status} to the ${what} GET` }
  if (response.bodyTruncated) return { problem: `its ${what} is over 4 MiB` }
  try {
    const value = JSON.parse(response.body) as unknown
    if (typeof value === 'object' && value !== null) return { value }
  } catch {
    // told below
  }
  return { problem: `its ${what} is not a JSON object` }
}

/**
 * The blob, from the registry or from where it redirects: the login goes to the registry only,
 * and a redirect is followed over https (or on loopback) only.
 */
async function followRedirects(
  start: URL,
  get: RegistryGet,
  deadline: Deadline,
  ports: AskPorts,
): Promise<HttpResponse | { problem: string }> {
  let url = start
  for (let hop = 0; ; hop++) {
    const response =
      url.origin === start.origin
        ? await get(url, CONFIG_TYPES, MAX_BYTES)
        : await ask(
            { method: 'GET', url, headers: { Accept: CONFIG_TYPES }, maxBodyBytes: MAX_BYTES },
            deadline,
            ports,
          )
    if (!REDIRECTS.has(response.status)) return response
    const location = response.headers.location
    if (!location || hop >= MAX_REDIRECTS)
      return {
        problem: `the config blob's GET was redirected without end (HTTP ${response.status})`,
      }
    const next = new URL(location, url)
    if (next.protocol !== 'https:' && !isLoopbackHost(next.hostname))
      return {
        problem: `the config blob's GET was redirected to a plain http:// address (${next.host})`,
      }
    url = next
  }
}

function labelsOf(response: HttpResponse, digest: string): ImageConfigRead {
  if (response.status !== 200)
    return { problem: `the registry answered HTTP ${response.status} to the config blob's GET` }
  if (response.bodyTruncated) return { problem: 'its config blob is over 4 MiB' }
  // Content-addressed: what came must be what the manifest names.
  const hash = `sha256:${createHash('sha256').update(response.body, 'utf8').digest('hex')}`
  if (hash !== digest) return { problem: `its config blob does not match its digest ${digest}` }
  let config: { config?: { Labels?: unknown } }
  try {
    config = JSON.parse(response.body) as typeof config
  } catch {
    return { problem: 'its config blob is not JSON' }
  }
  const labels = config.config?.Labels
  const strings: Record<string, string> = {}
  if (typeof labels === 'object' && labels !== null)
    for (const [name, value] of Object.entries(labels))
      if (typeof value === 'string') strings[name] = value
  return { labels: strings }
}
