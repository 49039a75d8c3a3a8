import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * The output and summary files the GitHub runner creates before each step (@actions/core
 * refuses to write to missing ones), emptied, as the step's environment entries.
 */
export function githubStepFiles(dir: string, prefix = ''): Record<string, string> {
  const files = {
    GITHUB_OUTPUT: join(dir, `${prefix}output`),
    GITHUB_STEP_SUMMARY: join(dir, `${prefix}summary`),
  }
  for (const file of Object.values(files)) writeFileSync(file, '')
  return files
}

export interface Sample {
  seconds: number
  maxRssKb: number
  code: number | null
  /** The end of what a failed command printed. */
  stderr?: string
}

/** Runs a command under GNU time, for its wall time and the peak RSS of the process tree's biggest member. */
export function measure(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn('/usr/bin/time', ['-f', 'BENCH %e %M', command, ...args], {
      env,
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      // GNU time's own clock has 10 ms steps; ours is finer, and adds only its fork.
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      const match = /BENCH [\d.]+ (\d+)/.exec(stderr)
      const said = code === 0 ? {} : { stderr: stderr.slice(-3000) }
      if (match) resolve({ seconds, maxRssKb: Number(match[1]), code, ...said })
      else reject(new Error(`no measurement from ${command}: ${stderr.slice(-500)}`))
    })
  })
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

export interface Figure {
  name: string
  runs: number
  seconds: number
  maxRssMb: number
}

/** Interleaves the candidates run by run, so that a slow moment of the machine hits all alike. */
export async function compare(
  runs: number,
  candidates: Record<string, () => Promise<Sample>>,
): Promise<Record<string, Figure>> {
  const samples: Record<string, Sample[]> = {}
  for (const name of Object.keys(candidates)) samples[name] = []
  for (let run = 0; run < runs; run++) {
    for (const [name, candidate] of Object.entries(candidates)) {
      const sample = await candidate()
      if (sample.code !== 0)
        throw new Error(`${name} failed (exit ${String(sample.code)}) in run ${run + 1}`)
      samples[name]?.push(sample)
    }
  }
  const figures: Record<string, Figure> = {}
  for (const [name, list] of Object.entries(samples)) {
    figures[name] = {
      name,
      runs: list.length,
      seconds: median(list.map((s) => s.seconds)),
      maxRssMb: median(list.map((s) => s.maxRssKb)) / 1024,
    }
  }
  return figures
}

export interface TreeSample extends Sample {
  /** Peak of the summed RSS of the command and every process under it, sampled every 100 ms. */
  peakTreeRssKb: number
  /** User + system CPU of the command and every process under it (GNU time). */
  cpuSeconds: number
  /** The same for the engine's processes (dockerd, containerd) during the run. */
  enginePeakRssKb: number
  engineCpuSeconds: number
}

const SAMPLE_MS = 100
const PAGE_KB = 4
const TICKS_PER_SECOND = 100

export interface TreeOptions {
  /** The user the command runs as; this process's own when absent. */
  user?: { uid: number; gid: number }
  /** Given each line the command prints, with the seconds since it started. */
  onLine?: (seconds: number, line: string) => void
}

/**
 * Runs a command under GNU time while sampling the resident memory of its whole process tree
 * (the docker CLI, its buildx plugin, node…) and of the engine's processes.
 */
export async function measureTree(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  enginePids: () => Promise<number[]>,
  options: TreeOptions = {},
): Promise<TreeSample> {
  const { user, onLine } = options
  const engine = await enginePids()
  const engineCpuBefore = await cpuTicks(engine)
  const started = process.hrtime.bigint()
  const child = spawn('/usr/bin/time', ['-f', 'BENCH %e %M %U %S', command, ...args], {
    env,
    cwd,
    stdio: ['ignore', onLine ? 'pipe' : 'ignore', 'pipe'],
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  })
  if (onLine) {
    let pending = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      const now = Number(process.hrtime.bigint() - started) / 1e9
      const parts = (pending + chunk.toString('utf8')).split('\n')
      pending = parts.pop() ?? ''
      for (const line of parts) onLine(now, line)
    })
  }
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const state = { running: true }
  let peakTree = 0
  let peakEngine = 0
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      state.running = false
      resolve(code)
    })
  })
  const sampler = (async () => {
    while (state.running) {
      const tree = child.pid === undefined ? [] : await descendants(child.pid)
      peakTree = Math.max(peakTree, await rssKb(tree))
      peakEngine = Math.max(peakEngine, await rssKb(engine))
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS))
    }
  })()
  const code = await closed
  await sampler
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const engineCpuSeconds = ((await cpuTicks(engine)) - engineCpuBefore) / TICKS_PER_SECOND
  const match = /BENCH [\d.]+ (\d+) ([\d.]+) ([\d.]+)/.exec(stderr)
  if (!match) throw new Error(`no measurement from ${command}: ${stderr.slice(-2000)}`)
  return {
    seconds,
    maxRssKb: Number(match[1]),
    code,
    peakTreeRssKb: peakTree,
    cpuSeconds: Number(match[2]) + Number(match[3]),
    enginePeakRssKb: peakEngine,
    engineCpuSeconds,
    ...(code === 0 ? {} : { stderr: stderr.slice(-3000) }),
  }
}

/** The process and all its descendants, found through every thread's `children` file. */
async function descendants(pid: number): Promise<number[]> {
  const found = [pid]
  for (let i = 0; i < found.length; i++) {
    const parent = found[i] as number
    const tasks = await readdir(`/proc/${parent}/task`).catch(() => [] as string[])
    for (const task of tasks) {
      const text = await readFile(`/proc/${parent}/task/${task}/children`, 'utf8').catch(() => '')
      for (const child of text.split(' ')) if (child.trim()) found.push(Number(child))
    }
  }
  return found
}

async function rssKb(pids: readonly number[]): Promise<number> {
  let total = 0
  for (const pid of pids) {
    const statm = await readFile(`/proc/${pid}/statm`, 'utf8').catch(() => '')
    total += Number(statm.split(' ')[1] ?? 0) * PAGE_KB
  }
  return total
}

/** The CPU ticks (1/100 s) the processes used so far. */
async function cpuTicks(pids: readonly number[]): Promise<number> {
  let total = 0
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
    // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    total += Number(fields[11] ?? 0) + Number(fields[12] ?? 0)
  }
  return total
}
