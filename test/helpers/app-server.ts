// An Olympe app played on loopback for the rollout watch: `/version.json` and
// `/OlympeServer/status` answer as a script says, and the script's clock starts when the
// platform's webhook accepts a deployment (call `deployed()` from the webhook's responder).
// `site()` plays a whole frontend as Olympe's nginx serves it: version.json, index.html that
// loads `main.js?v=<version>` (the official template's, not content-hashed), and main.js, each
// with nginx's ETag and Last-Modified, and a 304 for a conditional request that matches.
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { answer, type Responder, type WebhookServer } from './webhook-server.js'
import { listenOnLoopback } from './loopback.js'

export interface AppRequest {
  /** `version` for …/version.json, `status` for …/OlympeServer/status. */
  route: 'version' | 'status' | 'other'
  path: string
  headers: IncomingMessage['headers']
  /** Since the deployment was accepted; undefined before it. */
  afterDeployMs?: number
  /** For a version.json request after the deployment: 1 for the first, 2 for the next… */
  poll?: number
  /** The status it was answered with. */
  status?: number
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
    request.status = reply.status
    if (route === 'version') served.push(versionOf(reply))
    res.writeHead(reply.status, reply.headers ?? {})
    res.end(reply.body ?? '')
  })
  const { port, stop } = await listenOnLoopback(server)
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
    stop,
  }
}

/** The platform accepting a deployment: answers 200 and starts each app's script (its clock). */
export const deploys =
  (...apps: AppServer[]): Responder =>
  (request, index, res) => {
    for (const app of apps) app.deployed()
    return answer(200)(request, index, res)
  }

/**
 * The platform's host serving the app too, as the responder of `webhook`: version.json says
 * `before` until a POST has arrived and `after` once one has, the status route answers ok, and
 * any other request is an accepted deployment.
 */
export const platformServingApp =
  (webhook: WebhookServer, before: string, after: string): Responder =>
  (request, index, res) => {
    const posted = webhook.requests.some((each) => each.method === 'POST')
    if (request.path.startsWith('/version.json'))
      return answer(200, { version: posted ? after : before })(request, index, res)
    if (request.path === '/OlympeServer/status')
      return answer(200, { status: 'ok' })(request, index, res)
    return answer(200, { message: 'success' })(request, index, res)
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

/** A frontend build as the official template's webpack build leaves it in dist/web. */
export interface FrontendBuild {
  version: string
  /** main.js: new code makes a new one, whether the version was bumped or not. */
  code: string
  /** vendor.js, a second script that index.html loads, for a build that has one. */
  vendor?: string
  /** When its files were written: nginx's ETag and Last-Modified come from it. */
  mtime: Date
}

/** The files of a build, path below the web root → text. */
export function builtFiles(build: FrontendBuild): Record<string, string> {
  const script = (file: string): string =>
    `    <script type="text/javascript" src="${file}?v=${build.version}"></script>\n`
  const vendor = build.vendor === undefined ? '' : script('vendor.js')
  return {
    'version.json': `${JSON.stringify({ version: build.version, 'olympe-framework': '9.15.3' }, null, 4)}\n`,
    'index.html': `<!doctype html>\n<html lang="en">\n  <head>\n    <title>Olympe</title>\n${vendor}${script('main.js')}  </head>\n  <body></body>\n</html>\n`,
    'main.js': build.code,
    ...(build.vendor === undefined ? {} : { 'vendor.js': build.vendor }),
  }
}

/** What build-images records in the frontend image's served-files label for this build. */
export function servedFilesLabel(build: FrontendBuild): string {
  const files = builtFiles(build)
  const sorted = Object.keys(files)
    .sort()
    .map((path) => [
      path,
      `sha256:${createHash('sha256')
        .update(files[path] ?? '')
        .digest('hex')}`,
    ])
  return JSON.stringify(Object.fromEntries(sorted))
}

/**
 * One file of the build as nginx serves it: `ETag: "<mtime hex>-<size hex>"`, `Last-Modified`;
 * 304 when If-None-Match names that ETag, or, without If-None-Match, when If-Modified-Since is
 * not older than the file. version.json and index.html say `Cache-Control: no-cache`, as
 * Olympe's chart configures them.
 */
export function nginxFile(build: FrontendBuild, path: string, request: AppRequest): Reply {
  const body = builtFiles(build)[path]
  if (body === undefined) return { status: 404, body: 'not found' }
  const seconds = Math.floor(build.mtime.getTime() / 1000)
  const etag = `"${seconds.toString(16)}-${Buffer.byteLength(body).toString(16)}"`
  const lastModified = new Date(seconds * 1000).toUTCString()
  const headers: Record<string, string> = {
    ETag: etag,
    'Last-Modified': lastModified,
    'Content-Type': path.endsWith('.json')
      ? 'application/json'
      : path.endsWith('.html')
        ? 'text/html'
        : 'application/javascript',
    ...(path.endsWith('.js') ? {} : { 'Cache-Control': 'no-cache' }),
  }
  const match = request.headers['if-none-match']
  const since = request.headers['if-modified-since']
  const unchanged =
    match !== undefined
      ? match === etag
      : since !== undefined && Date.parse(since) >= seconds * 1000
  return unchanged ? { status: 304, headers } : { status: 200, headers, body }
}

/**
 * An app whose frontend is `before` until the deployment, then the build `after` names for each
 * request; its status route answers 200. Any other path is a 404.
 */
export function site(
  before: FrontendBuild,
  after: (request: AppRequest) => FrontendBuild = () => before,
): AppScript {
  return (request) => {
    if (request.route === 'status') return status(200)
    const build = request.afterDeployMs === undefined ? before : after(request)
    const path = request.path
      .replace(/\?.*$/, '')
      .replace(/^.*?\/(version\.json|index\.html|main\.js|vendor\.js)$/, '$1')
    return nginxFile(build, path, request)
  }
}

/**
 * `script`, except that `file` (`version.json`, `main.js`…) answers `reply` to every request
 * before the platform accepted the deployment: an app that was restarting, or a file it did not
 * serve then.
 */
export function beforeTheCall(file: string, reply: Reply | 'hang', script: AppScript): AppScript {
  return (request) =>
    request.afterDeployMs === undefined && request.path.replace(/\?.*$/, '').endsWith(`/${file}`)
      ? reply
      : script(request)
}
