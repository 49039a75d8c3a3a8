import { join } from 'node:path'
import { ActionError, CancelledError, errorMessage, quote } from '../shared/errors.js'
import { commandLine } from '../shared/exec.js'
import type { SnapshotEntry } from './config.js'
import {
  NOTHING_LEFT,
  type SnapshotPorts,
  type ToolkitExit,
  type ToolkitProcesses,
} from './ports.js'

export interface ToolkitSettings {
  argv: string[]
  /** ORCHESTRATOR_HOST, ORCHESTRATOR_SERVICE_PORT, DRAW_USERNAME, DRAW_PASSWORD, LOG_LEVEL. */
  env: Record<string, string>
  /** Where the per-entry SNAPSHOT_CONFIG files go: outside every clone, so never committed. */
  tempDir: string
  /** `toolkit-timeout-minutes`: how long one entry's export may take. */
  timeoutMinutes: number
}

type ToolkitTools = Pick<
  SnapshotPorts,
  'runToolkit' | 'files' | 'logger' | 'redact' | 'registerSecret'
>

const KEPT_LINES = 5

/**
 * Runs the toolkit for one entry, with `cwd` as its working folder so that the relative
 * `outputDir` lands there. The toolkit gets the entry without its `git` object: it only writes
 * files, and the action does all the git work. One run per entry, so a failure names its entry.
 */
export async function exportEntry(
  entry: SnapshotEntry,
  index: number,
  cwd: string,
  settings: ToolkitSettings,
  tools: ToolkitTools,
): Promise<void> {
  const configFile = join(settings.tempDir, `toolkit-config-${index + 1}.json`)
  await tools.files.writeText(
    configFile,
    `${JSON.stringify([{ snapshooter: entry.snapshooter }], null, 2)}\n`,
  )
  const [program = '', ...args] = settings.argv
  tools.logger.info(`$ ${commandLine(program, args)}   (in ${cwd})`)
  const last: string[] = []
  let result: ToolkitExit
  try {
    result = await tools.runToolkit(program, args, {
      cwd,
      env: { ...settings.env, SNAPSHOT_CONFIG: configFile },
      timeoutMs: Math.round(settings.timeoutMinutes * 60_000),
      onLine: (line) => {
        const shown = hideSessionTokens(line, tools.registerSecret)
        tools.logger.info(shown)
        const kept = stripColours(tools.redact(shown)).trim()
        if (kept !== '') last.push(kept)
        if (last.length > KEPT_LINES) last.shift()
      },
    })
  } catch (error) {
    throw new ActionError(
      `Could not start the toolkit for entry '${entry.name}': ${quote(program)} ${errorMessage(error)}. Install the toolkit in your project (npm install --save-dev @olympeio/toolkit, then npm ci in the job) or set 'toolkit-command'. Nothing was committed or pushed.`,
    )
  }
  if (result.stopped || result.code !== 0) throw toolkitFailure(entry, settings, result, last)
  const warning = leftBehind(entry, processesOf(result))
  if (warning) tools.logger.warning(warning)
}

const processesOf = (result: ToolkitExit): ToolkitProcesses => result.processes ?? NOTHING_LEFT

/** After a toolkit that exported its entry: what it left running, said, as it held its secrets. */
function leftBehind(entry: SnapshotEntry, processes: ToolkitProcesses): string | undefined {
  const still = stillRunning(processes)
  if (still)
    return `The toolkit exported entry '${entry.name}' and exited, but not every process it had started could be ended.${still}`
  if (processes.escaped === 0) return undefined
  return `The toolkit left ${count(processes.escaped)} running in a session of its own after it exported entry '${entry.name}': the step ended ${processes.escaped === 1 ? 'it' : 'them'}, as ${processes.escaped === 1 ? 'it' : 'they'} held the toolkit's environment ('draw-password' included).`
}

const count = (n: number): string => (n === 1 ? '1 process' : `${n} processes`)

/** How the toolkit was stopped, true to what the run could see of the processes it started. */
function stoppedHow(result: ToolkitExit): string {
  const grace = `SIGTERM, then SIGKILL after ${result.graceMs / 1000} s`
  const processes = processesOf(result)
  if (stillRunning(processes)) return `stopped (${grace}), but not every process it had started`
  // Without a cgroup, a process that both left the group and dropped the run's variable before
  // the next look at its parent could not be found: the message does not claim more.
  const every = processes.contained
    ? 'every process it had started'
    : 'every process it had started that the step could find'
  const escaped =
    processes.escaped > 0
      ? `, ${processes.escaped === 1 ? 'one' : processes.escaped} of them in a session of its own`
      : ''
  return `stopped with ${every}${escaped} (${grace})`
}

/** The processes still running after the run ended them, and what to do: '' when none is known. */
function stillRunning(processes: ToolkitProcesses): string {
  const why = "the toolkit's environment, 'draw-password' included"
  const unless = 'unless the runner is thrown away after the job'
  if (processes.survivors.length > 0) {
    const listed = processes.survivors.map((p) => `${p.pid} (${p.name})`).join(', ')
    const pids = processes.survivors.map((p) => p.pid).join(' ')
    return ` Still running: ${listed}, with ${why}: end ${processes.survivors.length === 1 ? 'it' : 'them'} (kill -KILL ${pids}) ${unless}.`
  }
  if (processes.outputHeld)
    return ` A process it had started that the step could not find still holds the toolkit's output open, with ${why}: find it among the processes of the job's user and end it, ${unless}.`
  return ''
}

function toolkitFailure(
  entry: SnapshotEntry,
  settings: ToolkitSettings,
  result: ToolkitExit,
  last: readonly string[],
): ActionError | CancelledError {
  const tail =
    last.length > 0 ? ` Its last output:\n${last.map((l) => `    ${l}`).join('\n')}\n` : ' '
  const emptied = entry.git
    ? ''
    : ` The toolkit empties outputDir '${entry.snapshooter.outputDir}' in the working directory before it signs in, so that folder may now be empty: restore it from git if you need it.`
  const stopped = result.stopped
  const how = stoppedHow(result)
  const still = stillRunning(processesOf(result))
  if (stopped?.reason === 'timeout') {
    return new ActionError(
      `The toolkit was still exporting entry '${entry.name}' (${entry.where}) after ${settings.timeoutMinutes} minute(s) ('toolkit-timeout-minutes'), so it was ${how}. Nothing was committed or pushed.${still}${emptied}${tail}The orchestrator may have stopped answering: check it and run the snapshot again, or raise 'toolkit-timeout-minutes' if this export really takes longer.`,
    )
  }
  if (stopped?.reason === 'cancelled') {
    return new CancelledError(
      stopped.signal,
      `The step was cancelled (${stopped.signal}) while the toolkit exported entry '${entry.name}' (${entry.where}): the toolkit was ${how}. Nothing was committed or pushed.${still}${emptied}`,
    )
  }
  return new ActionError(
    `The toolkit failed (exit code ${result.code}) exporting entry '${entry.name}' (${entry.where}), so nothing was committed or pushed.${still}${emptied}${tail}${failureHint(entry, last)}`,
  )
}

/** What to check, from what the toolkit said last: blaming the password for a mkdir misleads. */
function failureHint(entry: SnapshotEntry, last: readonly string[]): string {
  const said = last.join('\n')
  if (/ENOENT[^\n]*mkdir|mkdir[^\n]*ENOENT/.test(said))
    return `The toolkit could not create outputDir '${entry.snapshooter.outputDir}' because a parent folder is missing (it creates the last folder only). The action creates the parents before it runs the toolkit; if 'toolkit-command' changes the toolkit's working folder, create them there first.`
  if (/invalid username or password|authentication failed|unauthori[sz]ed|\b401\b/i.test(said))
    return "The orchestrator refused the sign-in: check 'draw-username' and 'draw-password' (the toolkit drops leading zeros of an all-digit value, and surrounding quotes)."
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ECONNRESET/.test(said))
    return "The toolkit could not reach the orchestrator: check 'orchestrator-host' and 'orchestrator-port' (443 makes the toolkit use TLS), and that the orchestrator is up."
  return "Check 'orchestrator-host', 'orchestrator-port', 'draw-username' and 'draw-password', that the toolkit is installed in 'working-directory' (npm ci), and the entry's rootTags."
}

// `rndCook=<value>`, or `"rndCook":"<value>"` in a JSON dump: the session token.
const SESSION_TOKEN = /(rndCook["']?\s*[=:]\s*["']?)([^\s"'&;,}]+)/gi

/**
 * At debug level the toolkit prints its session token (`rndCook`). It is found only at run time,
 * so each value is registered as a secret (masked from then on, and on GitHub in the runner's
 * log) and replaced in the line itself before the line is printed.
 */
export function hideSessionTokens(line: string, register: (secret: string) => void): string {
  return line.replace(SESSION_TOKEN, (_match, key: string, value: string) => {
    // A value this short would mask every such string in the log: it is hidden here only.
    if (value.length >= 4) register(value)
    return `${key}***`
  })
}

// CSI sequences (colours, cursor moves), OSC sequences (titles, links) and two-character escapes.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g

/** The toolkit colours its levels (winston); an error message is plain text. */
export function stripColours(line: string): string {
  return line.replace(ANSI, '')
}

export function toolkitEnv(
  settings: {
    orchestratorHost?: string
    orchestratorPort?: number
    drawUsername?: string
    drawPassword?: string
  },
  debug: boolean,
): Record<string, string> {
  // At debug level the toolkit prints the password (three times) and its session token: only
  // when the step itself runs in debug mode, where our redaction still masks them.
  const env: Record<string, string> = { LOG_LEVEL: debug ? 'debug' : 'info' }
  if (settings.orchestratorHost) env.ORCHESTRATOR_HOST = settings.orchestratorHost
  if (settings.orchestratorPort) env.ORCHESTRATOR_SERVICE_PORT = String(settings.orchestratorPort)
  if (settings.drawUsername) env.DRAW_USERNAME = settings.drawUsername
  if (settings.drawPassword) env.DRAW_PASSWORD = settings.drawPassword
  return env
}
