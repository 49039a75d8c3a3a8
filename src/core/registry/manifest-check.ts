import { createHash } from 'node:crypto'
import type { HttpResponse } from '../shared/http.js'
import type { Deadline } from '../shared/deadline.js'
import { Unreachable } from './ask.js'
import type { RegistryCredentials } from './credentials.js'
import { MANIFEST_TYPES, readImage, validDigest } from './manifests.js'
import type { RegistryImage } from './reference.js'
import {
  errorCodesIn,
  isRefusal,
  RegistrySession,
  type Refusal,
  type SessionPorts,
} from './session.js'

/** The distribution spec's manifest size that registries must accept. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024
const MISSING_CODES = new Set(['MANIFEST_UNKNOWN', 'NAME_UNKNOWN'])
/** The error codes of a registry's answer shown in a message, at most. */
const SHOWN_CODES = 5
/** The platform whose labels are read when a reference names a multi-platform index. */
const LABELS_PLATFORM = 'linux/amd64'

/** The image's labels (its config's `config.Labels`), or why they could not be read. */
export type ImageConfigRead = { labels: Record<string, string> } | { problem: string }

/** What the registry said about one reference. */
export type CheckOutcome =
  /**
   * `digest` is undefined only when the registry sent none and its manifest could not be hashed;
   * `config` is there when it was asked for.
   */
  | { kind: 'found'; digest?: string; config?: ImageConfigRead }
  | { kind: 'missing'; detail: string }
  | { kind: 'mismatch'; digest: string; pinned: string; asked: string }
  | { kind: 'unauthorised'; detail: string }
  | { kind: 'unreachable'; detail: string }

export type CheckPorts = SessionPorts

/**
 * Asks the registry whether the image exists (OCI distribution spec): `HEAD` its manifest, and on
 * 401 answer the challenge, `Basic` with the credentials or `Bearer` with a token from the realm
 * the registry names, then ask again. With `readConfig`, an image found has its labels read too
 * (manifest, then config blob), with the same login, within the same deadline.
 */
export async function checkImage(
  image: RegistryImage,
  credentials: RegistryCredentials | undefined,
  deadline: Deadline,
  ports: CheckPorts,
  options: { readConfig?: boolean } = {},
): Promise<CheckOutcome> {
  const exchange = new Exchange(image, credentials, deadline, ports)
  try {
    const outcome = await exchange.run()
    if (outcome.kind !== 'found' || !options.readConfig) return outcome
    return { ...outcome, config: await exchange.labels() }
  } catch (error) {
    if (error instanceof Unreachable) return { kind: 'unreachable', detail: error.message }
    throw error
  }
}

class Exchange {
  private readonly session: RegistrySession

  constructor(
    private readonly image: RegistryImage,
    credentials: RegistryCredentials | undefined,
    deadline: Deadline,
    ports: CheckPorts,
  ) {
    this.session = new RegistrySession(image, credentials, 'pull', deadline, ports)
  }

  async run(): Promise<CheckOutcome> {
    const response = await this.manifest('HEAD')
    if (isRefusal(response)) return response
    return this.judge(response)
  }

  /** The image's labels, read with the login the check answered the challenge with. */
  async labels(): Promise<ImageConfigRead> {
    const read = await readImage(this.session, this.image.lookup, { platform: LABELS_PLATFORM })
    return read.kind === 'read' ? { labels: read.image.labels } : { problem: read.detail }
  }

  private manifest(method: 'HEAD' | 'GET'): Promise<HttpResponse | Refusal> {
    return this.session.send({
      method,
      path: `manifests/${this.image.lookup}`,
      headers: { Accept: MANIFEST_TYPES },
      maxBodyBytes: MAX_MANIFEST_BYTES,
    })
  }

  private async judge(response: HttpResponse): Promise<CheckOutcome> {
    const { status } = response
    if (status >= 200 && status < 300) return this.found(response)
    if (status === 401 || status === 403) return this.session.refused(status)
    // A HEAD answer has no body: the GET's says why (MANIFEST_UNKNOWN, NAME_UNKNOWN, …).
    const body = await this.manifestBody()
    const codes = body ? errorCodesIn(body.body) : []
    const described = describeStatus(status, codes, (code) => this.session.shown(code, 64))
    if (status === 404 || codes.some((code) => MISSING_CODES.has(code)))
      return { kind: 'missing', detail: described }
    return { kind: 'unreachable', detail: `the registry answered ${described}` }
  }

  /** The GET of the manifest, for its body; none when it fails: the HEAD already answered. */
  private async manifestBody(): Promise<HttpResponse | undefined> {
    try {
      const response = await this.manifest('GET')
      return isRefusal(response) ? undefined : response
    } catch (error) {
      if (error instanceof Unreachable) return undefined
      throw error
    }
  }

  private async found(head: HttpResponse): Promise<CheckOutcome> {
    const algorithm = this.image.pinned?.split(':')[0] ?? 'sha256'
    const digest =
      validDigest(head.headers['docker-content-digest']) ??
      hashOf(await this.manifestBody(), algorithm)
    const { pinned } = this.image
    if (pinned && digest && digest !== pinned)
      return { kind: 'mismatch', digest, pinned, asked: this.image.lookup }
    return { kind: 'found', ...(digest ? { digest } : {}) }
  }
}

/**
 * The digest of a manifest body, when it can be trusted to be the bytes the registry sent: whole,
 * and valid UTF-8 (the port hands bodies over as text; manifests are JSON).
 */
function hashOf(response: HttpResponse | undefined, algorithm: string): string | undefined {
  if (!response || response.status !== 200 || response.bodyTruncated) return undefined
  if (response.body.includes('\uFFFD')) return undefined
  if (algorithm !== 'sha256' && algorithm !== 'sha512') return undefined
  return `${algorithm}:${createHash(algorithm).update(response.body, 'utf8').digest('hex')}`
}

/**
 * The status and the registry's error codes as a message shows them: a code is upper-case words
 * (`MANIFEST_UNKNOWN`), anything else is the registry's text, quoted and made printable.
 */
function describeStatus(status: number, codes: string[], show: (code: string) => string): string {
  if (codes.length === 0) return `HTTP ${status}`
  const shown = codes
    .slice(0, SHOWN_CODES)
    .map((code) => (/^[A-Z_]{1,64}$/.test(code) ? code : `'${show(code)}'`))
  if (codes.length > SHOWN_CODES) shown.push(`and ${codes.length - SHOWN_CODES} more`)
  return `HTTP ${status}, ${shown.join(', ')}`
}
