import type { Exec, ExecOptions } from '../core/shared/exec.js'
import { lineSplitter } from './lines.js'

/**
 * Runs a tool from an argv array (never a shell string) through @actions/exec, silenced so that
 * neither the command line nor the output reaches the log unredacted: every line goes to
 * `onLine`, which feeds the logger and its redactor. Lines are cut from the raw chunks here
 * because @actions/exec drops a last line that has no line break from its line listeners.
 */
export const exec: Exec = async (command, args, options: ExecOptions = {}) => {
  const { onLine } = options
  const out = lineSplitter({ keepText: true, onLine: onLine && ((line) => onLine(line, 'stdout')) })
  const err = lineSplitter({ keepText: true, onLine: onLine && ((line) => onLine(line, 'stderr')) })
  // Loaded on first use: deploy on GitLab never runs a tool, and should not load it.
  const { exec: runTool } = await import('@actions/exec')
  // Typed as a number, but null when a signal killed the tool.
  const code = (await runTool(command, [...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env } as Record<string, string>,
    // Only for tools that read it (docker login --password-stdin): @actions/exec writes it with
    // no guard, so a tool that exits without reading its stdin would fail the step with EPIPE.
    input: options.input === undefined ? undefined : Buffer.from(options.input),
    silent: true,
    ignoreReturnCode: true,
    listeners: { stdout: out.push, stderr: err.push },
  })) as number | null
  return { code: code ?? 1, stdout: out.end(), stderr: err.end() }
}
