import { inputEnvNames, inputNames, type ActionDefinition } from '../core/definition.js'
import type { Env } from '../core/shared/env.js'
import type { Redactor } from '../core/shared/redactor.js'
import type { Logger, Reporter } from '../core/shared/ports.js'
import type { CliArgs } from './cli-args.js'

/** Everything that differs between the GitHub runner and a CLI / GitLab job. */
export interface Runtime {
  readonly kind: 'github' | 'cli'
  readonly redactor: Redactor
  readonly logger: Logger
  readonly reporter: Reporter
  /** Present on the command line only: options such as --help and which secrets came as flags. */
  readonly cliArgs?: CliArgs<string>
  /** The inputs as given, before defaults. */
  readInputs<I extends string>(definition: ActionDefinition<I>): Partial<Record<I, string>>
  /** Masks a value in everything printed from now on (and on GitHub, in the runner's log too). */
  registerSecret(value: string): void
}

/** Each input from either of its environment variables (see inputEnvNames). */
export function inputsFromEnv<I extends string>(
  definition: ActionDefinition<I>,
  env: Env,
): Partial<Record<I, string>> {
  const given: Partial<Record<I, string>> = {}
  for (const name of inputNames(definition)) {
    const [hyphenated, underscored] = inputEnvNames(name)
    const value = env[hyphenated] ?? env[underscored]
    if (value !== undefined) given[name] = value
  }
  return given
}
