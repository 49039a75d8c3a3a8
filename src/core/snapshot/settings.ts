import { ActionError, InputError } from '../shared/errors.js'
import { isLoopbackHost } from '../shared/loopback.js'
import type { SnapshotInputs } from './inputs.js'

/** The toolkit's own defaults, for what it does when an input is not given. */
const TOOLKIT_DEFAULTS: { host: string; port: number } = { host: 'localhost', port: 8080 }

/**
 * What the toolkit does with these inputs that the user would not expect, found by running it:
 * it builds a command line that it splits on spaces, reads all-digit values as numbers (dropping
 * leading zeros), drops surrounding quotes, and uses TLS only on port 443.
 */
export function settingWarnings(inputs: SnapshotInputs): string[] {
  const warnings: string[] = []
  const password = inputs.drawPassword
  if (password && /\s/.test(password))
    warnings.push(
      "'draw-password' holds a space; the toolkit splits its command line on spaces, so signing in may fail.",
    )
  if (password && /^\d+$/.test(password))
    warnings.push(
      "'draw-password' is all digits; the toolkit reads such a value as a number (0042 becomes 42), so signing in fails when it starts with 0 or is very long. Give the platform user a password with a letter in it.",
    )
  if (password && isQuoted(password))
    warnings.push(
      "'draw-password' starts and ends with a quote; the toolkit drops surrounding quotes, so signing in may fail. Remove the quotes if they are not part of the password, or change it.",
    )
  const user = inputs.drawUsername
  if (user && /^\d+$/.test(user))
    warnings.push(
      `'draw-username' '${user}' is all digits; the toolkit reads such a value as a number (0042 becomes 42), so signing in may fail.`,
    )
  if (user && isQuoted(user))
    warnings.push(
      `'draw-username' '${user}' starts and ends with a quote; the toolkit drops surrounding quotes, so signing in may fail.`,
    )
  const clear = clearTextWarning(inputs.orchestratorHost, inputs.orchestratorPort)
  if (clear) warnings.push(clear)
  return warnings
}

function isQuoted(value: string): boolean {
  return value.length >= 2 && /^(["']).*\1$/s.test(value)
}

function clearTextWarning(
  host = TOOLKIT_DEFAULTS.host,
  port = TOOLKIT_DEFAULTS.port,
): string | undefined {
  const bare = host.replace(/^\[|\]$/g, '')
  if (port === 443 || isLoopbackHost(host) || isLoopbackHost(bare)) return undefined
  return `The toolkit uses TLS only on port 443: on port ${port} it signs in to '${host}' in clear, so the password and the session token cross the network unencrypted. Use 'orchestrator-port: 443' (TLS), or reach the orchestrator through a tunnel to a loopback address.`
}

const SPACE_WHY =
  'the toolkit writes to outputDir through a command line that it splits on spaces, so the path would be cut and the files written elsewhere, after the real outputDir was emptied'

/** The working directory, where entries without git are written: refused before anything runs. */
export function checkWorkingFolder(projectDir: string): void {
  if (!/\s/.test(projectDir)) return
  throw new InputError(
    'working-directory',
    `Invalid input 'working-directory': the folder '${projectDir}' holds a space, and entries without git are written there: ${SPACE_WHY}. Move the project to a path without spaces (or give those entries a git object).`,
  )
}

/** The temporary folder, where the clones are: the toolkit's working folder for git entries. */
export function checkTempFolder(tempDir: string): void {
  if (!/\s/.test(tempDir)) return
  throw new ActionError(
    `The temporary folder '${tempDir}' holds a space, and the clones the toolkit writes into are made there: ${SPACE_WHY}. Point TMPDIR (TEMP on Windows) at a folder without spaces. Nothing was exported or pushed.`,
  )
}
