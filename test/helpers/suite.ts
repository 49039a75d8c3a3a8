// What a test file (or a `describe`) sets up around its tests through jest's hooks: its Cleanup,
// run after the tests, and the servers it starts before them. Kept apart from cleanup.ts, which
// the helpers' self-checks (*.check.ts) load outside jest.
import { afterAll, beforeAll } from '@jest/globals'
import { deploys, startAppServer, type AppServer } from './app-server.js'
import { Cleanup, type Stoppable } from './cleanup.js'
import { startConnectProxy, type ConnectProxy } from './connect-proxy.js'
import { makeTlsFiles, type TlsFiles } from './tls-certificates.js'
import { answer, startWebhookServer, type WebhookServer } from './webhook-server.js'

/**
 * The Cleanup of a suite (or of a `describe`, when called inside one): run after its tests, with
 * `timeoutMs` for the undoing (stopping a registry, removing pushed images) when jest's default
 * is too short.
 */
export function useCleanup(timeoutMs?: number): Cleanup {
  const cleanup = new Cleanup()
  afterAll(() => cleanup.run(), timeoutMs)
  return cleanup
}

/**
 * The servers (or any Stoppables) of a suite, by name: started at once in a `beforeAll` (with
 * `timeoutMs` when jest's default is too short), stopped with `cleanup` after the tests. Each
 * value handed back reads the started thing, so the tests use it as they would the thing itself;
 * before the `beforeAll` has run, any use of it throws.
 */
export function useServers<T extends Record<string, Stoppable>>(
  starts: { [K in keyof T]: () => Promise<T[K]> },
  cleanup: Cleanup = useCleanup(),
  timeoutMs?: number,
): T {
  let started: T | undefined
  beforeAll(async () => {
    const names = Object.keys(starts) as (keyof T)[]
    started = await cleanup.startAll(
      Object.fromEntries(names.map((name) => [name, starts[name]()])) as {
        [K in keyof T]: Promise<T[K]>
      },
    )
  }, timeoutMs)
  const one = <K extends keyof T>(name: K): T[K] => {
    if (started === undefined)
      throw new Error(`The ${String(name)} is used before its beforeAll started it.`)
    return started[name]
  }
  const names = Object.keys(starts) as (keyof T & string)[]
  return Object.fromEntries(names.map((name) => [name, lateBound(() => one(name))])) as unknown as T
}

/** One server of a suite, as `useServers` starts them. */
export function useStarted<T extends Stoppable>(
  what: string,
  start: () => Promise<T>,
  cleanup: Cleanup = useCleanup(),
  timeoutMs?: number,
): T {
  return useServers({ [what]: start }, cleanup, timeoutMs)[what] as T
}

/**
 * An app on loopback and the platform's webhook (at `hookPath`) that deploys it, for a suite:
 * both started before its tests and stopped with `cleanup` after them.
 */
export function useDeployedApp(options: { hookPath?: string; cleanup?: Cleanup } = {}): {
  app: AppServer
  webhook: WebhookServer
} {
  const { hookPath, cleanup = useCleanup() } = options
  const app = useStarted('app', startAppServer, cleanup)
  const webhook = useStarted('webhook', () => startWebhookServer(deploys(app), hookPath), cleanup)
  return { app, webhook }
}

/** A company's network, as `useCorporateNetwork` starts it for a suite. */
export interface CorporateNetwork {
  /** The private authority and the webhook's certificate: `tls.caFile` is NODE_EXTRA_CA_CERTS. */
  readonly tls: TlsFiles
  readonly webhook: WebhookServer
  readonly proxy: ConnectProxy
  /** The webhook's URL under `host` (the name only the proxy resolves, by default). */
  readonly hookUrl: (host?: string) => string
}

/**
 * A corporate network for a suite: the platform's webhook at `hookPath`, whose certificate (for
 * `host` and `alsoNamed`) the company's own authority signed, and a CONNECT proxy, the only way to
 * `host`, which resolves on the proxy's side alone. Started before the tests, stopped with
 * `cleanup` after them.
 */
export function useCorporateNetwork(options: {
  host: string
  hookPath: string
  alsoNamed?: readonly string[]
  /** The webhook's listening address, when the proxy is not its only client (default loopback). */
  listen?: string
  cleanup?: Cleanup
}): CorporateNetwork {
  const { host, hookPath, alsoNamed = [], cleanup = useCleanup() } = options
  type Started = Omit<CorporateNetwork, 'hookUrl'>
  let started: Started | undefined
  beforeAll(async () => {
    const tls = cleanup.track('certificates', await makeTlsFiles([host, ...alsoNamed]))
    const listening = options.listen === undefined ? {} : { listen: options.listen }
    const webhook = cleanup.track(
      'webhook',
      await startWebhookServer(answer(200), { path: hookPath, tls, ...listening }),
    )
    const proxy = cleanup.track('proxy', await startConnectProxy({ [host]: webhook.port }))
    started = { tls, webhook, proxy }
  })
  const one = <K extends keyof Started>(name: K): Started[K] =>
    lateBound(() => {
      if (started === undefined)
        throw new Error(`The ${name} is used before its beforeAll started it.`)
      return started[name]
    })
  const webhook = one('webhook')
  return {
    tls: one('tls'),
    webhook,
    proxy: one('proxy'),
    hookUrl: (name = host) => `https://${name}:${webhook.port}${hookPath}`,
  }
}

/**
 * An object that stands for the one `thing()` returns when it is used: what a suite's helper hands
 * back for a thing its `beforeAll` has yet to start.
 */
export function lateBound<T extends object>(thing: () => T): T {
  return new Proxy({} as T, {
    get: (_target, key) => {
      const value: unknown = Reflect.get(thing(), key)
      return typeof value === 'function' ? (value as () => unknown).bind(thing()) : value
    },
    set: (_target, key, value) => Reflect.set(thing(), key, value),
    has: (_target, key) => Reflect.has(thing(), key),
    ownKeys: () => Reflect.ownKeys(thing()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(thing(), key)
      return descriptor && { ...descriptor, configurable: true }
    },
  })
}
