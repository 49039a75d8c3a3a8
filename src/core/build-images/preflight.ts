import { join } from 'node:path'
import type { RegistryMirrors } from '../registry/mirrors.js'
import { ActionError } from '../shared/errors.js'
import type { Logger } from '../shared/ports.js'
import type { ImageKind } from './image-kinds.js'
import { majorVersion, releaseNumber } from './builders/build-command.js'
import { MIN_BUILDAH } from './builders/buildah-args.js'
import type { ImageBuilder } from './builders/image-builder.js'
import type { Files } from '../shared/ports.js'
import {
  checkSourcesPathDeclared,
  type DockerfileStages,
  type SourcesPathPorts,
} from './sources-path.js'
import type { ImagePlan } from './plan/plan.js'

type ProjectFiles = Pick<Files, 'stat' | 'list' | 'listFilesDeep'>

/** Olympe's deployment process needs Docker 24 or newer. */
export const MIN_DOCKER_MAJOR = 24

export interface Findings {
  problems: string[]
  warnings: string[]
}

const SOURCES_INPUT: Record<ImageKind, string> = {
  frontend: 'frontend-sources',
  backend: 'backend-sources',
  codeasdata: 'codeasdata-sources',
}

/** The project build command whose output each image packs. */
const BUILT_BY: Record<ImageKind, string> = {
  frontend: 'npm run build:draw',
  backend: 'npm run build:node',
  codeasdata: 'npx olympe buildCodeAsData',
}

/**
 * Every check that can fail a build and that the check phase could not make (it read the
 * Dockerfiles): the build outputs, the builder, the base images. Run before the first build: a
 * build that dies at its COPY step after another image was pushed leaves the registry half
 * updated. Resolves to each image's base image as the builder holds it, for the size check after
 * its build.
 */
export async function preflight(
  plans: readonly ImagePlan[],
  options: {
    root: string
    allowUndeclaredSourcesPath: boolean
    mirrors: RegistryMirrors
    dockerfiles: ReadonlyMap<ImageKind, DockerfileStages>
  },
  tools: SourcesPathPorts & { files: ProjectFiles },
): Promise<Map<ImageKind, string | undefined>> {
  const { dockerfiles } = options
  const project = await checkProject(plans, options.root, tools.files)
  const engine = await checkBuilder(tools.builder, tools.logger)
  const findings = [project, engine]
  // Reading base images needs a builder that runs; after another problem, no pull is worth it.
  const ready = project.problems.length === 0 && engine.problems.length === 0
  const sourcesPath = ready
    ? await checkSourcesPathDeclared(
        plans,
        dockerfiles,
        { allowUnreadable: options.allowUndeclaredSourcesPath, mirrors: options.mirrors },
        tools,
      )
    : undefined
  if (sourcesPath) findings.push(sourcesPath)
  for (const warning of findings.flatMap((f) => f.warnings)) tools.logger.warning(warning)
  const problems = findings.flatMap((f) => f.problems)
  if (problems.length === 0) return sourcesPath?.bases ?? new Map<ImageKind, string | undefined>()
  throw new ActionError(
    `The pre-flight checks failed, so no image was built:\n${problems.map((p) => `- ${p}`).join('\n')}`,
  )
}

/** The sources folders: build outputs, which do not exist before the build. */
async function checkProject(
  plans: readonly ImagePlan[],
  root: string,
  files: ProjectFiles,
): Promise<Findings> {
  const findings: Findings = { problems: [], warnings: [] }
  for (const plan of plans) await checkSources(plan, root, files, findings)
  return findings
}

async function checkSources(
  plan: ImagePlan,
  root: string,
  files: ProjectFiles,
  findings: Findings,
): Promise<void> {
  const path = join(root, plan.sources)
  const kind = (await files.stat(path))?.kind
  const fix = `Run '${BUILT_BY[plan.kind]}' before this step, or set '${SOURCES_INPUT[plan.kind]}' to the folder your build writes.`
  if (kind === undefined) {
    findings.problems.push(
      `The ${plan.kind} sources folder '${plan.sources}' does not exist (looked for '${path}'). Expected the project's built ${plan.kind}. ${fix}`,
    )
  } else if (kind !== 'directory') {
    findings.problems.push(
      `The ${plan.kind} sources '${plan.sources}' is not a folder. Expected the folder of the built ${plan.kind}. ${fix}`,
    )
  } else if ((await files.list(path).catch(() => undefined))?.length === 0) {
    findings.problems.push(
      `The ${plan.kind} sources folder '${plan.sources}' is empty: the image would hold no application. ${fix}`,
    )
  }
}

/** The builder's own checks: the one the run builds with. */
function checkBuilder(builder: ImageBuilder, logger: Logger): Promise<Findings> {
  return builder.name === 'buildah' ? checkBuildah(builder, logger) : checkDocker(builder, logger)
}

async function checkBuildah(buildah: ImageBuilder, logger: Logger): Promise<Findings> {
  const findings: Findings = { problems: [], warnings: [] }
  const versions = await buildah.versions()
  const minimum = `${MIN_BUILDAH.major}.${MIN_BUILDAH.minor}`
  if (!versions.client) {
    findings.problems.push(
      `Buildah could not be run: ${versions.problem ?? 'no version answer'}. Install Buildah ${minimum} or newer on the runner (Debian: apt-get install buildah uidmap) and put 'buildah' on PATH.`,
    )
    return findings
  }
  logger.info(
    `Buildah ${versions.client}, building for ${versions.platform ?? 'an unknown platform'}`,
  )
  const release = releaseNumber(versions.client)
  const old =
    release &&
    (release.major < MIN_BUILDAH.major ||
      (release.major === MIN_BUILDAH.major && release.minor < MIN_BUILDAH.minor))
  if (!release)
    findings.warnings.push(
      `Buildah version '${versions.client}' is not a release number; Buildah ${minimum} or newer is required, so builds may fail.`,
    )
  else if (old)
    findings.problems.push(
      `Buildah '${versions.client}' is too old: build-images needs Buildah ${minimum} or newer (build secrets from the environment, no label of Buildah's own on the image). Upgrade Buildah on the runner.`,
    )
  return findings
}

export async function checkDocker(docker: ImageBuilder, logger: Logger): Promise<Findings> {
  const findings: Findings = { problems: [], warnings: [] }
  const versions = await docker.versions()
  if (!versions.client) {
    findings.problems.push(
      `Docker could not be run: ${versions.problem ?? 'no version answer'}. Install Docker ${MIN_DOCKER_MAJOR} or newer on the runner and put 'docker' on PATH.`,
    )
    return findings
  }
  logger.info(`Docker client ${versions.client}, daemon ${versions.server ?? 'not answering'}`)
  const major = majorVersion(versions.client)
  if (major === undefined) {
    findings.warnings.push(
      `Docker client version '${versions.client}' is not a release number; Docker ${MIN_DOCKER_MAJOR} or newer is required, so builds may fail.`,
    )
  } else if (major < MIN_DOCKER_MAJOR) {
    findings.problems.push(
      `Docker client '${versions.client}' is too old: the project needs Docker ${MIN_DOCKER_MAJOR} or newer. Upgrade Docker on the runner.`,
    )
  }
  if (!versions.server) {
    findings.problems.push(
      `The Docker daemon does not answer${versions.problem ? ` (${versions.problem})` : ''}. Start it, or point DOCKER_HOST at a running one.`,
    )
  }
  return findings
}
