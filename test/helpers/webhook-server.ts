import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import { listenOnLoopback } from './loopback.js'

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: string
}

/** How the fake platform answers one request; the index counts from 0. */
export type Responder = (
  request: ReceivedRequest,
  index: number,
  res: ServerResponse,
) => void | Promise<void>

export interface WebhookServer {
  url: string
  port: number
  requests: ReceivedRequest[]
  /** TCP connections accepted in this scenario, including those that never became a request. */
  connections(): number
  /** Starts a new scenario: forgets what arrived and answers the next requests with `responder`. */
  respondWith(responder: Responder): void
  stop(): Promise<void>
}

export const answer =
  (
    status: number,
    body: unknown = { message: 'success' },
    headers: Record<string, string> = {},
  ): Responder =>
  (_request, _index, res) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body)
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
    res.end(text)
  }

/**
 * The deploy step's outputs when the webhook accepted `payload` with 200 and the default
 * `{ message: 'success' }`, no image digests were read and no rollout was watched.
 */
export const acceptedUnwatched = (payload: string | undefined): Record<string, unknown> => ({
  payload,
  digests: '{}',
  status: '200',
  message: 'success',
  url: '',
  rollout: 'not-watched',
  'live-version': '',
})

/** Answers each request with the next responder; the last one repeats. */
export const sequence =
  (...responders: Responder[]): Responder =>
  (request, index, res) =>
    (responders[Math.min(index, responders.length - 1)] ?? answer(500))(request, index, res)

export interface WebhookServerOptions {
  path?: string
  /** Serve HTTPS with this key and certificate (see tls-certificates.ts). */
  tls?: { key: string; cert: string }
  /** The address to listen on (default loopback) and the host name the URL uses. */
  listen?: string
  host?: string
}

/** The platform's webhook played on loopback: it records what arrives and answers as told. */
export async function startWebhookServer(
  initial: Responder = answer(200),
  options: WebhookServerOptions | string = {},
): Promise<WebhookServer> {
  const {
    path = '/hooks/deploy',
    tls,
    listen = '127.0.0.1',
    host = listen,
  } = typeof options === 'string' ? { path: options } : options
  let respond = initial
  const requests: ReceivedRequest[] = []
  let connections = 0
  const handler: RequestListener = (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      requests.push(request)
      void Promise.resolve(respond(request, requests.length - 1, res)).catch(() => res.destroy())
    })
  }
  const server = tls ? createTlsServer(tls, handler) : createServer(handler)
  server.on('connection', () => connections++)
  // A refused TLS handshake must not crash the test process.
  server.on('tlsClientError', () => undefined)
  const { port, stop } = await listenOnLoopback(server, listen)
  return {
    url: `${tls ? 'https' : 'http'}://${host}:${port}${path}`,
    port,
    requests,
    connections: () => connections,
    respondWith: (responder) => {
      requests.length = 0
      connections = 0
      respond = responder
    },
    stop,
  }
}

/** Faults a real network or a broken platform produces, for the fault suite. */
export const faults = {
  neverAnswer: (): Responder => () => undefined,
  stallAfterHeaders: (): Responder => (_request, _index, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.flushHeaders()
  },
  stallInBody: (): Responder => (_request, _index, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.write('{"mess')
  },
  resetConnection: (): Responder => (_request, _index, res) => {
    res.socket?.resetAndDestroy()
  },
  closeBeforeAnswering: (): Responder => (_request, _index, res) => {
    res.socket?.end()
  },
  /** `HTTP/1.1 200 OK` and nothing more: the server acted, its answer was lost. */
  cutAfterStatusLine: (): Responder => (_request, _index, res) => {
    res.socket?.end('HTTP/1.1 200 OK\r\n')
  },
  /** Headers that promise a body, half of it, then the connection closes. */
  cutInBody: (): Responder => (_request, _index, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '21' })
    res.write('{"message":')
    setTimeout(() => res.socket?.destroy(), 50)
  },
  /** What a careless server does: quotes the request's path and authorization back. */
  echo:
    (status: number): Responder =>
    (request, _index, res) => {
      const path = request.path
      res.writeHead(status, { 'Content-Type': 'application/json' })
      res.end(
        JSON.stringify({
          message: `refused ${path} (${decodeURIComponent(path)}) with ${request.headers.authorization ?? ''}`,
          path,
        }),
      )
    },
  largeBody:
    (status: number, bytes: number): Responder =>
    (_request, _index, res) => {
      res.writeHead(status, { 'Content-Type': 'text/plain' })
      const chunk = 'x'.repeat(64 * 1024)
      for (let sent = 0; sent < bytes; sent += chunk.length) res.write(chunk)
      res.end()
    },
}
