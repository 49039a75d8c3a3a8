// GitHub's Actions cache service on loopback, as @actions/cache speaks to it (service v2,
// ACTIONS_CACHE_SERVICE_V2): Twirp JSON calls under ACTIONS_RESULTS_URL with the runtime token,
// and the archive uploaded to the signed URL the service hands out, as the Azure SDK uploads a
// block blob. Entries are scoped as GitHub scopes them: a run writes to its own ref's scope and
// reads its own and the default branch's.
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

const SERVICE = '/twirp/github.actions.results.api.v1.CacheService/'

export interface CacheEntry {
  key: string
  version: string
  scope: string
  size: number
  finalized: boolean
}

export interface ActionsCacheServer {
  /** ACTIONS_RESULTS_URL, ACTIONS_RUNTIME_TOKEN and ACTIONS_CACHE_SERVICE_V2 for the step. */
  env: Record<string, string>
  /** The ref the next runs run on (GITHUB_REF): the scope they write to. */
  setRef(ref: string): void
  entries(): CacheEntry[]
  /** Every call, `<Method> <key>`, in order. */
  calls: string[]
  /** Forgets every entry, as an eviction does. */
  evictAll(): void
  stop(): Promise<void>
}

export async function startActionsCacheServer(
  defaultRef = 'refs/heads/main',
): Promise<ActionsCacheServer> {
  const token = `runtime-${randomBytes(12).toString('hex')}`
  let ref = defaultRef
  const entries: CacheEntry[] = []
  const uploads = new Map<string, CacheEntry>()
  const calls: string[] = []
  const visible = (key: string, version: string): CacheEntry | undefined =>
    [ref, defaultRef]
      .map((scope) =>
        entries.find(
          (entry) =>
            entry.finalized &&
            entry.key === key &&
            entry.version === version &&
            entry.scope === scope,
        ),
      )
      .find((entry) => entry !== undefined)

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error))
    })
  })

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request)
    const url = new URL(request.url ?? '/', 'http://localhost')
    const json = (status: number, value: object): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
    }
    if (request.method === 'PUT' && url.pathname.startsWith('/upload/')) {
      const entry = uploads.get(url.pathname.slice('/upload/'.length))
      if (!entry || url.searchParams.get('sig') !== 'ok') {
        response.writeHead(403).end()
        return
      }
      entry.size = body.length
      response
        .writeHead(201, {
          etag: '"0x1"',
          'last-modified': new Date().toUTCString(),
          'x-ms-request-id': randomBytes(8).toString('hex'),
          'x-ms-version': '2024-11-04',
          'x-ms-request-server-encrypted': 'true',
        })
        .end()
      return
    }
    if (request.method !== 'POST' || !url.pathname.startsWith(SERVICE)) {
      json(404, { code: 'bad_route', msg: `no route ${request.method} ${url.pathname}` })
      return
    }
    if (request.headers.authorization !== `Bearer ${token}`) {
      json(401, { code: 'unauthenticated', msg: 'bad token' })
      return
    }
    const method = url.pathname.slice(SERVICE.length)
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, string>
    calls.push(`${method} ${input.key ?? ''}`)
    switch (method) {
      case 'GetCacheEntryDownloadURL': {
        const found = visible(input.key ?? '', input.version ?? '')
        json(
          200,
          found
            ? {
                ok: true,
                signed_download_url: `http://${host()}/download/${found.key}`,
                matched_key: found.key,
              }
            : { ok: false },
        )
        return
      }
      case 'CreateCacheEntry': {
        const key = input.key ?? ''
        const version = input.version ?? ''
        if (entries.some((e) => e.key === key && e.version === version && e.scope === ref)) {
          json(409, {
            code: 'already_exists',
            msg: 'cache entry with the same key, version, and scope already exists',
          })
          return
        }
        const entry: CacheEntry = { key, version, scope: ref, size: 0, finalized: false }
        entries.push(entry)
        const id = randomBytes(6).toString('hex')
        uploads.set(id, entry)
        json(200, { ok: true, signed_upload_url: `http://${host()}/upload/${id}?sig=ok` })
        return
      }
      case 'FinalizeCacheEntryUpload': {
        const entry = entries.find(
          (e) => e.key === input.key && e.version === input.version && e.scope === ref,
        )
        if (!entry) {
          json(404, { code: 'not_found', msg: 'no such entry' })
          return
        }
        entry.finalized = true
        json(200, { ok: true, entry_id: String(entries.indexOf(entry) + 1) })
        return
      }
      default:
        json(404, { code: 'bad_route', msg: `no method ${method}` })
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const host = (): string => `127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    env: {
      ACTIONS_RESULTS_URL: `http://${host()}/`,
      ACTIONS_RUNTIME_TOKEN: token,
      ACTIONS_CACHE_SERVICE_V2: 'true',
    },
    setRef: (next) => {
      ref = next
    },
    entries: () => entries.map((entry) => ({ ...entry })),
    calls,
    evictAll: () => {
      entries.length = 0
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks)))
    request.on('error', reject)
  })
}
