// How the actions run programs, and why each way (the one place that says so):
// - docker and buildah (build-images), and the one `git rev-parse` that reads a local run's commit
//   and branch (platform/context.ts): @actions/exec, through the Exec port below. It is the
//   runner's own library for a tool's argv and output; loaded on first use, so deploy on GitLab,
//   which runs no tool, never loads it.
// - git for the snapshot's clone, commit and push (tools/git.ts): simple-git, a typed client of
//   git whose errors do not keep the environment the token travels in (never argv).
// - the platform's toolkit (tools/toolkit-runner.ts): a process group of its own, with the
//   processes that leave it tracked, since the toolkit (npx, olympe, node snapshooter.js) starts
//   children that hold DRAW_PASSWORD. @actions/exec can neither start a program in a group of its
//   own nor hand back its pid.
import { CancelledError } from '../core/shared/errors.js'
import type { Exec, ExecOptions } from '../core/shared/exec.js'
import { cancelSignalName, type StepCancellation } from './cancel.js'
import { lineSplitter } from './lines.js'
import { descendantsOf, endDescendants, signalProcess } from './process-tree.js'

/**
 * Runs a tool from an argv array (never a shell string) through @actions/exec, silenced so that
 * neither the command line nor the output reaches the log unredacted: every line goes to
 * `onLine`, which feeds the logger and its redactor. Lines are cut from the raw chunks here
 * because @actions/exec drops a last line that has no line break from its line listeners. When
 * the step is cancelled, the tool is stopped with everything it started (the docker command runs
 * its buildx plugin as a child, and a build left running would go on after the step): found
 * through /proc as this process's descendants, since @actions/exec does not give its child out.
 * A tool stopped so rejects with CancelledError.
 */
export function createExec(cancel?: StepCancellation): Exec {
  return async (command, args, options: ExecOptions = {}) => {
    if (cancel?.signal.aborted) throw new CancelledError(cancelSignalName(cancel))
    const { onLine } = options
    const out = lineSplitter({
      keepText: true,
      onLine: onLine && ((line) => onLine(line, 'stdout')),
    })
    const err = lineSplitter({
      keepText: true,
      onLine: onLine && ((line) => onLine(line, 'stderr')),
    })
    // Loaded on first use: deploy on GitLab never runs a tool, and should not load it.
    const { exec: runTool } = await import('@actions/exec')
    const stop = (): void => void endDescendants()
    cancel?.signal.addEventListener('abort', stop, { once: true })
    const forget = cancel?.atExit(() => {
      for (const entry of descendantsOf(process.pid)) signalProcess(entry.pid, 'SIGKILL')
    })
    try {
      // Typed as a number, but null when a signal killed the tool.
      const code = (await runTool(command, [...args], {
        cwd: options.cwd,
        env: { ...process.env, ...options.env } as Record<string, string>,
        // Only for tools that read it (docker login --password-stdin): @actions/exec writes it
        // with no guard, so a tool that exits without reading its stdin would fail with EPIPE.
        input: options.input === undefined ? undefined : Buffer.from(options.input),
        silent: true,
        ignoreReturnCode: true,
        listeners: { stdout: out.push, stderr: err.push },
      })) as number | null
      if (cancel?.signal.aborted) throw new CancelledError(cancelSignalName(cancel))
      return { code: code ?? 1, stdout: out.end(), stderr: err.end() }
    } finally {
      cancel?.signal.removeEventListener('abort', stop)
      forget?.()
    }
  }
}

/** For tools run outside a step's cancellation (the run's git facts, before the step starts). */
export const exec: Exec = createExec()
