import type { Deadline } from '../shared/deadline.js'
import type { HttpRequest, HttpResponse } from '../shared/http.js'
import { isObject, jsonValue } from '../shared/json-text.js'
import { MAX_ATTEMPTS } from '../shared/retry.js'
import { untrustedText } from '../shared/untrusted-text.js'
import { ask, Unreachable, type AskPorts } from './ask.js'
import { parseChallenges, type Challenge } from './challenge.js'
import { basicAuth } from '../shared/http.js'
import { CREDENTIAL_INPUTS, type RegistryCredentials } from './credentials.js'
import { repositoryUrl, type RegistryImage } from './reference.js'
import { realmRefusal } from './token-realm.js'

export interface SessionPorts extends AskPorts {
  /** Masks a value in everything printed from now on: the bearer tokens. */
  registerSecret: (value: string) => void
  /**
   * Masks the registered secrets in a server's text before it is escaped and cut for a message:
   * a registry may echo the login, and a cut or escaped secret no longer matches the mask.
   */
  redact: (text: string) => string
}

/** Why the registry would not let the request in, worded for the user. */
export interface Refusal {
  kind: 'unauthorised' | 'unreachable'
  detail: string
}

/** What the session asks the registry's token service for: reading, or reading and writing. */
export type Access = 'pull' | 'pull,push'

/** One request under `/v2/<repository>/`: `manifests/<tag>`, `blobs/<digest>`. */
export interface SessionRequest {
  method: HttpRequest['method']
  path: string
  /**
   * An address the registry gave (an upload's `Location`) instead of `path`: it must be on the
   * registry's own origin, since the request carries its Authorization.
   */
  at?: URL
  headers?: Record<string, string>
  body?: string
  maxBodyBytes: number
  /** Hash every byte of the answer's body (`bodySha256`), as it came, those past `maxBodyBytes` too. */
  hashBody?: boolean
}

/** The size of a token service's answer that is kept: tokens are a few KB. */
const MAX_TOKEN_BYTES = 64 * 1024

/**
 * Requests to one repository of a registry (OCI distribution spec), within one deadline. The
 * first 401 is answered as the registry's challenge asks, `Basic` with the credentials or
 * `Bearer` with a token from the realm it names, and the request is made again; later requests
 * carry the same Authorization. Throws Unreachable (ask.ts) when no answer comes.
 */
export class RegistrySession {
  private authorization: string | undefined

  constructor(
    private readonly image: Pick<RegistryImage, 'origin' | 'repository'>,
    readonly credentials: RegistryCredentials | undefined,
    private readonly access: Access,
    readonly deadline: Deadline,
    readonly ports: SessionPorts,
    /** Tries of each request after failures that never reached the registry (ask.ts). */
    readonly attempts = MAX_ATTEMPTS,
  ) {}

  /** The same session, its authorization kept, for requests bounded by another deadline. */
  within(deadline: Deadline): RegistrySession {
    const session = new RegistrySession(
      this.image,
      this.credentials,
      this.access,
      deadline,
      this.ports,
      this.attempts,
    )
    session.authorization = this.authorization
    return session
  }

  /** The registry API's origin, against which a relative redirect is resolved. */
  get origin(): string {
    return this.image.origin
  }

  /** The registry's answer, or the refusal of its challenge; a second 401 is returned as is. */
  async send(request: SessionRequest): Promise<HttpResponse | Refusal> {
    const sentWith = this.authorization
    const response = await this.once(request)
    if (response.status !== 401) return response
    // Requests of one session may run at once: another one's challenge, answered while this one
    // was under way, is this one's answer too.
    if (this.authorization !== sentWith) return this.once(request)
    if (sentWith !== undefined) return response
    const authorization = await this.authorise(response.headers['www-authenticate'] ?? '')
    if (!('header' in authorization)) return authorization
    this.authorization = authorization.header
    return this.once(request)
  }

  /**
   * `send` for a write the registry must answer with one of the `accepted` statuses: the
   * response, or what to tell the user: the refusal, a login the registry refused (HTTP 401,
   * 403), or the status it answered instead (and the error codes of its body), `to` what.
   */
  async sendWrite(
    request: SessionRequest,
    accepted: readonly number[],
    to?: string,
  ): Promise<HttpResponse | string> {
    const response = await this.send(request)
    if (isRefusal(response)) return response.detail
    if (response.status === 401 || response.status === 403)
      return this.refused(response.status).detail
    if (!accepted.includes(response.status))
      return `the registry answered HTTP ${response.status}${errorCodesOf(response.body)}${to ? ` to ${to}` : ''}`
    return response
  }

  /** `by` (the registry, or its token service) refused the login, or anonymous access. */
  refused(status: number, by = 'the registry'): Refusal {
    const login = this.credentials
    const may = this.access === 'pull' ? 'pull' : 'push to'
    const fix = login
      ? `check that the user name and the password or token are right, and that this user may ${may} '${this.image.repository}'`
      : `give ${CREDENTIAL_INPUTS}, or run \`docker login\` in an earlier step`
    const who = login ? `the login from ${login.source}` : 'anonymous access'
    return { kind: 'unauthorised', detail: `${by} refused ${who} (HTTP ${status}); ${fix}` }
  }

  /** A server's text as a message shows it: redacted, then escaped and cut (untrustedText). */
  shown(text: string, maxChars?: number): string {
    return untrustedText(this.ports.redact(text), maxChars)
  }

  private once(request: SessionRequest): Promise<HttpResponse> {
    const headers = { ...request.headers }
    if (this.authorization) headers.Authorization = this.authorization
    const url = request.at ?? repositoryUrl(this.image, request.path)
    if (url.origin !== new URL(this.image.origin).origin)
      throw new Unreachable(
        `the registry sent the request to another address (${url.origin}), where its login is not sent`,
      )
    return ask(
      {
        method: request.method,
        url,
        headers,
        maxBodyBytes: request.maxBodyBytes,
        ...(request.body === undefined ? {} : { body: request.body }),
        ...(request.hashBody ? { hashBody: true } : {}),
      },
      this.deadline,
      this.ports,
      this.attempts,
    )
  }

  /** The Authorization header that answers the registry's challenge, or why there is none. */
  private async authorise(header: string): Promise<{ header: string } | Refusal> {
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

  /** The token flow: GET <realm>?service=…&scope=repository:<name>:<access>, with the login if any. */
  private async bearer(challenge: Challenge): Promise<{ header: string } | Refusal> {
    const scope = `repository:${this.image.repository}:${this.access}`
    const realm = tokenRealm(challenge, scope, (text) => this.shown(text))
    if (typeof realm === 'string') return { kind: 'unreachable', detail: realm }
    const refusal = realmRefusal(realm, new URL(this.image.origin))
    if (refusal) return { kind: 'unauthorised', detail: refusal }
    const headers: Record<string, string> = { Accept: 'application/json' }
    if (this.credentials)
      headers.Authorization = `Basic ${basicAuth(this.credentials.username, this.credentials.password)}`
    const response = await ask(
      { method: 'GET', url: realm, headers, maxBodyBytes: MAX_TOKEN_BYTES },
      this.deadline,
      this.ports,
      this.attempts,
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
}

/** The `errors[].code` strings of a distribution API error body (`{"errors":[{"code":"…"}]}`). */
export function errorCodesIn(body: string): string[] {
  const parsed = jsonValue(body)
  const errors: unknown[] = isObject(parsed) && Array.isArray(parsed.errors) ? parsed.errors : []
  return errors.flatMap((error) =>
    isObject(error) && typeof error.code === 'string' ? [error.code] : [],
  )
}

/** `, MANIFEST_UNKNOWN` from a distribution API error body; '' without one. */
export function errorCodesOf(body: string): string {
  const codes = errorCodesIn(body).filter((code) => /^[A-Z_]{1,40}$/.test(code))
  return codes.length > 0 ? `, ${codes.join(', ')}` : ''
}

export function isRefusal(answer: HttpResponse | Refusal): answer is Refusal {
  return 'kind' in answer
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
  const parsed = jsonValue(body)
  if (!isObject(parsed)) return undefined
  const token = parsed.token ?? parsed.access_token
  return typeof token === 'string' && token !== '' ? token : undefined
}
