// What an end-to-end suite made and must take away when it ends: the servers it started, the
// projects and folders it created, the files a tool left behind. `beforeAll` registers each thing
// as it comes, `afterAll(() => cleanup.run())` undoes them all, last first, even when one of them
// fails or `beforeAll` stopped halfway (a server that did not start leaves nothing to stop).
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

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error))
