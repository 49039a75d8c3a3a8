import { join } from 'node:path'
import type { Files } from '../shared/ports.js'
import { versionField } from './draw-version.js'

/** The project's own version, the OCI `version` label; where it was read, for the log. */
export interface ProjectVersion {
  value: string
  source: string
}

/**
 * The official template's webpack build writes the project's `version` into the frontend's
 * version.json; a project that does not has it in its package.json. Neither: no label.
 */
export async function resolveProjectVersion(
  project: { root: string; frontendSources: string },
  files: Pick<Files, 'readText'>,
): Promise<ProjectVersion | undefined> {
  for (const file of [join(project.frontendSources, 'version.json'), 'package.json']) {
    const text = await files.readText(join(project.root, file)).catch(() => undefined)
    if (text === undefined) continue
    const value = versionField(text, 'version')
    if (typeof value === 'string') return { value, source: file }
  }
  return undefined
}
