import { runActionStep } from './action-steps.js'
import { ACTION_DEFINITIONS } from './core/action-list.js'
import { EXIT_CODES } from './core/shared/exit-codes.js'
import { PACKAGE } from './platform/package-info.js'
import type { Invocation } from './platform/start.js'

interface Command {
  about: string
  run: (invocation: Invocation) => Promise<void>
}

/** The commands: the actions, in the order of the deployment process's steps. */
const COMMANDS: Readonly<Record<string, Command>> = Object.fromEntries(
  ACTION_DEFINITIONS.map(({ id, description }) => [
    id,
    { about: description, run: (invocation: Invocation) => runActionStep(id, invocation) },
  ]),
)

/**
 * `olympe-deploy <command> [--<input> <value>]...`: GitLab jobs and people run the actions
 * here, from the very bundle the GitHub runner runs.
 */
export async function runCommandLine(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === '--version') {
    process.stdout.write(`${PACKAGE.version}\n`)
    return
  }
  if (command === '--help' || command === '-h') {
    process.stdout.write(`${commandsUsage()}\n`)
    return
  }
  if (command === undefined) {
    process.stderr.write(`Error: no command given.\n\n${commandsUsage()}\n`)
    process.exitCode = EXIT_CODES.usage
    return
  }
  const chosen = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined
  if (!chosen) {
    // Not echoed: a mistyped `olympe-deploy $TOKEN` would print the token, and GitLab has no
    // run-time masking. The commands are few enough to spot the slip in the list below.
    process.stderr.write(
      `Error: unknown command (not shown: it may be a secret). The first argument must be one of: ${Object.keys(COMMANDS).join(', ')}.\n\n${commandsUsage()}\n`,
    )
    process.exitCode = EXIT_CODES.usage
    return
  }
  await chosen.run({ argv: rest })
}

export function commandsUsage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length))
  const lines = Object.entries(COMMANDS).map(
    ([name, { about }]) => `  ${name.padEnd(width)}  ${firstSentence(about)}`,
  )
  return [
    'Usage: olympe-deploy <command> [--<input> <value>]...',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'olympe-deploy <command> --help' for a command's inputs.",
    "'olympe-deploy --version' prints the version.",
    '',
    `Exit codes: ${EXIT_CODES.success} done; ${EXIT_CODES.failure} failed; ${EXIT_CODES.usage} the command line used wrongly; ${EXIT_CODES.notLive} deployed, but not shown live (a rollout that awaits a promotion, or that nothing shows to serve the new build).`,
  ].join('\n')
}

function firstSentence(text: string): string {
  const end = text.search(/[.:;](\s|$)/)
  return end === -1 ? text : text.slice(0, end + 1).replace(/[:;]$/, '.')
}
