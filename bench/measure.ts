import { spawn } from 'node:child_process'

export interface Sample {
  seconds: number
  maxRssKb: number
  code: number | null
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
      if (match) resolve({ seconds, maxRssKb: Number(match[1]), code })
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
