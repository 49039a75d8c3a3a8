import { createHash } from 'node:crypto'
import * as http from 'node:http'
import * as https from 'node:https'
import type { Socket } from 'node:net'
import { HttpClient as ActionsHttpClient } from '@actions/http-client'
import {
  HttpFailure,
  type HttpClient,
  type HttpRequest,
  type HttpResponse,
} from '../core/shared/http.js'

type RequestInfo = Parameters<ActionsHttpClient['requestRawWithCallback']>[0]

/** How far a request got: what decides whether it may have reached the server. */
interface Progress {
  request?: http.ClientRequest
  /** The CONNECT request to a proxy, which must end with ours. */
  tunnel?: http.ClientRequest
  /** A connection to the server (directly, or through a proxy's tunnel) was made. */
  connected: boolean
  /** The TLS handshake with the server completed. */
  secured: boolean
}

/**
 * HTTP through @actions/http-client, so that requests go the way every JavaScript action's do:
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY honoured, NODE_EXTRA_CA_CERTS trusted, and a
 * User-Agent naming us. The client is never asked to redirect or retry: the core decides.
 * The request's socket is watched, because the core must tell "never reached the server" from
 * "sent, then lost", which an error alone does not say.
 */
export function createHttpClient(userAgent: string): HttpClient {
  // A client per request: http-client keeps the agent of its first direct request for every
  // later one, so an https registry and then an http webhook would share an https agent.
  const client = (): ActionsHttpClient =>
    new ActionsHttpClient(userAgent, [], {
      allowRedirects: false,
      allowRetries: false,
      keepAlive: false,
      // Its own idle timeout must never fire before ours (it would name the URL's path).
      socketTimeout: 4 * 60 * 60_000,
    })
  return { request: (request) => send(client(), request) }
}

function send(client: ActionsHttpClient, request: HttpRequest): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const progress: Progress = { connected: false, secured: false }
    const overTls = request.url.protocol === 'https:'
    const ready = (): boolean => progress.connected && (!overTls || progress.secured)
    let settled = false
    const timers: NodeJS.Timeout[] = []
    const settle = (outcome: HttpResponse | HttpFailure): void => {
      if (settled) return
      settled = true
      for (const timer of timers) clearTimeout(timer)
      if (outcome instanceof HttpFailure) {
        progress.request?.destroy()
        progress.tunnel?.destroy()
        reject(outcome)
      } else resolve(outcome)
    }
    timers.push(
      setTimeout(
        () =>
          settle(
            ready()
              ? new HttpFailure('timeout', 'no complete response within the time allowed')
              : notConnected(progress),
          ),
        request.timeoutMs,
      ),
      setTimeout(() => {
        if (!ready()) settle(notConnected(progress))
      }, request.connectTimeoutMs ?? request.timeoutMs),
    )
    const info = requestInfo(client, request, progress)
    client.requestRawWithCallback(info, request.body ?? null, (error, response) => {
      if (error || !response) {
        settle(classify(error ?? new Error('no response'), progress, overTls))
        return
      }
      readBody(response.message, request).then(
        ({ body, truncated, sha256 }) =>
          settle({
            status: response.message.statusCode ?? 0,
            headers: flatHeaders(response.message.headers),
            body,
            bodyTruncated: truncated,
            ...(sha256 ? { bodySha256: sha256 } : {}),
          }),
        (failure: unknown) =>
          settle(
            failure instanceof HttpFailure ? failure : new HttpFailure('partial', String(failure)),
          ),
      )
    })
  })
}

/** Nothing of the request was written yet: no connection, or no TLS session on it. */
function notConnected(progress: Progress): HttpFailure {
  return progress.connected
    ? new HttpFailure('tls', 'the TLS handshake with the server did not finish in time')
    : new HttpFailure(
        'connect-timeout',
        'no connection to the server could be made in time (through the proxy, when one is set)',
      )
}

/** The request as http-client builds it (its agent routes through a proxy or not), observed. */
function requestInfo(
  client: ActionsHttpClient,
  request: HttpRequest,
  progress: Progress,
): RequestInfo {
  const { url } = request
  const base = url.protocol === 'https:' ? https : http
  const observed = (
    options: http.RequestOptions,
    callback?: (response: http.IncomingMessage) => void,
  ): http.ClientRequest => {
    const req = base.request(options, callback)
    progress.request = req
    req.on('socket', (socket: Socket) => watchSocket(socket, progress))
    return req
  }
  return {
    parsedUrl: url,
    // http-client calls nothing but request() on it.
    httpModule: { request: observed } as unknown as typeof https,
    options: {
      host: url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers: { ...request.headers, 'user-agent': client.userAgent },
      agent: watchTunnel(client.getAgent(url.href), progress),
    },
  }
}

/** http-client's proxy agent (the `tunnel` package) makes its CONNECT request with this. */
type TunnelAgent = http.Agent & { request?: (options: http.RequestOptions) => http.ClientRequest }

/**
 * A proxy that never answers CONNECT keeps that request open after ours is given up, and with it
 * the process: so the CONNECT request is recorded, to be destroyed with ours.
 */
function watchTunnel(agent: TunnelAgent, progress: Progress): http.Agent {
  // Each request has a client, so an agent, of its own (createHttpClient): wrapped once.
  const original = agent.request
  if (typeof original !== 'function') return agent
  agent.request = (options) => (progress.tunnel = original(options))
  return agent
}

/**
 * A direct socket is handed over still connecting; a proxy's tunnel is handed over once the
 * proxy has connected to the server. A TLS socket reports its handshake with secureConnect.
 */
function watchSocket(socket: Socket, progress: Progress): void {
  if (socket.connecting) socket.once('connect', () => (progress.connected = true))
  else progress.connected = true
  socket.once('secureConnect', () => (progress.secured = true))
}

function readBody(
  response: http.IncomingMessage,
  request: Pick<HttpRequest, 'maxBodyBytes' | 'stopAtLimit' | 'hashBody'>,
): Promise<{ body: string; truncated: boolean; sha256?: string }> {
  const { maxBodyBytes: maxBytes } = request
  const stopAtLimit = request.stopAtLimit === true
  const hash = request.hashBody ? createHash('sha256') : undefined
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let kept = 0
    let truncated = false
    const done = (): void => {
      const body = Buffer.concat(chunks).toString('utf8')
      // A body cut at the limit was not read whole: its digest would be of a part.
      const whole = hash && !(truncated && stopAtLimit)
      resolve({ body, truncated, ...(whole ? { sha256: hash.digest('hex') } : {}) })
    }
    response.on('data', (chunk: Buffer) => {
      hash?.update(chunk)
      const part = chunk.subarray(0, Math.max(0, maxBytes - kept))
      truncated ||= part.length < chunk.length
      if (part.length > 0) chunks.push(part)
      kept += part.length
      if (truncated && stopAtLimit) {
        // Resolved first: the close that destroying causes then finds the promise settled.
        done()
        response.destroy()
      }
    })
    response.on('end', done)
    const cut = (): void =>
      reject(new HttpFailure('partial', 'the connection was closed in the middle of the response'))
    response.on('error', cut)
    response.on('close', () => {
      if (!response.complete) cut()
    })
  })
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(headers))
    flat[name] = Array.isArray(value) ? value.join(', ') : value
  return flat
}

const CERTIFICATE_CODE = /CERT|SELF_SIGNED|VERIFY|ISSUER|ALTNAME/

/** Messages never quote Node's own text: it can name the host, and a webhook URL is a secret. */
function classify(error: Error, progress: Progress, overTls: boolean): HttpFailure {
  const code = (error as NodeJS.ErrnoException).code ?? ''
  if (error.message.startsWith('tunneling socket could not be established')) {
    const status = /statusCode=(\d+)/.exec(error.message)?.[1]
    return new HttpFailure(
      'proxy',
      `the proxy (HTTPS_PROXY or HTTP_PROXY) opened no tunnel to the server (${status ? `it answered ${status}` : 'it could not be reached'}); check the proxy settings, or list the host in NO_PROXY`,
      status === undefined ? undefined : Number(status),
    )
  }
  if (!progress.connected) {
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return new HttpFailure('dns', `the host name could not be resolved (${code})`)
    return new HttpFailure(
      'refused',
      code === 'ECONNREFUSED'
        ? 'the server refused the connection (ECONNREFUSED)'
        : `no connection could be made (${code || 'no code'})`,
    )
  }
  if (overTls && !progress.secured) {
    if (CERTIFICATE_CODE.test(code))
      return new HttpFailure(
        'tls',
        `the server's TLS certificate was refused (${code}); if it is signed by a private certificate authority, give that authority's PEM file in the NODE_EXTRA_CA_CERTS environment variable of the step`,
      )
    return new HttpFailure('tls', `the TLS handshake failed (${code || 'no code'})`)
  }
  if (code === 'ECONNRESET' || code === 'EPIPE' || error.message === 'socket hang up')
    return new HttpFailure(
      'reset',
      `the connection was closed after the request was sent, before a complete response arrived (${code || 'socket hang up'}), so the server may have received it`,
    )
  return new HttpFailure('other', `the request failed (${code || 'unknown error'})`)
}
