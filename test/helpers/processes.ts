// What runs on the machine, read from Linux's /proc: how tests check that nothing a step started
// is left running, whatever session or process group it moved to.
import { readdirSync, readFileSync } from 'node:fs'

export interface RunningProcess {
  pid: number
  ppid: number
  pgrp: number
  /** Its argv, joined by spaces. */
  commandLine: string
}

/** Every process that runs (zombies, which nobody may reap here, left out). */
export function runningProcesses(): RunningProcess[] {
  const found: RunningProcess[] = []
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (state === 'Z') continue
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean)
      found.push({
        pid: Number(name),
        ppid: Number(ppid),
        pgrp: Number(pgrp),
        commandLine: argv.join(' '),
      })
    } catch {
      // Ended meanwhile.
    }
  }
  return found
}

/** The processes whose environment holds `variable` (NAME=value): every one a run started. */
export function processesWithEnv(variable: string): RunningProcess[] {
  return runningProcesses().filter((found) => {
    try {
      const environ = readFileSync(`/proc/${found.pid}/environ`, 'latin1')
      return `\0${environ}`.includes(`\0${variable}\0`)
    } catch {
      return false
    }
  })
}

/**
 * What `look` finds once it finds nothing, or after `ms` (a SIGKILL is acted on when the process
 * next runs; a cancelled build takes a moment to stop): a generous bound, not a timing check.
 */
export async function whenGone<T>(look: () => T[], ms = 10_000): Promise<T[]> {
  const deadline = Date.now() + ms
  let found = look()
  while (found.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    found = look()
  }
  return found
}

/**
 * The processes of a build of `folder` whose RUN step is `sleep <seconds>`: that sleep, and the
 * builder's own (a command line that `builder` matches and that names the folder).
 */
export const buildProcesses =
  (builder: RegExp, folder: string, seconds: number): (() => RunningProcess[]) =>
  () =>
    runningProcesses().filter(
      (p) =>
        p.commandLine === `sleep ${seconds}` ||
        (builder.test(p.commandLine) && p.commandLine.includes(folder)),
    )

/** Whether a process runs `commandLine` (argv joined by spaces) within `ms`: a bound, not a timing. */
export async function whenRunning(commandLine: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!runningProcesses().some((p) => p.commandLine === commandLine)) {
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return true
}

/** SIGKILL to each process, so that a failed test leaves nothing running on the machine. */
export function killAll(processes: readonly Pick<RunningProcess, 'pid'>[]): void {
  for (const { pid } of processes) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Gone already.
    }
  }
}
