// A real git remote over smart HTTP for tests: `git http-backend` run as CGI behind a Node server
// that demands a token, so clone/fetch/push go through the same code paths as against GitHub.
import { spawn } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { Cleanup } from './cleanup.js'
import {
  initBareRepo,
  readLog,
  readRefUpdates,
  readTreeFiles,
  seedHistory,
  type CommitInfo,
  type CreateRepoOptions,
  type LargeHistoryOptions,
  type RefUpdate,
} from './git-repos.js'

export { git, runGit } from './git-repos.js'
export type * from './git-repos.js'

const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend'

export interface GitRequest {
  method: string
  path: string
  query: string
  status: number
  authorized: boolean
  user?: string
  gzip: boolean
  chunked: boolean
  backendStderr?: string
}

// Function-typed properties, not methods: tests may destructure them (`const { urlFor } = server`).
export interface GitServer {
  /** `http://127.0.0.1:PORT` */
  baseUrl: string
  /** GIT_PROJECT_ROOT; bare repositories live at `<root>/<name>.git`. */
  root: string
  /** `http://TOKEN@127.0.0.1:PORT/<repo>.git`; an empty token gives a token-free URL. */
  urlFor: (repo: string, token?: string) => string
  /** Creates `<repo>.git` and returns its directory. */
  createRepo: (name: string, opts?: CreateRepoOptions) => Promise<string>
  /** Like createRepo, with large files that only the history holds (fast-import, ~1 s/5k commits). */
  createLargeHistoryRepo: (name: string, opts: LargeHistoryOptions) => Promise<string>
  /** Newest first. */
  log: (repo: string, branch: string) => Promise<CommitInfo[]>
  /** Files at the branch tip, keyed by path from the repository root, optionally under `dir`. */
  files: (repo: string, branch: string, dir?: string) => Promise<Record<string, string>>
  requests: GitRequest[]
  /** Ref updates accepted from pushes (seeding is not included), in order. */
  refUpdates: (repo?: string) => RefUpdate[]
  /** Accepted non-fast-forward updates, for "never force-pushes" assertions. */
  forcePushes: (repo?: string) => number
  /** Closes the server and deletes `root`. */
  stop: () => Promise<void>
}

/** `Authorization` value git sends for `http.extraheader`, e.g. `Basic eC1hY2Nlc3MtdG9rZW46...`. */
export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`
}

function parseBasicAuth(header: string | undefined): { user: string; password: string } | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '')
  if (!match?.[1]) return null
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return { user: decoded, password: '' }
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

// `https://TOKEN@host` arrives as user TOKEN with an empty password; `x-access-token:TOKEN` and
// GitLab's `oauth2:TOKEN` arrive as the password. Both are real-world shapes, so accept both.
function carriesToken(creds: { user: string; password: string } | null, token: string): boolean {
  return creds !== null && (creds.password === token || creds.user === token)
}

function cgiEnv(
  req: http.IncomingMessage,
  url: URL,
  root: string,
  user: string,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_USER: user,
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
  }
  // Chunked uploads (pushes above http.postBuffer) have no length: the backend then reads to EOF.
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length']
  // The backend inflates gzip bodies itself when told the encoding.
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding']
  const protocol = req.headers['git-protocol']
  if (typeof protocol === 'string') env.HTTP_GIT_PROTOCOL = protocol
  return env
}

function splitCgiHeaders(head: string): { status: number; headers: Record<string, string> } {
  const headers: Record<string, string> = {}
  let status = 200
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const name = line.slice(0, colon).trim()
    const value = line.slice(colon + 1).trim()
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500
    else headers[name] = value
  }
  return { status, headers }
}

function proxyToBackend(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  return new Promise<string>((resolve) => {
    // A CGI program, not a command to capture: its stdin and stdout stream the HTTP exchange.
    const child = spawn(HTTP_BACKEND, [], { env })
    const stderr: Buffer[] = []
    let pending: Buffer = Buffer.alloc(0)
    let headersSent = false
    // The backend may exit before reading a body it rejects; the EPIPE that follows is expected.
    child.stdin.on('error', () => undefined)
    req.pipe(child.stdin)
    // A client that goes away mid-request leaves the backend waiting for input: end it.
    res.on('close', () => {
      if (!res.writableFinished) child.kill()
    })
    child.stderr.on('data', (c: Buffer) => stderr.push(c))
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        writeWithBackpressure(res, child.stdout, chunk)
        return
      }
      pending = Buffer.concat([pending, chunk])
      const end = pending.indexOf('\r\n\r\n')
      const sepLength = end >= 0 ? 4 : 2
      const at = end >= 0 ? end : pending.indexOf('\n\n')
      if (at < 0) return
      const { status, headers } = splitCgiHeaders(pending.subarray(0, at).toString('latin1'))
      res.writeHead(status, headers)
      headersSent = true
      writeWithBackpressure(res, child.stdout, pending.subarray(at + sepLength))
    })
    child.on('error', (error) => {
      stderr.push(Buffer.from(String(error)))
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
    child.on('close', () => {
      if (!headersSent && !res.headersSent) res.writeHead(502)
      res.end()
      resolve(Buffer.concat(stderr).toString().trim())
    })
  })
}

function writeWithBackpressure(res: http.ServerResponse, source: Readable, chunk: Buffer): void {
  if (chunk.length > 0 && !res.write(chunk)) {
    source.pause()
    res.once('drain', () => source.resume())
  }
}

function repoDirName(repo: string): string {
  return repo.endsWith('.git') ? repo : `${repo}.git`
}

export async function startGitServer(opts: { token: string }): Promise<GitServer> {
  // The repositories' folder and the server, undone by stop().
  const owned = new Cleanup()
  const root = await owned.tempDir('git-server-')
  const requests: GitRequest[] = []
  const repos = new Set<string>()
  const bareDir = (repo: string): string => path.join(root, repoDirName(repo))

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const creds = parseBasicAuth(req.headers.authorization)
    const authorized = carriesToken(creds, opts.token)
    const entry: GitRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search.slice(1),
      status: 0,
      authorized,
      gzip: /gzip/i.test(req.headers['content-encoding'] ?? ''),
      chunked: /chunked/i.test(req.headers['transfer-encoding'] ?? ''),
    }
    if (creds) entry.user = creds.user
    requests.push(entry)
    res.on('finish', () => (entry.status = res.statusCode))
    if (!authorized) {
      req.resume()
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' })
      res.end('Authentication required\n')
      return
    }
    const env = cgiEnv(req, url, root, creds?.user || 'token')
    void proxyToBackend(req, res, env).then((stderr) => {
      if (stderr) entry.backendStderr = stderr
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  owned.add('git server', async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const port = (server.address() as AddressInfo).port
  const baseUrl = `http://127.0.0.1:${port}`

  async function createLargeHistoryRepo(name: string, o: LargeHistoryOptions): Promise<string> {
    const branch = o.branch ?? 'main'
    const dir = bareDir(name)
    await initBareRepo(dir, branch)
    repos.add(repoDirName(name))
    await seedHistory(dir, { ...o, branch })
    return dir
  }

  const refUpdates = (repo?: string): RefUpdate[] =>
    (repo ? [repoDirName(repo)] : [...repos]).flatMap((name) =>
      readRefUpdates(path.join(root, name), name),
    )

  return {
    baseUrl,
    root,
    requests,
    urlFor: (repo, token = opts.token) =>
      token
        ? `http://${encodeURIComponent(token)}@127.0.0.1:${port}/${repoDirName(repo)}`
        : `${baseUrl}/${repoDirName(repo)}`,
    createRepo: (name, o = {}) =>
      createLargeHistoryRepo(name, { ...o, commits: o.commits ?? 1, largeFileBytes: 0 }),
    createLargeHistoryRepo,
    log: (repo, branch) => readLog(bareDir(repo), branch),
    files: (repo, branch, dir) => readTreeFiles(bareDir(repo), branch, dir),
    refUpdates,
    forcePushes: (repo) => refUpdates(repo).filter((u) => u.kind === 'force').length,
    stop: () => owned.run(),
  }
}
