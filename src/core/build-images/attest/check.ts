import { join, relative } from 'node:path'
import { unknownFact } from '../../attestations/facts.js'
import type { AttestationKind } from '../../attestations/kinds.js'
import { readLockFile, type LockFile } from '../../attestations/lock-file.js'
import type { RawInputs } from '../../definition.js'
import type { CiContext } from '../../shared/context.js'
import { InputError } from '../../shared/errors.js'
import { describeInputProblem } from '../../shared/inputs.js'
import type { Files } from '../../shared/ports.js'
import { isProblem, type Problem } from '../../shared/problem.js'
import { readWorkspaceFile } from '../../shared/workspace-file.js'
import { buildImagesDefinition, type BuildImagesInputName } from '../definition.js'
import type { BuildImagesInputs } from '../inputs.js'
import { LOCK_FILES } from '../plan/draw-version.js'
import { sbomFolderProblem } from './sbom-files.js'

/** What the run attests, decided in the check phase with everything it reads before a build. */
export interface AttestationPlan {
  kinds: AttestationKind[]
  /** The lock file npm installed from (its path relative to the workspace); none found: undefined. */
  lockFile?: LockFile
  /** The inputs that shape an image and were set to other than their default (only names are attested). */
  inputs: Readonly<Record<string, string>>
}

export type AttestationCheckPorts = {
  files: Pick<Files, 'stat' | 'linkTarget' | 'realpath' | 'readText' | 'hashFile'>
}

/** A lock file is megabytes at most: one far larger is no lock file. */
const MAX_LOCK_FILE_BYTES = 64 * 1024 * 1024

/**
 * The inputs that go into an image: set to other than their default, their names are attested
 * (`<kind>-sources` for that kind's image only, `backends` for the backends' images). Image names and tags do not change what is in
 * an image, and the registry and its login are where it goes.
 */
const SHAPING_INPUTS: readonly BuildImagesInputName[] = [
  'working-directory',
  'docker-folder',
  'frontend-sources',
  'backend-sources',
  'codeasdata-sources',
  'backends',
  'build-args',
  'build-secrets',
  'builder',
  'platform',
  'cache-from',
  'registry-mirrors',
  'draw-version',
  'allow-undeclared-sources-path',
]

/**
 * With attestations asked for: what a provenance needs of the CI context (the repository and the
 * builder), the lock file (read whole for an SBOM), and the SBOMs' folder; each problem refuses
 * the run as a problem of `attestations`, before anything is built. Undefined when none is asked.
 */
export async function checkAttestations(
  inputs: BuildImagesInputs,
  raw: RawInputs<BuildImagesInputName>,
  context: Pick<CiContext, 'platform' | 'workspace' | 'repositoryUrl' | 'builderId'>,
  ports: AttestationCheckPorts,
): Promise<AttestationPlan | undefined> {
  const kinds = inputs.attestations
  if (kinds.length === 0) return undefined
  const refuse = (problem: string): never => {
    const asked =
      raw.attestations.trim() === ''
        ? `is empty, which with 'signing-key' asks for '${kinds.join(',')}'; `
        : ''
    throw new InputError(
      'attestations',
      describeInputProblem(buildImagesDefinition, raw, 'attestations', `${asked}${problem}`),
    )
  }
  const unknown = !context.repositoryUrl ? 'repository' : !context.builderId ? 'builder' : undefined
  if (unknown)
    refuse(
      `an attestation names the repository and the run that built the image, and this run does not know the ${unknown} (${unknownFact(context.platform, unknown)}); run the step in a CI job, or set 'attestations' to 'none'`,
    )
  const sbom = kinds.includes('sbom')
  if (sbom) {
    const folder = await sbomFolderProblem(context.workspace, ports.files)
    if (folder) refuse(folder.problem)
  }
  const lockFile = await lockFileOf(inputs.workingDirectory, context.workspace, sbom, ports)
  if (isProblem(lockFile))
    refuse(
      `asks for an SBOM, which lists the npm packages of the project's lock file, and ${lockFile.problem}; or leave 'sbom' out of 'attestations'`,
    )
  return {
    kinds,
    ...(lockFile && !isProblem(lockFile) ? { lockFile } : {}),
    inputs: shapingInputs(raw),
  }
}

/**
 * The lock file npm installs from (a shrinkwrap wins over package-lock.json), read whole for an
 * SBOM; for a provenance alone, only its digest. Undefined when the project has none.
 */
async function lockFileOf(
  root: string,
  workspace: string,
  sbom: boolean,
  ports: AttestationCheckPorts,
): Promise<LockFile | Problem | undefined> {
  const { files } = ports
  for (const name of LOCK_FILES) {
    const full = join(root, name)
    if (!(await files.stat(full))) continue
    const path = relative(workspace, full)
    const read = await readWorkspaceFile(path, workspace, files, MAX_LOCK_FILE_BYTES, {
      missing: 'it went away while the step read it',
      outside: 'a lock file is read in the workspace only',
      notAFile: () => `'${path}' is not a file`,
      tooLarge: (size) => `'${path}' holds ${size} bytes, more than a lock file does`,
    })
    if (isProblem(read)) return { problem: `'${path}' cannot be read: ${read.problem}` }
    if (sbom) return readLockFile(path, read.text)
    return { path, digest: `sha256:${await files.hashFile(full)}`, packages: [] }
  }
  return undefined
}

/** The inputs of SHAPING_INPUTS that differ from their default, as given. */
function shapingInputs(raw: RawInputs<BuildImagesInputName>): Record<string, string> {
  const defaults: Partial<Record<string, string>> = Object.fromEntries(
    Object.entries(buildImagesDefinition.inputs).map(([name, spec]) => [
      name,
      'default' in spec ? spec.default : '',
    ]),
  )
  return Object.fromEntries(
    SHAPING_INPUTS.filter((name) => raw[name].trim() !== (defaults[name] ?? '')).map((name) => [
      name,
      raw[name],
    ]),
  )
}
