// What a suite or a helper made and must take away when it ends: the servers it started, the
// projects and folders it created, the files a tool left behind. `beforeAll` registers each thing
// as it comes; the `afterAll` of `useCleanup()` (suite.ts) undoes them all, last first, even when one of them
// fails or `beforeAll` stopped halfway (a server that did not start leaves nothing to stop).
// Every temporary folder of the tests comes from `tempDir`, so each has an owner that removes it.
// Pushed images may stay: every suite's registry is its own and goes with its temporary folder.
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
