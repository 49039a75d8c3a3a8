import { CancelledError } from '../core/shared/errors.js'
import type { CancelReport } from '../core/shared/ports.js'

/**
 * One step's cancellation. The platform cancels it when SIGINT (the GitHub runner) or SIGTERM
 * (GitLab) reaches the process; the tools that start processes stop them when `signal` aborts,
 * and every tool that leaves something behind until it is done (a process group, a folder holding
 * a registry login) registers how to undo it at once with `atExit`. The step's own code undoes
 * those things as it unwinds; `runAtExit` is for when it cannot wait for that: a second signal,
 * or code that does not stop in time.
 */
export class StepCancellation {
  readonly #controller = new AbortController()
  readonly #undo = new Set<() => void>()
  #report: (() => CancelReport) | undefined

  /** Aborted, with a CancelledError as its reason, when the step is cancelled. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** The name of the signal that cancelled the step, once it is cancelled. */
  get cause(): string | undefined {
    const reason: unknown = this.#controller.signal.reason
    return reason instanceof CancelledError ? reason.signal : undefined
  }

  cancel(signal: string): void {
    if (!this.signal.aborted) this.#controller.abort(new CancelledError(signal))
  }

  /** Registers a synchronous undo; returns the function that forgets it once undone normally. */
  atExit(undo: () => void): () => void {
    this.#undo.add(undo)
    return () => {
      this.#undo.delete(undo)
    }
  }

  /**
   * What the step would say if it were cancelled now (how far it got), and the outputs it would
   * write: set by the code that knows, again each time that changes.
   */
  reportWith(report: () => CancelReport): void {
    this.#report = report
  }

  /** The last report set with reportWith, if any. */
  report(): CancelReport | undefined {
    return this.#report?.()
  }

  /** Whether something registered is still running or still on disk. */
  get busy(): boolean {
    return this.#undo.size > 0
  }

  /** Runs every registered undo now, each once, whatever the others do. */
  runAtExit(): void {
    for (const undo of [...this.#undo]) {
      this.#undo.delete(undo)
      try {
        undo()
      } catch {
        // Best effort: the process is about to exit, and the next undo matters as much.
      }
    }
  }
}

/** The reason a cancelled step gives its children, as `ToolkitStop` names it. */
export function cancelSignalName(cancel: StepCancellation): string {
  return cancel.cause ?? 'SIGTERM'
}
