// An Olympe app played on loopback for the rollout watch: `/version.json` and
// `/OlympeServer/status` answer as a script says, and the script's clock starts when the
// platform's webhook accepts a deployment (call `deployed()` from the webhook's responder).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface AppRequest {
  /** `version` for …/version.json, `status` for …/OlympeServer/status. */
  route: 'version' | 'status' | 'other'
  path: string
  headers: IncomingMessage['headers']
  /** Since the deployment was accepted; undefined before it. */
  afterDeployMs?: number
  /** For a version.json request after the deployment: 1 for the first, 2 for the next… */
  poll?: number
}

export interface Reply {
  status: number
  body?: string
  headers?: Record<string, string>
}

export type AppScript = (request: AppRequest) => Reply | 'hang'

export interface AppServer {
  /** `http://127.0.0.1:<port>`. */
  url: string
  requests: AppRequest[]
  /** What version.json served, in order (a version, or the status when it served none). */
  served: string[]
  /** The platform accepted a deployment: the script's clock starts now. */
  deployed(): void
  /** A new scenario: forgets what arrived, not deployed yet. */
  play(script: AppScript): void
  stop(): Promise<void>
}

export const version = (value: string): Reply => ({
  status: 200,
  body: JSON.stringify({ version: value, 'olympe-framework': '9.15.3' }),
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' },
})
export const status = (code: number): Reply => ({
  status: code,
  body: code < 300 ? '{"status":"running"}' : 'down',
})

/** The usual app: before the deployment `before`, after it what `after` says; status 200. */
export function rollout(
  before: string,
  after: (request: AppRequest) => Reply,
  statusReply: Reply = status(200),
): AppScript {
  return (request) => {
    if (request.route === 'status') return statusReply
    if (request.route !== 'version') return { status: 404 }
    return request.afterDeployMs === undefined ? version(before) : after(request)
  }
}

export async function startAppServer(): Promise<AppServer> {
  let script: AppScript = rollout('1.0.0', () => version('1.0.0'))
  let deployedAt: number | undefined
  let polls = 0
  const requests: AppRequest[] = []
  const served: string[] = []
  const sockets = new Set<Socket>()
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? ''
    const pathname = path.replace(/\?.*$/, '')
    const route = pathname.endsWith('/version.json')
      ? 'version'
      : pathname.endsWith('/OlympeServer/status')
        ? 'status'
        : 'other'
    const request: AppRequest = { route, path, headers: req.headers }
    if (deployedAt !== undefined) {
      request.afterDeployMs = Date.now() - deployedAt
      if (route === 'version') request.poll = ++polls
    }
    requests.push(request)
    const reply = script(request)
    if (reply === 'hang') return
    if (route === 'version') served.push(versionOf(reply))
    res.writeHead(reply.status, reply.headers ?? {})
    res.end(reply.body ?? '')
  })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    served,
    deployed: () => {
      deployedAt ??= Date.now()
    },
    play: (next) => {
      script = next
      deployedAt = undefined
      polls = 0
      requests.length = 0
      served.length = 0
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function versionOf(reply: Reply): string {
  try {
    const parsed = JSON.parse(reply.body ?? '') as { version?: unknown }
    if (reply.status === 200 && typeof parsed.version === 'string') return parsed.version
  } catch {
    // not a version file
  }
  return `HTTP ${reply.status}`
}
