import {
  describeInputs,
  inputEnvName,
  withDefaults,
  secretInputs,
  type ActionDefinition,
  type RawInputs,
} from '../core/definition.js'
import { ActionError, InputError, errorMessage } from '../core/shared/errors.js'
import type { Logger, Reporter } from '../core/shared/ports.js'
import { usage } from './cli-args.js'
import { createCliRuntime } from './cli.js'
import { detectContext, type CiContext } from './context.js'
import { createGithubRuntime } from './github.js'
import type { Runtime } from './runtime.js'

/** What an action's run function gets from the platform. */
export interface ActionTools {
  logger: Logger
  reporter: Reporter
  context: CiContext
  redact: (text: string) => string
  registerSecret: (value: string) => void
}

export interface Action<I extends string> {
  definition: ActionDefinition<I>
  /** Values derived from inputs that must be masked as well (a token inside a URL…). */
  derivedSecrets?: (raw: RawInputs<I>) => string[]
  run: (raw: RawInputs<I>, tools: ActionTools) => Promise<void>
}

/** The bin script sets this so that the command line behaves the same inside a GitHub job. */
export const CLI_MARKER = 'OLYMPE_DEPLOY_CLI'

/**
 * The one place an action starts: pick the platform, register secrets before anything is
 * printed, fill defaults, run, and turn any failure into one clear message and exit code 1.
 */
export async function runAction<I extends string>(action: Action<I>): Promise<void> {
  const env = process.env
  const context = detectContext(env, process.cwd())
  let runtime: Runtime
  try {
    runtime =
      env.GITHUB_ACTIONS === 'true' && env[CLI_MARKER] !== '1'
        ? createGithubRuntime(env, context)
        : createCliRuntime(action.definition, env, process.argv.slice(2), context)
  } catch (error) {
    process.stderr.write(`Error: ${errorMessage(error)}\n`)
    process.exitCode = 1
    return
  }
  if (runtime.cliArgs?.options.help) {
    process.stdout.write(`${usage(action.definition)}\n`)
    return
  }
  const given = runtime.readInputs(action.definition)
  for (const name of secretInputs(action.definition)) runtime.registerSecret(given[name] ?? '')
  for (const name of runtime.cliArgs?.secretFlags ?? []) {
    runtime.logger.warning(
      `The secret '${name}' was given as a flag, which process lists and job logs can show: prefer the ${inputEnvName(name)} environment variable.`,
    )
  }
  const raw = withDefaults(action.definition, given)
  for (const secret of action.derivedSecrets?.(raw) ?? []) runtime.registerSecret(secret)

  await runtime.logger.group('Inputs', () => {
    runtime.logger.info(describeInputs(action.definition, raw))
    return Promise.resolve()
  })
  try {
    await action.run(raw, {
      logger: runtime.logger,
      reporter: runtime.reporter,
      context,
      redact: (text) => runtime.redactor.redact(text),
      registerSecret: (value) => runtime.registerSecret(value),
    })
  } catch (error) {
    report(runtime.logger, action.definition.id, error)
    // The job page shows summaries first: say there too why the step failed.
    if (runtime.kind === 'github') {
      await runtime.reporter.summary({
        heading: `olympe ${action.definition.id} failed`,
        rows: [['Reason', errorMessage(error)]],
      })
    }
    process.exitCode = 1
  }
}

function report(logger: Logger, actionId: string, error: unknown): void {
  if (error instanceof InputError) {
    logger.error(error.message, { title: `olympe ${actionId}: invalid input '${error.input}'` })
  } else if (error instanceof ActionError) {
    logger.error(error.message, { title: `olympe ${actionId} failed` })
  } else {
    logger.error(`Unexpected failure: ${errorMessage(error)}`, {
      title: `olympe ${actionId} failed`,
    })
    if (error instanceof Error && error.stack) logger.debug(error.stack)
  }
}
