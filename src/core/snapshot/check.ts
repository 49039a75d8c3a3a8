import { resolve } from 'node:path'
import type { RawInputs } from '../definition.js'
import type { CiContext } from '../shared/context.js'
import type { Logger } from '../shared/ports.js'
import { checkOutputDir, stopOnProblems, type OutputDirCheck, type OutputRoot } from './boundary.js'
import { loadSnapshotConfig, type ConfigTools, type SnapshotEntry } from './config.js'
import type { SnapshotInputName } from './definition.js'
import { parseSnapshotInputs, type SnapshotInputs } from './inputs.js'
import { checkWorkingFolder, settingWarnings } from './settings.js'

export type SnapshotCheckPorts = ConfigTools & { logger: Logger }

/** What the check phase found: the entries to export, and where they go. */
export interface CheckedSnapshot {
  inputs: SnapshotInputs
  /** Where `config` is read, where the toolkit is installed, and where entries without git go. */
  projectDir: string
  entries: SnapshotEntry[]
  /**
   * Each entry without git, its outputDir checked on the working directory's disk (none on a dry
   * run, which writes those entries to a scratch folder).
   */
  local: Map<SnapshotEntry, OutputDirCheck>
}

/** Where entries without git are written, when the run is not a dry run. */
export const workingRoot = (projectDir: string): OutputRoot => ({
  dir: projectDir,
  label: 'the working directory',
})

/**
 * The snapshot action's check phase: the inputs; the configuration, read and validated whole
 * (its credentials registered as secrets before any of it is parsed); the working directory; and
 * the outputDir of each entry without git, on the working directory's disk. What lives in the
 * repositories (branches, committed links) is read once they are cloned.
 */
export async function checkSnapshot(
  raw: RawInputs<SnapshotInputName>,
  context: Pick<CiContext, 'workspace'>,
  ports: SnapshotCheckPorts,
): Promise<CheckedSnapshot> {
  const { logger } = ports
  const inputs = parseSnapshotInputs(raw)
  const projectDir = resolve(context.workspace, inputs.workingDirectory ?? '.')
  const configPath = resolve(projectDir, inputs.config)
  const { entries } = await logger.group('Configuration', async () => {
    logger.info(`Reading ${inputs.config} in ${projectDir}.`)
    const loaded = await loadSnapshotConfig(configPath, inputs.config, ports)
    for (const warning of [...loaded.warnings, ...settingWarnings(inputs)]) logger.warning(warning)
    for (const entry of loaded.entries) logger.info(describeEntry(entry))
    return loaded
  })
  const locals = entries.filter((entry) => !entry.git)
  if (locals.length > 0) checkWorkingFolder(projectDir)
  const local = new Map<SnapshotEntry, OutputDirCheck>()
  if (!inputs.dryRun) {
    for (const entry of locals)
      local.set(entry, await checkOutputDir(entry, workingRoot(projectDir), ports.files))
  }
  stopOnProblems(local.values())
  return { inputs, projectDir, entries, local }
}

function describeEntry(entry: SnapshotEntry): string {
  const s = entry.snapshooter
  const excluded = s.exclude?.length ? `, excluding ${s.exclude.join(', ')}` : ''
  const into = entry.git
    ? `${s.outputDir} in ${entry.git.repo.display} (branch '${entry.git.branch}')`
    : `${s.outputDir} in the working directory`
  return `Entry '${entry.name}' (${entry.where}): ${s.rootTags.join(', ')}${excluded} -> ${into}`
}
