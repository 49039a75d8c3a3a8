// Why this runner exists beside @actions/exec (which runs every other tool): the platform's
// toolkit must be stoppable, children included. It never gives up on its own (an orchestrator
// that accepts the sign-in and then stops answering kept one query waiting 300 s), and it starts
// its own processes (`npx` starts `olympe`, which starts `node snapshooter.js`). @actions/exec can
// neither start a tool in a process group of its own (it has no `detached` option) nor hand back
// its pid (it returns a promise only), so it can neither time the tool out nor stop it when the
// step is cancelled; and stopping the first process alone leaves its children running.
// test/unit/tools/process-group.test.ts shows that defect (the child killed alone leaves its own
// child running) and that this runner leaves no process of the group behind.
import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import type { ToolkitExit, ToolkitRunOptions, ToolkitStop } from '../core/snapshot/ports.js'
import { lineSplitter } from './lines.js'

export interface GroupOptions extends ToolkitRunOptions {
  /** Between SIGTERM and SIGKILL. Below the GitHub runner's 7.5 s between SIGINT and SIGTERM. */
  graceMs?: number
  /** Signals to our own process that mean "the step is cancelled". */
  cancelSignals?: readonly NodeJS.Signals[]
}

/** SIGINT is what the GitHub runner sends first on cancel; GitLab sends SIGTERM. */
const CANCEL_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']
const GRACE_MS = 3000

/**
 * Runs a program in a new process group (stdin closed, each output line to `onLine`). On timeout,
 * or when our process receives a cancel signal, the whole group gets SIGTERM, then SIGKILL after
 * the grace period. When the program exits, what it left running in its group is stopped too.
 * Resolves when the program's output is closed; rejects only when it cannot start.
 */
export function runProcessGroup(
  command: string,
  args: readonly string[],
  options: GroupOptions,
): Promise<ToolkitExit> {
  const graceMs = options.graceMs ?? GRACE_MS
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    })
    const out = lineSplitter({ onLine: options.onLine })
    const err = lineSplitter({ onLine: options.onLine })
    child.stdout.on('data', out.push)
    child.stderr.on('data', err.push)
    let stopped: ToolkitStop | undefined
    let killTimer: NodeJS.Timeout | undefined
    let killed = false
    let closed: number | undefined
    const endGroup = (): void => {
      if (killTimer || child.pid === undefined) return
      signalGroup(child.pid, 'SIGTERM')
      killTimer = setTimeout(() => {
        if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL')
        killed = true
        settle()
      }, graceMs)
    }
    const stop = (why: ToolkitStop): void => {
      stopped ??= why
      endGroup()
    }
    const timer = setTimeout(() => stop({ reason: 'timeout' }), options.timeoutMs)
    const onSignal = (signal: NodeJS.Signals): void => stop({ reason: 'cancelled', signal })
    const signals = options.cancelSignals ?? CANCEL_SIGNALS
    for (const signal of signals) process.on(signal, onSignal)
    const cleanUp = (): void => {
      clearTimeout(timer)
      clearTimeout(killTimer)
      for (const signal of signals) process.off(signal, onSignal)
    }
    // Resolves once the output is closed and the group is gone, or was sent SIGKILL.
    function settle(): void {
      if (closed === undefined) return
      if (killTimer && !killed && child.pid !== undefined && groupAlive(child.pid)) return
      cleanUp()
      resolve({ code: closed, stopped, graceMs })
    }
    child.on('error', (error) => {
      cleanUp()
      reject(error)
    })
    child.on('exit', () => {
      if (child.pid !== undefined && groupAlive(child.pid)) endGroup()
    })
    child.on('close', (code) => {
      out.end()
      err.end()
      closed = code ?? 1
      settle()
    })
  })
}

/** Signals every process of the group (none may be left: then nothing happens). */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (process.platform === 'win32') {
    // No process groups to signal on Windows: taskkill ends the process tree instead.
    spawnSync('taskkill', ['/PID', String(pid), '/T', '/F'])
    return
  }
  try {
    process.kill(-pid, signal)
  } catch {
    // The group is gone already.
  }
}

/**
 * Whether a process of the group is still running. A zombie does not count: in a container whose
 * first process never reaps orphans, a stopped tool's children stay zombies, and they answer to
 * kill(-pid, 0) for ever. Linux shows states in /proc; elsewhere a zombie counts as running.
 */
function groupAlive(pid: number): boolean {
  if (process.platform === 'linux') return linuxGroupRunning(pid)
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, 0)
    return true
  } catch {
    return false
  }
}

function linuxGroupRunning(group: number): boolean {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8')
    } catch {
      continue // ended meanwhile
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(pgrp) === group && state !== 'Z') return true
  }
  return false
}
