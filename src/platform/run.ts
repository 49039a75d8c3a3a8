import {
  describeInputs,
  inputEnvName,
  isWholeSecret,
  withDefaults,
  type ActionDefinition,
  type RawInputs,
} from '../core/definition.js'
import type { CiContext } from '../core/shared/context.js'
import { ActionError, CancelledError, InputError, errorMessage } from '../core/shared/errors.js'
import { EXIT_CODES } from '../core/shared/exit-codes.js'
import { inputSecrets, secretsIn } from '../core/shared/input-secrets.js'
import type { CommonPorts } from '../core/shared/ports.js'
import { MIN_SECRET_LENGTH, shortSecretInputs } from '../core/shared/secrets.js'
import { StepCancellation } from '../tools/cancel.js'
import type { Runtime } from './runtime.js'
import { startPlatform, type Invocation, type Started } from './start.js'

/** What the platform gives an action; it adds the ports of its own tools. */
export type PlatformPorts = Pick<
  CommonPorts,
  'logger' | 'reporter' | 'redact' | 'registerSecret'
> & {
  /** The step's cancellation: the tools stop their processes on it and register what to undo. */
  cancel: StepCancellation
  /** The step is done, but not shown live (see StepEnd): it ends in the platform's warning state. */
  notLive: (headline: string) => void
}

/** What the check phase may use of the platform; the action adds its Files port and clock. */
export type CheckPhasePorts = Pick<PlatformPorts, 'logger' | 'redact' | 'registerSecret'>

/** What every check phase returns: the typed inputs, with the common `check-only` (CHECK_ONLY). */
export interface Checked {
  inputs: { checkOnly: boolean }
}

export interface Action<I extends string, C extends Checked> {
  /** Its inputs, each with what of it is secret (see InputSpec.secret). */
  definition: ActionDefinition<I>
  /**
   * The check phase, the one place where a run's inputs are read: each input parsed, and each
   * file they name that exists before the run (the payload file, the snapshot configuration, the
   * Dockerfiles) read and validated. A problem is an InputError or an ActionError that names it.
   * It reads and prints, nothing else: no request, no process, no write. `check-only` stops after
   * it; a run gets what it found, and reads none of it again.
   */
  check: (raw: RawInputs<I>, context: CiContext, platform: CheckPhasePorts) => Promise<C>
  run: (checked: C, context: CiContext, platform: PlatformPorts) => Promise<void>
  /** The outputs the check phase alone gives, set by `check-only` too (the run sets them again). */
  checkedOutputs?: (checked: C) => Record<string, string>
  /**
   * What a cancelled step says besides that it stopped (what stays done, what was removed), unless
   * its code said how far it got (see StepCancellation.reportWith).
   */
  cancelNote?: (checked: C | undefined) => string | undefined
}

/**
 * A flag shows in process lists and job logs: one warning for each flag that holds what its
 * input's specification says is secret (the whole of a secret input, a URL's credentials…).
 */
function secretFlagWarnings<I extends string>(
  definition: ActionDefinition<I>,
  raw: RawInputs<I>,
  flags: readonly string[],
): string[] {
  const inputs = flags.filter((name): name is I => Object.hasOwn(definition.inputs, name))
  return inputs.flatMap((name) => {
    const spec = definition.inputs[name]
    if (spec.secret === undefined || secretsIn(spec, raw[name], raw).length === 0) return []
    const what =
      spec.secret === true || isWholeSecret(spec)
        ? `The secret '${name}' was given as a flag`
        : `'${name}' was given as a flag that holds ${spec.secret.said}`
    return [
      `${what}, which process lists and job logs can show: prefer the ${inputEnvName(name)} environment variable.`,
    ]
  })
}

/** SIGINT is what the GitHub runner sends on cancel (SIGTERM 7.5 s later); GitLab sends SIGTERM. */
const CANCEL_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']
/**
 * How long a cancelled step's own code may take to stop its processes (3 s between SIGTERM and
 * SIGKILL, and a look that they are gone) and remove its files, before the platform does what is
 * left at once and exits: within the 7.5 s the GitHub runner waits before SIGTERM.
 */
const UNWIND_MS = 6500

/**
 * The one place an action starts: pick the platform, register secrets before anything is
 * printed, say the platform, fill defaults, check, run, and turn any failure into one clear
 * message and exit code 1.
 */
export async function runAction<I extends string, C extends Checked>(
  action: Action<I, C>,
  invocation: Invocation = {},
): Promise<void> {
  const { definition } = action
  let started: Started | undefined
  try {
    started = await startPlatform(definition, invocation, process.env, process.cwd())
  } catch (error) {
    process.stderr.write(`Error: ${errorMessage(error)}\n`)
    process.exitCode = EXIT_CODES.failure
    return
  }
  if (!started) return
  const { runtime, context } = started
  const cancel = new StepCancellation()
  let checked: C | undefined
  const cancelled = (): string | undefined => {
    const report = cancel.report()
    if (!report) return action.cancelNote?.(checked)
    writeOutputs(runtime, report.outputs)
    return report.note
  }
  const stopListening = listenForCancel(cancel, (signal) => {
    // The step's code did not unwind in time, or a second signal came: say it here, then exit.
    runtime.logger.error(cancelMessage(signal, cancelled()), {
      title: `olympe ${definition.id} cancelled`,
    })
  })
  const raw = withDefaults(definition, runtime.readInputs(definition))
  for (const secret of inputSecrets(definition, raw)) runtime.registerSecret(secret)
  runtime.logger.info(started.platformLine)
  for (const name of shortSecretInputs(definition, raw))
    runtime.logger.warning(shortSecretWarning(name, runtime.kind))
  for (const warning of secretFlagWarnings(definition, raw, runtime.cliArgs?.flags ?? []))
    runtime.logger.warning(warning)
  const redact = (text: string): string => runtime.redactor.redact(text)
  await runtime.logger.group('Inputs', () => {
    runtime.logger.info(describeInputs(definition, raw, redact))
    return Promise.resolve()
  })
  const registerSecret = (value: string): void => runtime.registerSecret(value)
  try {
    checked = await action.check(raw, context, { logger: runtime.logger, redact, registerSecret })
    if (checked.inputs.checkOnly) {
      writeOutputs(runtime, action.checkedOutputs?.(checked))
      runtime.logger.info(CHECKED)
      return
    }
    let notLive: string | undefined
    await action.run(checked, context, {
      logger: runtime.logger,
      reporter: runtime.reporter,
      redact,
      registerSecret,
      cancel,
      notLive: (headline) => (notLive = headline),
    })
    // Finished as the signal came: the step still reports that it was cancelled.
    if (cancel.signal.aborted) throw cancel.signal.reason
    if (notLive !== undefined) endNotLive(runtime, notLive)
  } catch (error) {
    const signal = cancel.cause
    if (signal === undefined) await reportFailure(runtime, definition.id, error)
    else await reportCancel(runtime, definition.id, signal, error, cancelled())
  } finally {
    stopListening()
  }
}

/**
 * Cancels the step on SIGINT or SIGTERM. Its code then stops its processes and removes its files
 * as it unwinds, and the step ends with the cancel message. When nothing of its own runs or is on
 * disk, when a second signal comes, or when that takes longer than UNWIND_MS, what is registered
 * is undone at once and the process exits. Returns the function that stops listening.
 */
function listenForCancel(
  cancel: StepCancellation,
  sayCancelled: (signal: string) => void,
): () => void {
  let timer: NodeJS.Timeout | undefined
  const exitNow = (signal: string): void => {
    cancel.runAtExit()
    sayCancelled(signal)
    process.exit(EXIT_CODES.failure)
  }
  const onSignal = (signal: NodeJS.Signals): void => {
    if (cancel.signal.aborted) {
      exitNow(cancel.cause ?? signal)
      return
    }
    cancel.cancel(signal)
    if (!cancel.busy) exitNow(signal)
    else timer = setTimeout(() => exitNow(signal), UNWIND_MS)
  }
  for (const signal of CANCEL_SIGNALS) process.on(signal, onSignal)
  return () => {
    clearTimeout(timer)
    for (const signal of CANCEL_SIGNALS) process.off(signal, onSignal)
  }
}

/**
 * The outputs a cancelled step writes, as any step's are: on GitHub the runner reads them when
 * the step ends; GitLab keeps no artifact of a cancelled job, so there its log line is what counts.
 */
function writeOutputs(runtime: Runtime, outputs: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(outputs)) {
    try {
      runtime.reporter.setOutput(name, value)
    } catch {
      // The step is ending: its message matters more than an output that cannot be written.
    }
  }
}

/** The step's one message when it was cancelled: the action's own, or what every step does. */
function cancelMessage(signal: string, note: string | undefined, error?: unknown): string {
  if (error instanceof CancelledError && error.said) return error.said
  return `The step was cancelled (${signal}): it stopped the processes it had started and removed the files it had made for itself, then exited without finishing.${note ? ` ${note}` : ''}`
}

async function reportCancel(
  runtime: Runtime,
  actionId: string,
  signal: string,
  error: unknown,
  note: string | undefined,
): Promise<void> {
  const message = cancelMessage(signal, note, error)
  runtime.logger.error(message, { title: `olympe ${actionId} cancelled` })
  process.exitCode = EXIT_CODES.failure
  if (runtime.kind === 'github') {
    await runtime.reporter.summary({
      heading: `olympe ${actionId} cancelled`,
      rows: [['Reason', message]],
    })
  }
}

/**
 * Done, but not shown live: GitHub has no state between green and red, so the step ends green
 * with the warning it printed and its summary's headline; the command line ends with an exit
 * code of its own, which the GitLab templates allow, so that the job passes with warnings.
 */
function endNotLive(runtime: Runtime, headline: string): void {
  if (runtime.kind === 'github') return
  process.exitCode = EXIT_CODES.notLive
  runtime.logger.info(
    `${headline}: exit code ${EXIT_CODES.notLive}, which the GitLab templates allow (allow_failure: exit_codes), so that the job passes with warnings.`,
  )
}

const CHECKED =
  "The inputs are valid, and so are the files they name that exist before the run. Nothing else was done: 'check-only' is true."

/** An error annotation with a title that names the failed input, exit code 1, and the summary. */
async function reportFailure(runtime: Runtime, actionId: string, error: unknown): Promise<void> {
  runtime.logger.error(failureMessage(error), { title: failureTitle(actionId, error) })
  process.exitCode = EXIT_CODES.failure
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
