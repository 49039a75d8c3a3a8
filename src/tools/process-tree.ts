// What Linux says about the processes a tool started: for the toolkit's runner
// (toolkit-runner.ts), and for ending what a cancelled step's other tools started (exec.ts,
// git.ts). A tool's process group holds what it starts until a process calls setsid (a session
// and group of its own): from then on only its parent (until that parent exits and it is handed
// to init), the environment it inherited, and a cgroup it was started in still tie it to the tool.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface ProcessEntry {
  pid: number
  ppid: number
  /** Its process group. */
  pgrp: number
  /** R, S, D…; Z for a zombie: it has ended, and waits only for its parent to read its status. */
  state: string
  /** When it started, in clock ticks since boot: with the pid, it names one process even after its pid is reused. */
  start: string
  /** Its command name, for messages. */
  name: string
}

/** One process as /proc shows it; undefined once it is gone (or off Linux). */
export function readProcess(pid: number): ProcessEntry | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ')'.
  const close = stat.lastIndexOf(')')
  const name = stat.slice(stat.indexOf('(') + 1, close)
  const fields = stat.slice(close + 2).split(' ')
  return {
    pid,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    state: fields[0] ?? '',
    // The 22nd field of the line, `starttime`.
    start: fields[19] ?? '',
    name,
  }
}

/** Every process of the machine (of its PID namespace) that /proc lists. */
export function listProcesses(): ProcessEntry[] {
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return []
  }
  const found: ProcessEntry[] = []
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    const entry = readProcess(Number(name))
    if (entry) found.push(entry)
  }
  return found
}

/** Still running: neither gone nor a zombie, and the same process (its start time unchanged). */
export function isRunning(entry: Pick<ProcessEntry, 'pid' | 'start'>): boolean {
  const now = readProcess(entry.pid)
  return now !== undefined && now.state !== 'Z' && now.start === entry.start
}

/**
 * Whether the process's environment holds `variable` (NAME=value), as it was when the process
 * started. False when it cannot be read: another user's process, or one that has ended.
 */
export function environHolds(pid: number, variable: string): boolean {
  try {
    const text = readFileSync(`/proc/${pid}/environ`, 'latin1')
    return `\0${text}`.includes(`\0${variable}\0`)
  } catch {
    return false
  }
}

/**
 * A cgroup (version 2) of a run's own, a folder of the kernel's cgroup file system: a process
 * moved into it stays in it, and so does every process it starts, setsid or not. Only a process
 * allowed to write that file system can make one (root, on a machine whose cgroups are not
 * read-only, as they are in a container); `makeCgroup` gives undefined elsewhere.
 */
export interface Cgroup {
  readonly dir: string
  /** Moves a process in; false when the kernel refuses. */
  adopt(pid: number): boolean
  /** The processes in it (a zombie has left it already). */
  pids(): number[]
  signal(signal: NodeJS.Signals): void
  /** Removes the folder once it is empty; false while a process is still in it. */
  remove(): boolean
}

export function makeCgroup(label: string): Cgroup | undefined {
  if (process.platform !== 'linux') return undefined
  const base = ownCgroupDir()
  if (!base) return undefined
  const dir = join(base, `${label}-${process.pid}-${randomBytes(4).toString('hex')}`)
  try {
    mkdirSync(dir)
  } catch {
    return undefined
  }
  const pids = (): number[] => {
    try {
      return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number)
    } catch {
      return []
    }
  }
  return {
    dir,
    adopt(pid) {
      try {
        writeFileSync(join(dir, 'cgroup.procs'), String(pid))
        return true
      } catch {
        return false
      }
    },
    pids,
    signal(signal) {
      // cgroup.kill (Linux 5.14) kills every process in it at once, those forking meanwhile too.
      if (signal === 'SIGKILL') {
        try {
          writeFileSync(join(dir, 'cgroup.kill'), '1')
          return
        } catch {
          // An older kernel: one by one below.
        }
      }
      for (const pid of pids()) signalProcess(pid, signal)
    },
    remove() {
      try {
        rmdirSync(dir)
        return true
      } catch {
        return false
      }
    },
  }
}

/** Where this process's cgroup is in the cgroup2 file system, when that is mounted. */
function ownCgroupDir(): string | undefined {
  try {
    // `0::/path`: the cgroup2 line (the others are version 1 hierarchies).
    const path = /^0::(\/.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1]
    // mountinfo: id parent major:minor root mount-point options … - fstype source options.
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .find((line) => line.split(' - ')[1]?.startsWith('cgroup2 '))
      ?.split(' ')[4]
    return path !== undefined && mount ? join(mount, path) : undefined
  } catch {
    return undefined
  }
}

/**
 * Between SIGTERM and SIGKILL, for every tool the actions start: below the GitHub runner's 7.5 s
 * between SIGINT and SIGTERM.
 */
export const GRACE_MS = 3000

/**
 * SIGTERM to each process given, then SIGKILL to those still running after `graceMs`. The
 * processes are found before any is signalled: the children of a process that dies first are
 * handed to init, and would no longer be found among anyone's descendants.
 */
export async function endProcesses(entries: ProcessEntry[], graceMs = GRACE_MS): Promise<void> {
  for (const entry of entries) signalProcess(entry.pid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (Date.now() < deadline) {
    if (entries.filter(isRunning).length === 0) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  for (const entry of entries.filter(isRunning)) signalProcess(entry.pid, 'SIGKILL')
}

/** Every process this one started, and what they started, ended (see endProcesses). */
export function endDescendants(graceMs = GRACE_MS): Promise<void> {
  return endProcesses(descendantsOf(process.pid), graceMs)
}

/** kill(2), where a process that is gone (or not ours to signal) is no error. */
export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // Gone already, or not ours.
  }
}

/** The processes `root` started, and what they started in turn, as /proc shows them now. */
export function descendantsOf(root: number): ProcessEntry[] {
  return descendantsIn(listProcesses(), [root]).filter((entry) => entry.state !== 'Z')
}

/** Among `all`, what the `roots` started and what that started in turn, each once. */
export function descendantsIn(all: ProcessEntry[], roots: number[]): ProcessEntry[] {
  const children = new Map<number, ProcessEntry[]>()
  for (const entry of all) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry])
  const found: ProcessEntry[] = []
  const seen = new Set<number>()
  const queue = [...roots]
  while (queue.length > 0) {
    const pid = queue.shift() ?? 0
    if (seen.has(pid)) continue
    seen.add(pid)
    for (const child of children.get(pid) ?? []) {
      found.push(child)
      queue.push(child.pid)
    }
  }
  return found
}
