import { join } from 'node:path'
import { quote } from '../../shared/errors.js'
import type { Files } from '../../shared/ports.js'
import type { Problem } from '../../shared/problem.js'

/**
 * Where the SBOMs go besides the registry, for people and tools that read files: GitLab's
 * dependency list reads the CycloneDX report files a job declares (`artifacts:reports:cyclonedx`,
 * the `gl-sbom-*.cdx.json` names its own scanners write), and a GitHub workflow uploads the
 * folder the `sbom-folder` output names. The same folder and names on both, relative to the
 * workspace (the GitLab templates declare `olympe-sbom/gl-sbom-*.cdx.json`). Not a hidden folder:
 * actions/upload-artifact leaves those out unless told.
 */
export const SBOM_FOLDER = 'olympe-sbom'

/**
 * `gl-sbom-<image>.cdx.json`: `<image>` is the image's id, its kind (`frontend`, `backend`,
 * `codeasdata`) or, for a backend of `backends`, `backend-<name>` (`backend:<name>` with the colon
 * that file names avoid made a hyphen), which no kind can take.
 */
export function sbomFileName(image: string): string {
  return `gl-sbom-${image.replace(':', '-')}.cdx.json`
}

/**
 * The folder, checked before anything is built: absent, or a folder that is no symbolic link (the
 * step writes nothing through a link a commit could point outside the workspace).
 */
export async function sbomFolderProblem(
  workspace: string,
  files: Pick<Files, 'stat' | 'linkTarget'>,
): Promise<Problem | undefined> {
  const folder = join(workspace, SBOM_FOLDER)
  const link = await files.linkTarget(folder)
  const found = link === undefined ? await files.stat(folder) : undefined
  if (link === undefined && (found === undefined || found.kind === 'directory')) return undefined
  return {
    problem: `asks for an SBOM, which the step writes to ${quote(folder)}, and that path is ${link === undefined ? 'not a folder' : `a symbolic link (to ${quote(link)})`}: remove it, or leave 'sbom' out of 'attestations'`,
  }
}
