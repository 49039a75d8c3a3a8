// What the two builders' adapters (docker.ts, buildah.ts) do alike: one command of their command
// line run (its output streamed line by line, its last lines kept for the error a failure throws),
// their versions asked once, and an image read from their store, pulled first when it is not there.
import {
  BuilderCommandError,
  type BuilderName,
  type ImageBuilder,
} from '../core/build-images/builders/image-builder.js'
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
  tool: BuilderName,
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

type Versions = Awaited<ReturnType<ImageBuilder['versions']>>

/**
 * The builder's `versions()`: `tool argv` asked when first wanted (or what the `builder: auto`
 * choice already heard, when it `answered`), its result as `read` reads it, then kept; with
 * `askAgain`, an answer that is no answer is asked again next time.
 */
export function versionsOnce(
  exec: Exec,
  tool: BuilderName,
  argv: string[],
  env: Record<string, string> | undefined,
  how: {
    known?: Versions
    answered: (versions: Versions) => boolean
    read: (result: ExecResult, said: string) => Versions
    askAgain: boolean
  },
): () => Promise<Versions> {
  const ask = async (): Promise<Versions> => {
    let result: ExecResult
    try {
      result = await exec(tool, argv, { env })
    } catch (error) {
      return { problem: `the ${tool} command could not start (${errorMessage(error)})` }
    }
    return how.read(result, result.stderr.trim().split('\n').slice(-3).join(' '))
  }
  let versions = how.known && how.answered(how.known) ? Promise.resolve(how.known) : undefined
  return async () => {
    versions ??= ask()
    const answer = await versions
    if (how.askAgain && !how.answered(answer)) versions = undefined
    return answer
  }
}

/**
 * What `read` finds of an image in the builder's store; when the store does not hold it (the
 * builder's words for that, `notHeld`), it is pulled and read again.
 */
export async function readPulling<T>(
  read: () => Promise<T>,
  pull: () => Promise<unknown>,
  notHeld: (output: string) => boolean,
): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (!(error instanceof BuilderCommandError && notHeld(error.tail.join('\n')))) throw error
  }
  await pull()
  return read()
}
