import { createHash } from 'node:crypto'
import type { HttpResponse } from '../shared/http.js'
import type { Deadline } from '../shared/deadline.js'
import type { Problem } from '../shared/problem.js'
import { Unreachable } from './ask.js'
import type { RegistryCredentials } from './credentials.js'
import {
  MANIFEST_TYPES,
  MAX_MANIFEST_BYTES,
  manifestType,
  readImageOf,
  validDigest,
} from './manifests.js'
import type { RegistryImage } from './reference.js'
import { errorCodesIn, isRefusal, RegistrySession, type SessionPorts } from './session.js'

const MISSING_CODES = new Set(['MANIFEST_UNKNOWN', 'NAME_UNKNOWN'])
/** The error codes of a registry's answer shown in a message, at most. */
const SHOWN_CODES = 5
/** The platform whose labels are read when a reference names a multi-platform index. */
const LABELS_PLATFORM = 'linux/amd64'

/** The image's labels (its config's `config.Labels`), or why they could not be read. */
export type ImageConfigRead = { labels: Record<string, string> } | Problem

/** What the registry said about one reference. */
export type CheckOutcome =
  /**
   * `digest`: the hash of the manifest's bytes as the registry sent them (sha256, or the
   * algorithm of the digest the reference pins); `config` is there when it was asked for.
   */
  | { kind: 'found'; digest: string; config?: ImageConfigRead }
  | { kind: 'missing'; detail: string }
  | { kind: 'mismatch'; digest: string; pinned: string; asked: string }
  /** The registry's `Docker-Content-Digest` names another manifest than the bytes it sent. */
  | { kind: 'misnamed'; named: string; hashed: string }
  | { kind: 'unauthorised'; detail: string }
  | { kind: 'unreachable'; detail: string }

/** What the manifest check uses: a registry session's ports. */
export type ManifestCheckPorts = SessionPorts

/**
 * Resolves the image once (OCI distribution spec): one `GET` of its manifest (or index), whose
 * bytes are hashed as they arrive; on 401 the challenge is answered, `Basic` with the credentials
 * or `Bearer` with a token from the realm the registry names, and the request made again. The
 * digest is the hash of those bytes: a `Docker-Content-Digest` that names another one is refused
 * (`misnamed`), never taken. With `readConfig`, an image found has its labels read too, from that
 * manifest (an index's entry and the config blob are asked by their digests), with the same
 * login, within the same deadline.
 */
export async function checkImage(
  image: RegistryImage,
  credentials: RegistryCredentials | undefined,
  deadline: Deadline,
  ports: ManifestCheckPorts,
  options: { readConfig?: boolean } = {},
): Promise<CheckOutcome> {
  const session = new RegistrySession(image, credentials, 'pull', deadline, ports)
  try {
    const response = await session.send({
      method: 'GET',
      path: `manifests/${image.lookup}`,
      headers: { Accept: MANIFEST_TYPES },
      maxBodyBytes: MAX_MANIFEST_BYTES,
      hashBody: true,
    })
    if (isRefusal(response)) return response
    const { status } = response
    if (status === 401 || status === 403) return session.refused(status)
    if (status < 200 || status >= 300) return notFound(response, session)
    const found = resolved(image, response)
    if (found.kind !== 'found' || !options.readConfig) return found
    return { ...found, config: await labels(session, found.digest, response) }
  } catch (error) {
    if (error instanceof Unreachable) return { kind: 'unreachable', detail: error.message }
    throw error
  }
}

/** A status that is neither a success nor a refused login: missing, or the registry failing. */
function notFound(response: HttpResponse, session: RegistrySession): CheckOutcome {
  const codes = errorCodesIn(response.body)
  const described = describeStatus(response.status, codes, (code) => session.shown(code, 64))
  if (response.status === 404 || codes.some((code) => MISSING_CODES.has(code)))
    return { kind: 'missing', detail: described }
  return { kind: 'unreachable', detail: `the registry answered ${described}` }
}

/** The digest of the bytes the registry sent, checked against its header and the reference. */
function resolved(image: RegistryImage, response: HttpResponse): CheckOutcome {
  const named = validDigest(response.headers['docker-content-digest'])
  if (named) {
    const hashed = hashOf(response, algorithmOf(named))
    if (typeof hashed !== 'string') return hashed
    if (hashed !== named) return { kind: 'misnamed', named, hashed }
  }
  const { pinned } = image
  const digest = hashOf(response, pinned ? algorithmOf(pinned) : 'sha256')
  if (typeof digest !== 'string') return digest
  if (pinned && digest !== pinned) return { kind: 'mismatch', digest, pinned, asked: image.lookup }
  return { kind: 'found', digest }
}

function algorithmOf(digest: string): 'sha256' | 'sha512' {
  return digest.startsWith('sha512:') ? 'sha512' : 'sha256'
}

/**
 * The digest of the manifest's bytes: sha256 as they arrived (the port hashes them); sha512 from
 * the text, which is the bytes only when it was whole and valid UTF-8 (manifests are JSON).
 */
function hashOf(
  response: HttpResponse,
  algorithm: 'sha256' | 'sha512',
): string | { kind: 'unreachable'; detail: string } {
  const cannot = (why: string): { kind: 'unreachable'; detail: string } => ({
    kind: 'unreachable',
    detail: `its manifest could not be hashed (${why}), so its digest is unknown`,
  })
  if (algorithm === 'sha256')
    return response.bodySha256 ? `sha256:${response.bodySha256}` : cannot('it was not read whole')
  if (response.bodyTruncated) return cannot(`it is larger than ${MAX_MANIFEST_BYTES} bytes`)
  if (response.body.includes('\uFFFD')) return cannot('it is not valid UTF-8')
  return `sha512:${createHash('sha512').update(response.body, 'utf8').digest('hex')}`
}

/** The image's labels, read from the manifest the check resolved, with the check's login. */
async function labels(
  session: RegistrySession,
  digest: string,
  response: HttpResponse,
): Promise<ImageConfigRead> {
  if (response.bodyTruncated)
    return { problem: `its manifest is larger than ${MAX_MANIFEST_BYTES} bytes` }
  const manifest = { body: response.body, mediaType: manifestType(response), digest }
  const read = await readImageOf(session, manifest, { platform: LABELS_PLATFORM })
  return read.kind === 'read' ? { labels: read.image.labels } : { problem: read.detail }
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
