// One command of a builder's command line (docker, buildah), run the same way for both: its output
// streamed line by line, its last lines kept for the error a failure throws.
import { BuilderCommandError } from '../core/build-images/ports.js'
import { CancelledError, errorMessage } from '../core/shared/errors.js'
import { commandLine, type Exec, type ExecResult } from '../core/shared/exec.js'

/** Lines of output kept for an error message: enough for a failing RUN step and its cause. */
const TAIL_LINES = 30

export interface BuilderCommandOptions {
  input?: string
  /** Added to this command's environment only: the values of the build's secrets. */
  env?: Record<string, string>
  onLine?: (line: string) => void
  /** Print the command line to onLine first. */
  echo?: boolean
}

/**
 * Runs `tool argv` with `env` (the builder's own) and what `options` add; a command that cannot
 * start or exits non-zero throws BuilderCommandError, named `command` (`docker push`), with the
 * last lines it printed. A cancel goes through as it is.
 */
export async function runBuilderCommand(
  exec: Exec,
  tool: 'docker' | 'buildah',
  command: string,
  argv: string[],
  env: Record<string, string> | undefined,
  options: BuilderCommandOptions = {},
): Promise<ExecResult> {
  if (options.echo) options.onLine?.(`$ ${commandLine(tool, argv)}`)
  const tail: string[] = []
  let result: ExecResult
  try {
    result = await exec(tool, argv, {
      env: { ...env, ...options.env },
      input: options.input,
      onLine: (line) => {
        tail.push(line)
        if (tail.length > TAIL_LINES) tail.shift()
        options.onLine?.(line)
      },
    })
  } catch (error) {
    if (error instanceof CancelledError) throw error
    throw new BuilderCommandError(command, `could not start (${errorMessage(error)})`, [])
  }
  if (result.code !== 0) throw new BuilderCommandError(command, `exited with ${result.code}`, tail)
  return result
}
