// A real registry behind a relay on loopback, as a pull-through cache or a company proxy sits in
// front of one: every request goes to the registry as it came (its login included), and every
// answer comes back, except where a test makes the relay play an attacker or a race: `headers`
// rewrites an answer's headers, and `after` runs once an answer was read from the registry and
// before it is passed on (a tag moved right after a read).
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { listenOnLoopback } from './loopback.js'

export interface RelayedRequest {
  method: string
  /** The path and query, as asked: `/v2/app/web/manifests/v1`. */
  path: string
}

export interface RegistryProxy {
  /** `127.0.0.1:<port>`: the registry part of the image references that go through it. */
  host: string
  /** Every request relayed, as `METHOD path`, in order. */
  requests: string[]
  stop: () => Promise<void>
}

export interface RelayHooks {
  headers?: (request: RelayedRequest, headers: IncomingHttpHeaders) => IncomingHttpHeaders
  after?: (request: RelayedRequest) => Promise<void>
}

/** Relays to the registry at `target` (`http://127.0.0.1:<port>`). */
export async function startRegistryProxy(
  target: string,
  hooks: RelayHooks = {},
): Promise<RegistryProxy> {
  const upstream = new URL(target)
  const requests: string[] = []
  const server = createServer((req, res) => {
    const asked: RelayedRequest = { method: req.method ?? 'GET', path: req.url ?? '/' }
    requests.push(`${asked.method} ${asked.path}`)
    const relayed = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: asked.method,
        path: asked.path,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('end', () => {
          void (async () => {
            await hooks.after?.(asked)
            const headers = hooks.headers?.(asked, answer.headers) ?? answer.headers
            res.writeHead(answer.statusCode ?? 502, headers)
            res.end(Buffer.concat(chunks))
          })().catch(() => res.destroy())
        })
      },
    )
    relayed.on('error', () => res.destroy())
    req.pipe(relayed)
  })
  const { port, stop } = await listenOnLoopback(server)
  return { host: `127.0.0.1:${port}`, requests, stop }
}
