import { CancelledError } from '../core/shared/errors.js'
import type { Exec, ExecOptions } from '../core/shared/exec.js'
import type { StepCancellation } from './cancel.js'
import { lineSplitter } from './lines.js'
import { runGroup } from './process-group.js'

/**
 * Runs a tool from an argv array (never a shell string), its output kept out of the log: every
 * line goes to `onLine`, which feeds the logger and its redactor. The tool runs in a process
 * group of its own (see process-group.ts), so that a cancelled step stops it with what it
 * started: the docker command runs its buildx plugin as a child, and a build left running would
 * go on after the step. A tool stopped so rejects with CancelledError.
 */
export function createExec(cancel?: StepCancellation): Exec {
  return async (command, args, options: ExecOptions = {}) => {
    const { onLine } = options
    const out = lineSplitter({
      keepText: true,
      onLine: onLine && ((line) => onLine(line, 'stdout')),
    })
    const err = lineSplitter({
      keepText: true,
      onLine: onLine && ((line) => onLine(line, 'stderr')),
    })
    const exit = await runGroup(command, args, {
      cwd: options.cwd,
      env: options.env,
      // Only for tools that read it (docker login --password-stdin).
      input: options.input,
      onStdout: out.push,
      onStderr: err.push,
      cancel,
    })
    const result = { code: exit.code, stdout: out.end(), stderr: err.end() }
    if (exit.stopped?.reason === 'cancelled') throw new CancelledError(exit.stopped.signal)
    return result
  }
}

/** For tools run outside a step's cancellation (the run's git facts, before the step starts). */
export const exec: Exec = createExec()
