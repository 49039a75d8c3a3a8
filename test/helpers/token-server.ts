// The token service of a registry that uses `auth: token` (distribution's Bearer flow, as
// ghcr.io, GitLab's registry and Docker Hub answer): on loopback, it checks the Basic login and
// hands out RS256 JWTs that the registry trusts through the certificate in its root bundle.
import { randomBytes, sign } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { makeTlsFiles } from './tls-certificates.js'
import { listenOnLoopback } from './loopback.js'

export interface TokenRequest {
  /** The user of the Basic login, or undefined when the request came without one. */
  user?: string
  /** The login was given and was right. */
  authenticated: boolean
  service: string | null
  scopes: string[]
}

export interface TokenServer {
  /** The `realm` of the registry's challenge: `http://127.0.0.1:PORT/token`. */
  realm: string
  service: string
  issuer: string
  /** PEM file of the certificate authority that signed the signing key's certificate. */
  rootCertBundle: string
  requests: TokenRequest[]
  /** Every token handed out, for the secret scans. */
  issued: string[]
  stop(): Promise<void>
}

export interface TokenServerOptions {
  user: string
  password: string
  service?: string
}

const ISSUER = 'olympe-test-token-issuer'
const LIFETIME_SECONDS = 300

/**
 * A login that is right gets every action it asks for on every repository; no login gets a
 * token with no access (the registry then answers 401 insufficient_scope); a wrong one gets 401.
 */
export async function startTokenServer(options: TokenServerOptions): Promise<TokenServer> {
  const service = options.service ?? 'olympe-test-registry'
  const tls = await makeTlsFiles(['olympe-token-signer'])
  const certificate = tls.cert.replace(/-----[A-Z ]+-----|\s/g, '')
  const requests: TokenRequest[] = []
  const issued: string[] = []

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://token.invalid')
    const login = basicLogin(req.headers.authorization)
    const authenticated = login?.user === options.user && login.password === options.password
    const scopes = url.searchParams.getAll('scope')
    requests.push({
      user: login?.user,
      authenticated,
      service: url.searchParams.get('service'),
      scopes,
    })
    if (url.pathname !== '/token') {
      reply(res, 404, { errors: [{ code: 'NOT_FOUND' }] })
      return
    }
    if (login && !authenticated) {
      reply(res, 401, { errors: [{ code: 'UNAUTHORIZED', message: 'bad login' }] })
      return
    }
    const token = signToken(tls.key, certificate, {
      iss: ISSUER,
      sub: login?.user ?? '',
      aud: url.searchParams.get('service') ?? service,
      access: authenticated ? scopes.map(grant) : [],
    })
    issued.push(token)
    reply(res, 200, { token, access_token: token, expires_in: LIFETIME_SECONDS })
  }

  const server = createServer(handle)
  const { port, stop } = await listenOnLoopback(server)
  return {
    realm: `http://127.0.0.1:${port}/token`,
    service,
    issuer: ISSUER,
    rootCertBundle: tls.caFile,
    requests,
    issued,
    stop: async () => {
      await stop()
      await tls.remove()
    },
  }
}

function basicLogin(header: string | undefined): { user: string; password: string } | undefined {
  const encoded = /^Basic (.+)$/i.exec(header ?? '')?.[1]
  if (!encoded) return undefined
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** `repository:acme/app:pull,push` → the JWT's access entry. */
function grant(scope: string): { type: string; name: string; actions: string[] } {
  const [type = '', ...rest] = scope.split(':')
  const actions = rest.pop() ?? ''
  return { type, name: rest.join(':'), actions: actions.split(',') }
}

/** A JWT as distribution verifies it: RS256, with the signing certificate in `x5c`. */
function signToken(key: string, certificate: string, claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000)
  const header = { typ: 'JWT', alg: 'RS256', x5c: [certificate] }
  const body = {
    ...claims,
    iat: now,
    nbf: now - 10,
    exp: now + LIFETIME_SECONDS,
    jti: randomBytes(8).toString('hex'),
  }
  const signed = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(body))}`
  return `${signed}.${sign('sha256', Buffer.from(signed), key).toString('base64url')}`
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url')
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify(body))
}
