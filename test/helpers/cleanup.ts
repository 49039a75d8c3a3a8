// What a suite or a helper made and must take away when it ends: the servers it started, the
// projects and folders it created, the files a tool left behind. `beforeAll` registers each thing
// as it comes; the `afterAll` of `useCleanup()` undoes them all, last first, even when one of them
// fails or `beforeAll` stopped halfway (a server that did not start leaves nothing to stop).
// Every temporary folder of the tests comes from `tempDir`, so each has an owner that removes it.
// Pushed images may stay: every suite's registry is its own and goes with its temporary folder.
import { afterAll, beforeAll } from '@jest/globals'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A server or daemon of the test helpers. */
export interface Stoppable {
  stop(): Promise<unknown>
}

/** A project or folder of the test helpers. */
export interface Removable {
  remove(): Promise<unknown>
}

type Undo = () => unknown

export class Cleanup {
  private readonly undos: { what: string; undo: Undo }[] = []

  /** Runs `undo` at the end; `what` names it when it fails. */
  add(what: string, undo: Undo): void {
    this.undos.push({ what, undo })
  }

  /** Stops (or removes) `thing` at the end, and hands it back. */
  track<T extends Stoppable | Removable>(what: string, thing: T): T {
    this.add(what, () => ('stop' in thing ? thing.stop() : thing.remove()))
    return thing
  }

  /** A new folder under the system's temporary folder, removed at the end. */
  async tempDir(prefix: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), prefix))
    this.add(dir, () => rm(dir, { recursive: true, force: true }))
    return dir
  }

  /**
   * Starts servers at once, by name. Each one that started is stopped at the end, even when
   * another did not start; then one error names each that did not.
   */
  async startAll<T extends Record<string, Stoppable>>(starts: {
    [K in keyof T]: Promise<T[K]>
  }): Promise<T> {
    const names = Object.keys(starts) as (keyof T & string)[]
    const settled = await Promise.allSettled(names.map((name) => starts[name]))
    const started: Partial<T> = {}
    const failures: string[] = []
    settled.forEach((each, index) => {
      const name = names[index] as keyof T & string
      if (each.status === 'fulfilled') started[name] = this.track(name, each.value)
      else failures.push(`${name} did not start: ${message(each.reason)}`)
    })
    if (failures.length > 0) throw new Error(failures.join('\n'))
    return started as T
  }

  /**
   * Undoes everything, last registered first. Every undo runs even when an earlier one failed;
   * then one error names each failure. A second call has nothing left to do.
   */
  async run(): Promise<void> {
    const failures: string[] = []
    for (const { what, undo } of this.undos.splice(0).reverse()) {
      try {
        await undo()
      } catch (error) {
        failures.push(`${what}: ${message(error)}`)
      }
    }
    if (failures.length > 0) throw new Error(`Cleanup failed for ${failures.join('; ')}`)
  }
}

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

/** An object that stands for the one `thing()` returns when it is used. */
function lateBound<T extends object>(thing: () => T): T {
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

/** Runs `body` with a Cleanup of its own, which is run when `body` ends, however it ends. */
export async function withCleanup<T>(body: (cleanup: Cleanup) => Promise<T>): Promise<T> {
  const cleanup = new Cleanup()
  try {
    return await body(cleanup)
  } finally {
    await cleanup.run()
  }
}

/**
 * Starts something that owns what it makes (a server's folder and process): `start` registers
 * them with the Cleanup it is given, which the thing runs in its stop() or remove(). When `start`
 * fails halfway, what it registered so far is undone at once.
 */
export async function startOwning<T>(start: (owned: Cleanup) => Promise<T>): Promise<T> {
  const owned = new Cleanup()
  try {
    return await start(owned)
  } catch (error) {
    await owned.run()
    throw error
  }
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error))
