// The platform's toolkit runner (the snapshot's ToolkitRunner port): the toolkit runs in a
// process group of its own, so that a timeout or a cancelled step stops it together with every
// process it started. Stopping the first process alone leaves its children running: `npx` starts
// `olympe`, which starts `node snapshooter.js` (test/unit/tools/toolkit-runner.test.ts shows that
// defect). Why the toolkit has a runner of its own, beside @actions/exec and simple-git: exec.ts.
//
// A process that calls setsid leaves the group (a session of its own), so the group's signal
// misses it; one that keeps the output pipe open would also keep the run waiting for the pipe's
// end for ever. The toolkit holds DRAW_PASSWORD in its environment, so the run also finds such
// processes: by parent (polled while the toolkit runs, before an orphan is handed to init), by a
// variable only this run's processes inherit, and, where this process may make one, by a cgroup
// that every process the toolkit starts stays in (see process-tree.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  NOTHING_LEFT,
  type ToolkitExit,
  type ToolkitProcesses,
  type ToolkitRunOptions,
  type ToolkitStop,
} from '../core/snapshot/ports.js'
import { cancelSignalName, type StepCancellation } from './cancel.js'
import { lineSplitter } from './lines.js'
import {
  descendantsIn,
  environHolds,
  isRunning,
  listProcesses,
  makeCgroup,
  readProcess,
  signalProcess,
  GRACE_MS,
  type Cgroup,
  type ProcessEntry,
} from './process-tree.js'

/** SIGKILL is acted on when the process next runs: how long to look for it to be gone. */
const KILL_WAIT_MS = 2000
/** Once the program and what it left are gone, how long its output may take to close. */
const DRAIN_MS = 2000
/** How often the processes a tracked program starts are listed while it runs. */
const POLL_MS = 1000
/** The variable that marks the processes of one tracked run, inherited by all they start. */
export const RUN_MARKER = 'OLYMPE_DEPLOY_PROCESS_RUN'

export interface TrackOptions {
  /** Make a cgroup for the run where this process may (default true). */
  cgroup?: boolean
  /** How often to list processes by parent while the program runs (default 1 s). */
  pollMs?: number
}

export interface GroupRunOptions {
  cwd?: string
  /** Added to (not replacing) the environment the program inherits. */
  env?: Record<string, string>
  /** Written to its stdin; without it, stdin is closed. */
  input?: string
  onStdout: (chunk: Buffer) => void
  onStderr: (chunk: Buffer) => void
  /** After this long, the program and everything it started are stopped. */
  timeoutMs?: number
  /** The step's cancellation: when it aborts, the program and everything it started are stopped. */
  cancel?: StepCancellation
  graceMs?: number
  /** Also find and end the processes that leave the group (Linux). */
  track?: TrackOptions
}

export interface GroupExit {
  /** The exit code; 1 when a signal ended it. */
  code: number
  stopped?: ToolkitStop
  graceMs: number
  processes: ToolkitProcesses
}

/**
 * Runs a program in a new process group. On timeout, or when the step is cancelled, every process
 * of the run gets SIGTERM, then SIGKILL after the grace period; when the program exits, what it
 * left running is stopped the same way. Resolves once all of them are gone (or were sent SIGKILL
 * and looked for) and the output is closed, or, when a process that could not be found still
 * holds it, without waiting for that. Rejects only when the program cannot start.
 */
export async function runGroup(
  command: string,
  args: readonly string[],
  options: GroupRunOptions,
): Promise<GroupExit> {
  const graceMs = options.graceMs ?? GRACE_MS
  const { cancel } = options
  if (cancel?.signal.aborted) {
    const stopped: ToolkitStop = { reason: 'cancelled', signal: cancelSignalName(cancel) }
    return { code: 1, stopped, graceMs, processes: { ...NOTHING_LEFT } }
  }
  const track = process.platform === 'linux' ? options.track : undefined
  const runId = `${process.pid}-${randomBytes(8).toString('hex')}`
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env }
  if (track) env[RUN_MARKER] = runId
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env,
    detached: true,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    windowsHide: true,
  })
  child.stdout?.on('data', options.onStdout)
  child.stderr?.on('data', options.onStderr)
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code) => {
      resolve(code ?? 1)
    }),
  )
  const closed = new Promise<true>((resolve) => child.once('close', () => resolve(true)))
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve)
    child.once('error', reject)
  })
  // Later errors (a signal that could not be sent) change nothing: the run goes on.
  child.on('error', () => undefined)
  if (options.input !== undefined && child.stdin) {
    // A program that exits without reading its stdin closes the pipe: no failure of ours.
    child.stdin.on('error', () => undefined)
    child.stdin.end(options.input)
  }
  const pid = child.pid ?? 0
  const tracker = new Tracker(pid, track && { ...track, marker: `${RUN_MARKER}=${runId}` })
  const forget = cancel?.atExit(() => tracker.signalAll('SIGKILL'))
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const stopRequest = new Promise<ToolkitStop>((resolve) => {
    if (options.timeoutMs !== undefined)
      timer = setTimeout(() => resolve({ reason: 'timeout' }), options.timeoutMs)
    if (cancel) {
      onAbort = () => resolve({ reason: 'cancelled', signal: cancelSignalName(cancel) })
      cancel.signal.addEventListener('abort', onAbort, { once: true })
    }
  })
  const poll = track ? setInterval(() => tracker.scan(), track.pollMs ?? POLL_MS) : undefined
  try {
    const first = await Promise.race([
      exited.then((code) => ({ code, stop: undefined })),
      stopRequest.then((stop) => ({ code: undefined, stop })),
    ])
    let code = first.code
    if (first.stop) {
      await tracker.end(graceMs)
      code = (await within(exited, KILL_WAIT_MS)) ?? 1
    } else {
      // What the program left running (in its group, or escaped from it) is stopped too.
      tracker.scan(true)
      if (tracker.running().length > 0) await tracker.end(graceMs)
    }
    const outputClosed = (await within(closed, DRAIN_MS)) === true
    if (!outputClosed) destroyOutput(child)
    return {
      code: code ?? 1,
      stopped: first.stop,
      graceMs,
      processes: tracker.report(!outputClosed),
    }
  } finally {
    clearTimeout(timer)
    clearInterval(poll)
    if (onAbort) cancel?.signal.removeEventListener('abort', onAbort)
    forget?.()
    tracker.dispose()
  }
}

export interface ToolkitRunnerOptions extends ToolkitRunOptions {
  graceMs?: number
  cancel?: StepCancellation
  /** How the processes that leave the group are found (Linux); tracked by default. */
  track?: TrackOptions
}

/**
 * Runs the platform's toolkit: each output line (stdout and stderr) to `onLine`, stdin closed,
 * and the processes that leave its group tracked (see the top of this file).
 */
export async function runToolkit(
  command: string,
  args: readonly string[],
  options: ToolkitRunnerOptions,
): Promise<ToolkitExit> {
  const out = lineSplitter({ onLine: options.onLine })
  const err = lineSplitter({ onLine: options.onLine })
  try {
    return await runGroup(command, args, {
      cwd: options.cwd,
      env: options.env,
      onStdout: out.push,
      onStderr: err.push,
      timeoutMs: options.timeoutMs,
      cancel: options.cancel,
      graceMs: options.graceMs,
      track: options.track ?? {},
    })
  } finally {
    out.end()
    err.end()
  }
}

/**
 * Every process of one run: its process group, and with `escapes`, the processes found outside
 * it: by parent, by the run's variable, or in the run's cgroup.
 */
class Tracker {
  readonly #group: number
  readonly #escapes?: TrackOptions & { marker: string }
  readonly #cgroup?: Cgroup
  /** Processes outside the group, found so far (pruned when they end). */
  readonly #outside = new Map<number, ProcessEntry>()
  #escaped = 0

  constructor(group: number, escapes?: TrackOptions & { marker: string }) {
    this.#group = group
    this.#escapes = escapes
    if (escapes && escapes.cgroup !== false) {
      const cgroup = makeCgroup('olympe-toolkit')
      if (cgroup?.adopt(group)) this.#cgroup = cgroup
      else cgroup?.remove()
    }
    this.scan()
    // What the program started in the instant before it was moved joins it in the cgroup.
    if (this.#cgroup)
      for (const entry of [...this.#groupMembers(), ...this.#outside.values()])
        this.#cgroup.adopt(entry.pid)
  }

  /** Looks for processes outside the group; by environment too when `environ` (slower). */
  scan(environ = false): void {
    const escapes = this.#escapes
    if (!escapes) return
    for (const [pid, entry] of this.#outside) if (!isRunning(entry)) this.#outside.delete(pid)
    const all = listProcesses()
    const roots = [
      this.#group,
      ...all.filter((e) => e.pgrp === this.#group).map((e) => e.pid),
      ...this.#outside.keys(),
    ]
    for (const entry of descendantsIn(all, roots)) this.#note(entry)
    if (environ)
      for (const entry of all)
        if (entry.pid !== process.pid && environHolds(entry.pid, escapes.marker)) this.#note(entry)
    for (const pid of this.#cgroup?.pids() ?? []) {
      const entry = readProcess(pid)
      if (entry) this.#note(entry)
    }
  }

  #note(entry: ProcessEntry): void {
    if (entry.pgrp !== this.#group && entry.state !== 'Z') this.#outside.set(entry.pid, entry)
  }

  /** The run's processes still running: its group's, and those found outside it. */
  running(): ProcessEntry[] {
    const outside = [...this.#outside.values()].filter(isRunning)
    return [...this.#groupMembers(), ...outside]
  }

  #groupMembers(): ProcessEntry[] {
    try {
      process.kill(process.platform === 'win32' ? this.#group : -this.#group, 0)
    } catch {
      return []
    }
    // Elsewhere there is no state to read: a zombie counts as running.
    if (process.platform !== 'linux')
      return [{ pid: this.#group, ppid: 0, pgrp: this.#group, state: 'R', start: '', name: '' }]
    // A zombie is not counted: in a container whose first process never reaps orphans, a
    // stopped tool's children stay zombies, and they answer to kill(-pid, 0) for ever.
    return listProcesses().filter((e) => e.pgrp === this.#group && e.state !== 'Z')
  }

  signalAll(signal: NodeJS.Signals): void {
    signalGroup(this.#group, signal)
    for (const entry of this.#outside.values())
      if (isRunning(entry)) signalProcess(entry.pid, signal)
    this.#cgroup?.signal(signal)
  }

  /** SIGTERM to every process of the run, SIGKILL after the grace period to what is left. */
  async end(graceMs: number): Promise<void> {
    this.scan(true)
    this.#escaped = Math.max(this.#escaped, [...this.#outside.values()].filter(isRunning).length)
    this.signalAll('SIGTERM')
    if (await this.#gone(graceMs)) return
    // Whatever was started meanwhile is found and killed too.
    this.scan(true)
    this.signalAll('SIGKILL')
    await this.#gone(KILL_WAIT_MS)
  }

  async #gone(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms
    for (;;) {
      this.scan()
      if (this.running().length === 0) return true
      if (Date.now() >= deadline) return false
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  report(outputHeld: boolean): ToolkitProcesses {
    this.scan(true)
    const survivors = this.running().map(({ pid, name }) => ({ pid, name }))
    return { contained: this.#cgroup !== undefined, escaped: this.#escaped, survivors, outputHeld }
  }

  dispose(): void {
    this.#cgroup?.remove()
  }
}

/** Resolves to the promise's value, or to undefined when it takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms)
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Stops reading an output that a process the run could not find keeps open. */
function destroyOutput(child: ChildProcess): void {
  child.stdout?.destroy()
  child.stderr?.destroy()
}

/** Signals every process of the group (none may be left: then nothing happens). */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
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
