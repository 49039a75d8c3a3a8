import { createHash } from 'node:crypto'
import type { HttpResponse } from '../shared/http.js'
import type { Deadline } from '../shared/deadline.js'
import { untrustedText } from '../shared/untrusted-text.js'
import { ask, Unreachable, type AskPorts } from './ask.js'
import { parseChallenges, type Challenge } from './challenge.js'
import { basicAuth, CREDENTIAL_INPUTS, type RegistryCredentials } from './credentials.js'
import { readImageConfig, type ImageConfigRead } from './image-config.js'
import { manifestUrl, type RegistryImage } from './reference.js'
import { realmRefusal } from './token-realm.js'

/** Every manifest kind an image reference can name, multi-platform indexes included. */
export const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ')
/** The distribution spec's manifest size that registries must accept. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024
const MISSING_CODES = new Set(['MANIFEST_UNKNOWN', 'NAME_UNKNOWN'])
/** The digests this step takes from a registry's header: anything else is not one. */
const DIGEST = /^(?:sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128})$/
/** The error codes of a registry's answer shown in a message, at most. */
const SHOWN_CODES = 5

/** What the registry said about one reference. */
export type CheckOutcome =
  /**
   * `digest` is undefined only when the registry sent none and its manifest could not be hashed;
   * `config` is there when it was asked for (see readImageConfig).
   */
  | { kind: 'found'; digest?: string; config?: ImageConfigRead }
  | { kind: 'missing'; detail: string }
  | { kind: 'mismatch'; digest: string; pinned: string; asked: string }
  | { kind: 'unauthorised'; detail: string }
  | { kind: 'unreachable'; detail: string }

export interface CheckPorts extends AskPorts {
  /** Masks a value in everything printed from now on: the bearer tokens. */
  registerSecret: (value: string) => void
  /**
   * Masks the registered secrets in a server's text before it is escaped and cut for a message:
   * a registry may echo the login, and a cut or escaped secret no longer matches the mask.
   */
  redact: (text: string) => string
}

/**
 * Asks the registry whether the image exists (OCI distribution spec): `HEAD` its manifest, and on
 * 401 answer the challenge, `Basic` with the credentials or `Bearer` with a token from the realm
 * the registry names, then ask again. With `readConfig`, an image found has its labels read too,
 * with the same login, within the same deadline.
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
    const get = (url: URL, accept: string, maxBodyBytes: number): Promise<HttpResponse> =>
      exchange.get(url, accept, maxBodyBytes)
    return { ...outcome, config: await readImageConfig(image, get, deadline, ports) }
  } catch (error) {
    if (error instanceof Unreachable) return { kind: 'unreachable', detail: error.message }
    throw error
  }
}

type Authorization = { header: string } | CheckOutcome

class Exchange {
  private authorization: string | undefined

  constructor(
    private readonly image: RegistryImage,
    private readonly credentials: RegistryCredentials | undefined,
    private readonly deadline: Deadline,
    private readonly ports: CheckPorts,
  ) {}

  async run(): Promise<CheckOutcome> {
    let response = await this.manifest('HEAD')
    if (response.status === 401) {
      const authorization = await this.authorise(response.headers['www-authenticate'] ?? '')
      if (!('header' in authorization)) return authorization
      this.authorization = authorization.header
      response = await this.manifest('HEAD')
    }
    return this.judge(response)
  }

  /** A GET with the authorization the check answered the challenge with. */
  get(url: URL, accept: string, maxBodyBytes: number): Promise<HttpResponse> {
    const headers: Record<string, string> = { Accept: accept }
    if (this.authorization) headers.Authorization = this.authorization
    return ask({ method: 'GET', url, headers, maxBodyBytes }, this.deadline, this.ports)
  }

  private manifest(method: 'HEAD' | 'GET'): Promise<HttpResponse> {
    const headers: Record<string, string> = { Accept: MANIFEST_TYPES }
    if (this.authorization) headers.Authorization = this.authorization
    return ask(
      { method, url: manifestUrl(this.image), headers, maxBodyBytes: MAX_MANIFEST_BYTES },
      this.deadline,
      this.ports,
    )
  }

  private async judge(response: HttpResponse): Promise<CheckOutcome> {
    const { status } = response
    if (status >= 200 && status < 300) return this.found(response)
    if (status === 401 || status === 403) return this.refused(status)
    // A HEAD answer has no body: the GET's says why (MANIFEST_UNKNOWN, NAME_UNKNOWN, …).
    const body = await this.manifestBody()
    const codes = body ? errorCodes(body) : []
    const described = describeStatus(status, codes, (code) => this.shown(code, 64))
    if (status === 404 || codes.some((code) => MISSING_CODES.has(code)))
      return { kind: 'missing', detail: described }
    return { kind: 'unreachable', detail: `the registry answered ${described}` }
  }

  /** The GET of the manifest, for its body; none when it fails: the HEAD already answered. */
  private async manifestBody(): Promise<HttpResponse | undefined> {
    try {
      return await this.manifest('GET')
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

  /** `by` (the registry, or its token service) refused the login, or anonymous access. */
  private refused(status: number, by = 'the registry'): CheckOutcome {
    const login = this.credentials
    const fix = login
      ? `check that the user name and the password or token are right, and that this user may pull '${this.image.repository}'`
      : `give ${CREDENTIAL_INPUTS}, or run \`docker login\` in an earlier step`
    const who = login ? `the login from ${login.source}` : 'anonymous access'
    return { kind: 'unauthorised', detail: `${by} refused ${who} (HTTP ${status}); ${fix}` }
  }

  /** The Authorization header that answers the registry's challenge, or why there is none. */
  private async authorise(header: string): Promise<Authorization> {
    const challenges = parseChallenges(header)
    const bearer = challenges.find((challenge) => challenge.scheme === 'bearer')
    if (bearer) return this.bearer(bearer)
    if (challenges.some((challenge) => challenge.scheme === 'basic')) {
      if (!this.credentials) return this.refused(401)
      return { header: `Basic ${basicAuth(this.credentials.username, this.credentials.password)}` }
    }
    return {
      kind: 'unauthorised',
      detail: `the registry answered 401 with no challenge this step can answer (WWW-Authenticate: '${this.shown(header)}')`,
    }
  }

  /** The token flow: GET <realm>?service=…&scope=repository:<name>:pull, with the login if any. */
  private async bearer(challenge: Challenge): Promise<Authorization> {
    const realm = tokenRealm(challenge, this.scope, (text) => this.shown(text))
    if (typeof realm === 'string') return { kind: 'unreachable', detail: realm }
    const refusal = realmRefusal(realm, new URL(this.image.origin))
    if (refusal) return { kind: 'unauthorised', detail: refusal }
    const headers: Record<string, string> = { Accept: 'application/json' }
    if (this.credentials)
      headers.Authorization = `Basic ${basicAuth(this.credentials.username, this.credentials.password)}`
    const response = await ask(
      { method: 'GET', url: realm, headers, maxBodyBytes: 64 * 1024 },
      this.deadline,
      this.ports,
    )
    if (response.status === 401 || response.status === 403)
      return this.refused(response.status, `the token service ${realm.host}`)
    const token = response.status === 200 ? tokenOf(response.body) : undefined
    if (!token)
      return {
        kind: 'unreachable',
        detail: `the token service ${realm.host} gave no token (HTTP ${response.status})`,
      }
    this.ports.registerSecret(token)
    return { header: `Bearer ${token}` }
  }

  /** A server's text as a message shows it: redacted, then escaped and cut (untrustedText). */
  private shown(text: string, maxChars?: number): string {
    return untrustedText(this.ports.redact(text), maxChars)
  }

  private get scope(): string {
    return `repository:${this.image.repository}:pull`
  }
}

/** The realm URL with service and scope, or why it cannot be used. */
function tokenRealm(
  challenge: Challenge,
  scope: string,
  shown: (text: string) => string,
): URL | string {
  let realm: URL
  try {
    realm = new URL(challenge.params.realm ?? '')
  } catch {
    return `the registry named no usable token service (realm '${shown(challenge.params.realm ?? '')}')`
  }
  if (realm.protocol !== 'https:' && realm.protocol !== 'http:')
    return `the registry named a token service that is not http(s) ('${realm.protocol}')`
  if (challenge.params.service) realm.searchParams.set('service', challenge.params.service)
  realm.searchParams.set('scope', scope)
  return realm
}

function tokenOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { token?: unknown; access_token?: unknown }
    const token = parsed.token ?? parsed.access_token
    return typeof token === 'string' && token !== '' ? token : undefined
  } catch {
    return undefined
  }
}

/** The `Docker-Content-Digest` header when it holds a digest and nothing else. */
function validDigest(header: string | undefined): string | undefined {
  const digest = header?.trim()
  return digest !== undefined && DIGEST.test(digest) ? digest : undefined
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

/** The `errors[].code` of a distribution API error body (`{"errors":[{"code":"…"}]}`). */
function errorCodes(response: HttpResponse): string[] {
  try {
    const parsed = JSON.parse(response.body) as { errors?: Array<{ code?: unknown }> }
    return (parsed.errors ?? [])
      .map((error) => error.code)
      .filter((code): code is string => typeof code === 'string')
  } catch {
    return []
  }
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
