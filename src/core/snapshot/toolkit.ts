import { join } from 'node:path'
import { ActionError, errorMessage, quote } from '../shared/errors.js'
import { commandLine } from '../shared/exec.js'
import type { SnapshotEntry } from './config.js'
import type { SnapshotPorts } from './ports.js'

export interface ToolkitSettings {
  argv: string[]
  /** ORCHESTRATOR_HOST, ORCHESTRATOR_SERVICE_PORT, DRAW_USERNAME, DRAW_PASSWORD: those given. */
  env: Record<string, string>
  /** Where the per-entry SNAPSHOT_CONFIG files go: outside every clone, so never committed. */
  tempDir: string
}

const KEPT_LINES = 5

/**
 * Runs the toolkit for one entry, with `cwd` as its working folder so that the relative
 * `outputDir` lands there. The toolkit gets the entry without its `git` object: it only writes
 * files, and the action does all the git work. One run per entry, so a failure names its entry.
 */
export async function exportEntry(
  entry: SnapshotEntry,
  index: number,
  cwd: string,
  settings: ToolkitSettings,
  tools: Pick<SnapshotPorts, 'exec' | 'files' | 'logger' | 'redact'>,
): Promise<void> {
  const configFile = join(settings.tempDir, `toolkit-config-${index + 1}.json`)
  await tools.files.writeText(
    configFile,
    `${JSON.stringify([{ snapshooter: entry.snapshooter }], null, 2)}\n`,
  )
  const [program = '', ...args] = settings.argv
  tools.logger.info(`$ ${commandLine(program, args)}   (in ${cwd})`)
  const last: string[] = []
  let result
  try {
    result = await tools.exec(program, args, {
      cwd,
      env: { ...settings.env, SNAPSHOT_CONFIG: configFile },
      onLine: (line) => {
        tools.logger.info(line)
        if (line.trim() !== '') last.push(tools.redact(line))
        if (last.length > KEPT_LINES) last.shift()
      },
    })
  } catch (error) {
    throw new ActionError(
      `Could not start the toolkit for entry '${entry.name}': ${quote(program)} ${errorMessage(error)}. Install the toolkit in your project (npm install --save-dev @olympeio/toolkit, then npm ci in the job) or set 'toolkit-command'. Nothing was committed or pushed.`,
    )
  }
  if (result.code !== 0) {
    const tail =
      last.length > 0 ? ` Its last output:\n${last.map((l) => `    ${l}`).join('\n')}\n` : ' '
    throw new ActionError(
      `The toolkit failed (exit code ${result.code}) exporting entry '${entry.name}' (${entry.where}), so nothing was committed or pushed.${tail}Check 'orchestrator-host', 'orchestrator-port', 'draw-username' and 'draw-password', that the toolkit is installed in 'working-directory' (npm ci), and the entry's rootTags.`,
    )
  }
}

export function toolkitEnv(settings: {
  orchestratorHost?: string
  orchestratorPort?: number
  drawUsername?: string
  drawPassword?: string
}): Record<string, string> {
  const env: Record<string, string> = {}
  if (settings.orchestratorHost) env.ORCHESTRATOR_HOST = settings.orchestratorHost
  if (settings.orchestratorPort) env.ORCHESTRATOR_SERVICE_PORT = String(settings.orchestratorPort)
  if (settings.drawUsername) env.DRAW_USERNAME = settings.drawUsername
  if (settings.drawPassword) env.DRAW_PASSWORD = settings.drawPassword
  return env
}
