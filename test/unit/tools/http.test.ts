import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { HttpFailure, type HttpRequest } from '../../../src/core/shared/http.js'
import { USER_AGENT } from '../../../src/platform/package-info.js'
import { createHttpClient } from '../../../src/tools/http.js'
import {
  externalAddress,
  startConnectProxy,
  type ConnectProxy,
} from '../../helpers/connect-proxy.js'
import { makeTlsFiles } from '../../helpers/tls-certificates.js'
import { until } from '../../helpers/waiting.js'
import { answer, startWebhookServer, type WebhookServer } from '../../helpers/webhook-server.js'

const PROXY_VARIABLES = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
]
const saved = Object.fromEntries(
  PROXY_VARIABLES.flatMap((name) =>
    process.env[name] === undefined ? [] : [[name, process.env[name]]],
  ),
)

function post(url: string, overrides: Partial<HttpRequest> = {}): Promise<unknown> {
  return createHttpClient(USER_AGENT).request({
    method: 'POST',
    url: new URL(url),
    headers: { 'content-type': 'application/json' },
    body: '{"hello":"world"}',
    timeoutMs: 5000,
    maxBodyBytes: 1024,
    ...overrides,
  })
}

async function failure(promise: Promise<unknown>): Promise<HttpFailure> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(HttpFailure)
  return error as HttpFailure
}

const rawServers: Server[] = []

/** A TCP server that does `behave` with each connection, for the faults HTTP servers cannot make. */
async function rawServer(
  behave: (socket: Socket) => void,
): Promise<{ url: string; server: Server }> {
  const sockets: Socket[] = []
  const server = createServer((socket) => {
    sockets.push(socket)
    behave(socket)
  })
  server.on('close', () => {
    for (const socket of sockets) socket.destroy()
  })
  rawServers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${address.port}/hook`, server }
}

let webhook: WebhookServer
beforeAll(async () => {
  webhook = await startWebhookServer(answer(200, { message: 'success' }), {
    listen: '0.0.0.0',
    host: '127.0.0.1',
  })
})
afterAll(async () => {
  await webhook.stop()
  for (const server of rawServers) {
    server.close()
    server.emit('close')
  }
})
afterEach(() => {
  const others = Object.entries(process.env).filter(([name]) => !PROXY_VARIABLES.includes(name))
  process.env = { ...Object.fromEntries(others), ...saved }
})

describe('the HTTP tool', () => {
  test('a POST: status, body, headers, and the User-Agent naming us', async () => {
    webhook.respondWith(answer(200, { message: 'success' }, { 'X-Trace': 'abc' }))
    const response = await post(webhook.url)
    expect(response).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'x-trace': 'abc' }) as unknown,
      body: '{"message":"success"}',
      bodyTruncated: false,
    })
    expect(webhook.requests[0]?.headers['user-agent']).toMatch(
      /^olympe-deploy-actions\/\d+\.\d+\.\d+/,
    )
    expect(webhook.requests[0]?.body).toBe('{"hello":"world"}')
  })

  test('a large body is kept up to the limit and said to be cut', async () => {
    webhook.respondWith(answer(500, 'x'.repeat(5000)))
    expect(await post(webhook.url, { maxBodyBytes: 100 })).toMatchObject({
      status: 500,
      body: 'x'.repeat(100),
      bodyTruncated: true,
    })
  })

  test('hashBody: the digest of every byte, those past the limit too; none for a body cut short', async () => {
    // Bytes that are not valid UTF-8: the digest is of the bytes, not of their text.
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.alloc(300_000, 'a')])
    const { url } = await rawServer((socket) => {
      // The client's reset, when it stops reading at the limit, is expected.
      socket.on('error', () => undefined)
      socket.once('data', () => {
        socket.end(
          Buffer.concat([
            Buffer.from(
              `HTTP/1.1 200 OK\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
            ),
            bytes,
          ]),
        )
      })
    })
    const get = (overrides: Partial<HttpRequest>): Promise<unknown> =>
      createHttpClient(USER_AGENT).request({
        method: 'GET',
        url: new URL(url),
        headers: {},
        timeoutMs: 5000,
        maxBodyBytes: 0,
        hashBody: true,
        ...overrides,
      })
    expect(await get({})).toMatchObject({
      status: 200,
      body: '',
      bodySha256: createHash('sha256').update(bytes).digest('hex'),
    })
    expect(await get({ maxBodyBytes: 10, stopAtLimit: true })).not.toHaveProperty('bodySha256')
  })

  test('stopAtLimit: an endless body ends at the limit, cut, with the connection closed', async () => {
    let closed = false
    const { url } = await rawServer((socket) => {
      socket.on('close', () => (closed = true))
      // The client's reset, when it stops reading, is the point.
      socket.on('error', () => undefined)
      socket.once('data', () => {
        socket.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        )
        // A version.json that never ends, as fast as the socket takes it.
        const chunk = `4000\r\n${'{'.repeat(0x4000)}\r\n`
        const more = (): void => {
          while (!socket.destroyed && socket.write(chunk));
          if (!socket.destroyed) socket.once('drain', more)
        }
        more()
      })
    })
    const response = await createHttpClient(USER_AGENT).request({
      method: 'GET',
      url: new URL(url),
      headers: {},
      // Far beyond what the test allows: only the limit can end it.
      timeoutMs: 600_000,
      maxBodyBytes: 64 * 1024,
      stopAtLimit: true,
    })
    expect(response).toMatchObject({ status: 200, bodyTruncated: true })
    expect((response as { body: string }).body).toHaveLength(64 * 1024)
    await until(() => closed)
  })

  test.each<[string, () => Promise<string>, HttpFailure['kind'], string]>([
    [
      'a closed port',
      async () => {
        const { url, server } = await rawServer(() => undefined)
        server.close()
        return url
      },
      'refused',
      'the server refused the connection (ECONNREFUSED)',
    ],
    [
      'an unknown host',
      () => Promise.resolve('http://no-such-host.olympe.invalid/hook'),
      'dns',
      'the host name could not be resolved (ENOTFOUND)',
    ],
    [
      'a reset once the request is sent',
      async () =>
        (await rawServer((socket) => socket.once('data', () => socket.resetAndDestroy()))).url,
      'reset',
      'the connection was closed after the request was sent, before a complete response arrived (ECONNRESET), so the server may have received it',
    ],
    [
      'a close with no answer once the request is sent',
      async () => (await rawServer((socket) => socket.once('data', () => socket.end()))).url,
      'reset',
      'the connection was closed after the request was sent, before a complete response arrived (ECONNRESET), so the server may have received it',
    ],
    [
      'a response cut right after its status line',
      async () =>
        (await rawServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\n'))))
          .url,
      'reset',
      'the connection was closed after the request was sent, before a complete response arrived (ECONNRESET), so the server may have received it',
    ],
    [
      'a response cut after its status line',
      async () =>
        (
          await rawServer((socket) =>
            socket.once('data', () => {
              socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"mess')
              setTimeout(() => socket.destroy(), 50)
            }),
          )
        ).url,
      'partial',
      'the connection was closed in the middle of the response',
    ],
    [
      'no answer at all',
      async () => (await rawServer(() => undefined)).url,
      'timeout',
      'no complete response within the time allowed',
    ],
  ])('%s', async (_name, url, kind, message) => {
    const error = await failure(post(await url(), { timeoutMs: 800 }))
    expect([error.kind, error.message]).toEqual([kind, message])
  })

  test('a TLS handshake that never finishes: tls, within the connect time-out', async () => {
    const { url } = await rawServer(() => undefined)
    const error = await failure(
      post(url.replace('http:', 'https:'), { timeoutMs: 60_000, connectTimeoutMs: 300 }),
    )
    expect([error.kind, error.message]).toEqual([
      'tls',
      'the TLS handshake with the server did not finish in time',
    ])
  })

  test('a refused certificate names NODE_EXTRA_CA_CERTS', async () => {
    const tls = await makeTlsFiles(['127.0.0.1'])
    const server = await startWebhookServer(answer(200), { tls })
    try {
      const error = await failure(post(server.url))
      expect(error.kind).toBe('tls')
      expect(error.message).toMatch(
        /^the server's TLS certificate was refused \([A-Z_]+\); if it is signed by a private certificate authority, give that authority's PEM file in the NODE_EXTRA_CA_CERTS environment variable of the step$/,
      )
      expect(server.requests).toHaveLength(0)
    } finally {
      await server.stop()
      await tls.remove()
    }
  })

  test('one client asks http and https hosts in turn, as the image check and the webhook do', async () => {
    const tls = await makeTlsFiles(['127.0.0.1'])
    const secure = await startWebhookServer(answer(200), { tls })
    const client = createHttpClient(USER_AGENT)
    const head = (url: string): Promise<unknown> =>
      client.request({
        method: 'HEAD',
        url: new URL(url),
        headers: {},
        timeoutMs: 5000,
        maxBodyBytes: 1024,
      })
    try {
      webhook.respondWith(answer(200))
      // The private CA is not trusted here: a TLS failure shows that an https agent was used.
      expect((await failure(head(secure.url))).kind).toBe('tls')
      expect(await head(webhook.url)).toMatchObject({ status: 200, body: '' })
      expect((await failure(head(secure.url))).kind).toBe('tls')
      expect(webhook.requests.map((request) => request.method)).toEqual(['HEAD'])
    } finally {
      await secure.stop()
      await tls.remove()
    }
  })

  describe('behind a proxy', () => {
    let proxy: ConnectProxy
    beforeAll(async () => {
      proxy = await startConnectProxy({
        'silent.olympe.test': 'silent',
        'auth.olympe.test': { status: 407 },
        'webhook.olympe.test': webhook.port,
        [externalAddress()]: webhook.port,
      })
    })
    afterAll(async () => proxy.stop())

    test('HTTP_PROXY: a host that does not resolve here is reached through the tunnel', async () => {
      process.env.HTTP_PROXY = proxy.url
      webhook.respondWith(answer(200))
      const before = proxy.tunnels.length
      const url = `http://webhook.olympe.test:${webhook.port}/hooks/deploy`
      expect(await post(url)).toMatchObject({ status: 200 })
      expect(proxy.tunnels.slice(before)).toEqual([`webhook.olympe.test:${webhook.port}`])
      expect(webhook.requests).toHaveLength(1)
    })

    test('lower-case http_proxy too', async () => {
      process.env.http_proxy = proxy.url
      const before = proxy.tunnels.length
      await post(`http://webhook.olympe.test:${webhook.port}/hooks/deploy`)
      expect(proxy.tunnels.length).toBe(before + 1)
    })

    test('NO_PROXY: a listed host is reached directly', async () => {
      const address = externalAddress()
      const url = `http://${address}:${webhook.port}/hooks/deploy`
      process.env.HTTP_PROXY = proxy.url
      const before = proxy.tunnels.length
      await post(url)
      expect(proxy.tunnels.length).toBe(before + 1)
      process.env.NO_PROXY = `example.com,${address}`
      webhook.respondWith(answer(200))
      expect(await post(url)).toMatchObject({ status: 200 })
      expect(proxy.tunnels.length).toBe(before + 1)
      expect(webhook.requests).toHaveLength(1)
    })

    test('a proxy that never answers CONNECT: a connect time-out, and its socket closed', async () => {
      process.env.HTTP_PROXY = proxy.url
      webhook.respondWith(answer(200))
      const error = await failure(
        post('http://silent.olympe.test/hook', { timeoutMs: 60_000, connectTimeoutMs: 300 }),
      )
      expect([error.kind, error.message]).toEqual([
        'connect-timeout',
        'no connection to the server could be made in time (through the proxy, when one is set)',
      ])
      expect(webhook.requests).toHaveLength(0)
      // The CONNECT request was given up with ours: nothing keeps the step's process alive.
      await until(() => proxy.openClients() === 0)
    })

    test('a proxy that answers CONNECT with 407: its status is kept', async () => {
      process.env.HTTP_PROXY = proxy.url
      const error = await failure(post('http://auth.olympe.test/hook'))
      expect([error.kind, error.proxyStatus]).toEqual(['proxy', 407])
    })

    test('a proxy that opens no tunnel: said, never sent', async () => {
      process.env.HTTP_PROXY = proxy.url
      webhook.respondWith(answer(200))
      const error = await failure(post('http://unrouted.olympe.test/hook'))
      expect([error.kind, error.message]).toEqual([
        'proxy',
        'the proxy (HTTPS_PROXY or HTTP_PROXY) opened no tunnel to the server (it answered 502); check the proxy settings, or list the host in NO_PROXY',
      ])
      expect(webhook.requests).toHaveLength(0)
    })
  })
})
