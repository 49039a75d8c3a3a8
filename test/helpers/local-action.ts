import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { withCleanup } from './cleanup.js'
import { ROOT, type ActionId } from './run-action.js'
import { capture } from './run-process.js'

export interface LocalActionRun {
  code: number | null
  stdout: string
  stderr: string
  /** The outputs local-action reports in its "Action Outputs" table, by name. */
  outputs: Record<string, string>
}

/**
 * Runs an action the way its authors debug it, with GitHub's @github/local-action: it imports
 * src/actions/<action>.ts, stands in for @actions/core and @actions/github, and calls run().
 * `env` becomes the dotenv file it reads (INPUT_<NAME> with hyphens, GITHUB_* facts).
 */
export async function runLocalAction(
  action: ActionId,
  env: Record<string, string>,
): Promise<LocalActionRun> {
  return withCleanup(async (cleanup) => {
    const temp = await cleanup.tempDir('olympe-local-action-')
    const dotenv = join(temp, '.env')
    const lines = Object.entries({ GITHUB_ACTIONS: 'true', ...env }).map(
      ([name, value]) => `${name}=${JSON.stringify(value)}`,
    )
    await writeFile(dotenv, `${lines.join('\n')}\n`)
    const actionDir = action === 'deploy' ? '.' : `actions/${action}`
    const entry = join(ROOT, 'src/actions', `${action}.ts`)
    const { code, stdout, stderr } = await capture(
      join(ROOT, 'node_modules/.bin/local-action'),
      ['run', actionDir, entry, dotenv],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8' },
        cwd: ROOT,
        timeoutMs: 180_000,
      },
    )
    return { code, stdout, stderr, outputs: reportedOutputs(stdout) }
  })
}

/** Rows of console.table: `│ 0 │ 'payload' │ '{...}' │`. */
function reportedOutputs(stdout: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const table = stdout.slice(stdout.indexOf('Action Outputs'))
  for (const match of table.matchAll(/^│\s*\d+\s*│\s*'([^']+)'\s*│\s*(?:'(.*)'|(\S*))\s*│\s*$/gm))
    outputs[match[1] ?? ''] = match[2] ?? match[3] ?? ''
  return outputs
}

/** A dotenv file as local-action reads it: KEY=value lines; `#` comments and blanks skipped. */
export async function readEnvFile(path: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {}
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    const eq = line.indexOf('=')
    if (line.startsWith('#') || eq < 1) continue
    env[line.slice(0, eq)] = line.slice(eq + 1)
  }
  return env
}
