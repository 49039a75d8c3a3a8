import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { networkInterfaces } from 'node:os'

export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`: the value of HTTPS_PROXY / HTTP_PROXY. */
  url: string
  /** Every CONNECT target asked for, `host:port`, in order. */
  tunnels: string[]
  /** How many client connections are still open (a request given up must close its own). */
  openClients(): number
  stop(): Promise<void>
}

/** Where the proxy sends a host: a loopback port, a status it answers CONNECT with, or silence. */
export type Route = number | { status: number } | 'silent'

/**
 * A CONNECT proxy on loopback, as corporate networks have. `routes` maps a host name that does
 * not resolve (`webhook.olympe.test`) to a loopback port, so a request that arrives proves it
 * went through the proxy; an unknown host is answered 502, as a real proxy does. A host can
 * also be answered with another status (407), or never answered at all ('silent': no tunnel,
 * and so no connection to the server, is ever made).
 */
export async function startConnectProxy(routes: Record<string, Route> = {}): Promise<ConnectProxy> {
  const tunnels: string[] = []
  const sockets = new Set<Socket>()
  const clients = new Set<Socket>()
  const server: Server = createServer((_req, res) => {
    res.writeHead(405).end('only CONNECT')
  })
  server.on('connect', (req, client: Socket) => {
    const target = req.url ?? ''
    tunnels.push(target)
    const host = target.slice(0, target.lastIndexOf(':'))
    const routed = routes[host] ?? { status: 502 }
    sockets.add(client)
    clients.add(client)
    client.on('error', () => undefined)
    client.on('close', () => {
      sockets.delete(client)
      clients.delete(client)
    })
    // The server keeps a CONNECT socket half-open: close it when the client closes its side.
    if (routed === 'silent') {
      client.on('end', () => client.destroy())
      return
    }
    if (typeof routed !== 'number') {
      client.end(`HTTP/1.1 ${routed.status} Refused\r\n\r\n`)
      return
    }
    const upstream = connect(routed, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.pipe(client)
      client.pipe(upstream)
    })
    sockets.add(upstream)
    upstream.on('error', () => undefined)
    upstream.on('close', () => sockets.delete(upstream))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    openClients: () => clients.size,
    stop: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * This machine's first address that is not loopback: a host that no proxy library bypasses by
 * itself (they all bypass loopback), for the NO_PROXY cases.
 */
export function externalAddress(): string {
  for (const addresses of Object.values(networkInterfaces()))
    for (const address of addresses ?? [])
      if (address.family === 'IPv4' && !address.internal) return address.address
  throw new Error('this machine has no non-loopback IPv4 address')
}
