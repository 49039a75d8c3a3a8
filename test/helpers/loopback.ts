// How the tests' own HTTP servers listen and stop: on a free port (port 0) of a loopback address,
// and, when stopped, with every open connection cut first, since a kept-alive one would hold
// close() up until the client let it go.
import type { Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface Listening {
  port: number
  /** Cuts the open connections, then closes the server. */
  stop: () => Promise<void>
}

export async function listenOnLoopback(server: Server, address = '127.0.0.1'): Promise<Listening> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, address, resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    stop: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
