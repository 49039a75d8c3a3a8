import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

/**
 * A TCP proxy on loopback that plays "the network went away": it forwards traffic to a real
 * server until a client request matches `cutWhen`, then forwards only the first bytes of that
 * request and drops both connections, as a dying link or a restarted server would. With
 * `hold`, it keeps that connection open instead and forwards nothing of it, as a server that
 * stops answering does.
 */
export interface CuttingProxy {
  host: string
  /** How many connections were cut (or held). */
  cuts: () => number
  stop: () => Promise<void>
}

export async function startCuttingProxy(
  target: { host: string; port: number },
  cutWhen: RegExp,
  options: { hold?: boolean } = {},
): Promise<CuttingProxy> {
  const sockets = new Set<Socket>()
  let cuts = 0
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => socket.destroy())
    }
    let held = false
    client.on('data', (chunk: Buffer) => {
      if (held) return
      if (cutWhen.test(chunk.toString('latin1'))) {
        cuts++
        if (options.hold) {
          held = true
          return
        }
        upstream.write(chunk.subarray(0, Math.min(chunk.length, 512)))
        client.destroy()
        upstream.destroy()
        return
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => client.write(chunk))
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    host: `127.0.0.1:${port}`,
    cuts: () => cuts,
    stop: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
