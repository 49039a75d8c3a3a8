import {
  describeInputs,
  inputEnvName,
  withDefaults,
  type ActionDefinition,
  type RawInputs,
} from '../core/definition.js'
import type { CiContext } from '../core/shared/context.js'
import { ActionError, InputError, errorMessage } from '../core/shared/errors.js'
import type { CommonPorts } from '../core/shared/ports.js'
import { MIN_SECRET_LENGTH, actionSecrets, shortSecretInputs } from '../core/shared/secrets.js'
import type { Runtime } from './runtime.js'
import { startPlatform, type Invocation, type Started } from './start.js'

/** What the platform gives an action; it adds the ports of its own tools. */
export type PlatformPorts = Pick<CommonPorts, 'logger' | 'reporter' | 'redact' | 'registerSecret'>

/** Every action has the common `check-only` input (see CHECK_ONLY). */
export interface Action<I extends string, T extends { checkOnly: boolean }> {
  definition: ActionDefinition<I>
  /** Values derived from the inputs that can leak on their own (see actionSecrets). */
  derivedSecrets?: (raw: RawInputs<I>) => string[]
  /** The typed inputs, or an InputError naming each problem; nothing else happens here. */
  parse: (raw: RawInputs<I>, context: CiContext) => T | Promise<T>
  run: (inputs: T, context: CiContext, platform: PlatformPorts) => Promise<void>
}

/**
 * The one place an action starts: pick the platform, register secrets before anything is
 * printed, fill defaults, run, and turn any failure into one clear message and exit code 1.
 */
export async function runAction<I extends string, T extends { checkOnly: boolean }>(
  action: Action<I, T>,
  invocation: Invocation = {},
): Promise<void> {
  const { definition } = action
  let started: Started | undefined
  try {
    started = await startPlatform(definition, invocation, process.env, process.cwd())
  } catch (error) {
    process.stderr.write(`Error: ${errorMessage(error)}\n`)
    process.exitCode = 1
    return
  }
  if (!started) return
  const { runtime, context } = started
  const raw = withDefaults(definition, runtime.readInputs(definition))
  for (const secret of actionSecrets(definition, raw, action.derivedSecrets?.(raw)))
    runtime.registerSecret(secret)
  for (const name of shortSecretInputs(definition, raw))
    runtime.logger.warning(shortSecretWarning(name, runtime.kind))
  for (const name of runtime.cliArgs?.secretFlags ?? []) {
    runtime.logger.warning(
      `The secret '${name}' was given as a flag, which process lists and job logs can show: prefer the ${inputEnvName(name)} environment variable.`,
    )
  }
  await runtime.logger.group('Inputs', () => {
    runtime.logger.info(describeInputs(definition, raw))
    return Promise.resolve()
  })
  try {
    const inputs = await action.parse(raw, context)
    if (inputs.checkOnly) {
      runtime.logger.info(CHECKED)
      return
    }
    await action.run(inputs, context, {
      logger: runtime.logger,
      reporter: runtime.reporter,
      redact: (text) => runtime.redactor.redact(text),
      registerSecret: (value) => runtime.registerSecret(value),
    })
  } catch (error) {
    await reportFailure(runtime, definition.id, error)
  }
}

const CHECKED = "The inputs are valid. Nothing else was done: 'check-only' is true."

/** An error annotation with a title that names the failed input, exit code 1, and the summary. */
async function reportFailure(runtime: Runtime, actionId: string, error: unknown): Promise<void> {
  runtime.logger.error(failureMessage(error), { title: failureTitle(actionId, error) })
  process.exitCode = 1
  if (!isExpected(error) && error instanceof Error && error.stack) runtime.logger.debug(error.stack)
  // The job page shows summaries first: say there too why the step failed.
  if (runtime.kind === 'github') {
    await runtime.reporter.summary({
      heading: `olympe ${actionId} failed`,
      rows: [['Reason', errorMessage(error)]],
    })
  }
}

/**
 * A short secret cannot be masked everywhere without hiding ordinary text. On GitHub the runner
 * decides and masks it everywhere all the same; on the command line (GitLab has no masking of
 * its own) we mask it only where it stands alone, and say so.
 */
function shortSecretWarning(name: string, kind: Runtime['kind']): string {
  const masking =
    kind === 'github'
      ? 'The runner masks it all the same, wherever those characters appear, even inside other words'
      : 'It is masked only where it stands alone, not inside longer words'
  return `The secret '${name}' has fewer than ${MIN_SECRET_LENGTH} characters: too short to mask without hiding ordinary text. ${masking}. Use a longer, generated value.`
}

/** A failure we described for the user, as opposed to a bug that needs its stack trace. */
function isExpected(error: unknown): error is ActionError | InputError {
  return error instanceof ActionError || error instanceof InputError
}

function failureMessage(error: unknown): string {
  return isExpected(error) ? error.message : `Unexpected failure: ${errorMessage(error)}`
}

function failureTitle(actionId: string, error: unknown): string {
  return error instanceof InputError
    ? `olympe ${actionId}: invalid input '${error.input}'`
    : `olympe ${actionId} failed`
}
