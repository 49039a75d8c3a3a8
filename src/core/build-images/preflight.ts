import { join } from 'node:path'
import type { RegistryMirrors } from '../registry/mirrors.js'
import { ActionError } from '../shared/errors.js'
import type { Logger } from '../shared/ports.js'
import type { ImageKind } from './image-kinds.js'
import { majorVersion, releaseNumber } from './build-command.js'
import { MIN_BUILDAH } from './buildah-args.js'
import type { ImageBuilder } from './ports.js'
import type { Files } from '../shared/ports.js'
import { checkSourcesPathDeclared, type SourcesPathPorts } from './sources-path.js'
import type { ImagePlan } from './plan.js'

type ProjectFiles = Pick<Files, 'stat' | 'readText' | 'list' | 'listFilesDeep'>

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
 * Every check that can fail a build, run before the first one: a build that dies at its COPY
 * step after another image was pushed leaves the registry half updated.
 */
export async function preflight(
  plans: readonly ImagePlan[],
  options: { root: string; allowUndeclaredSourcesPath: boolean; mirrors: RegistryMirrors },
  tools: SourcesPathPorts & { files: ProjectFiles },
): Promise<Checked> {
  const { dockerfiles, ...project } = await checkProject(plans, options.root, tools.files)
  const engine = await checkBuilder(tools.builder, tools.logger)
  const findings = [project, engine]
  // Reading base images needs the Dockerfiles and a builder that runs.
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
  if (problems.length === 0)
    return { bases: sourcesPath?.bases ?? new Map<ImageKind, string | undefined>(), dockerfiles }
  throw new ActionError(
    `The pre-flight checks failed, so no image was built:\n${problems.map((p) => `- ${p}`).join('\n')}`,
  )
}

/** What the checks read, for later phases. */
export interface Checked {
  /** Each image's base image as the builder holds it, for the size check after its build. */
  bases: Map<ImageKind, string | undefined>
  /** Each Dockerfile's text. */
  dockerfiles: Map<ImageKind, string>
}

/** The Dockerfiles and sources folders; each Dockerfile's text, read once, for later checks. */
async function checkProject(
  plans: readonly ImagePlan[],
  root: string,
  files: ProjectFiles,
): Promise<Findings & { dockerfiles: Map<ImageKind, string> }> {
  const findings = { problems: [], warnings: [], dockerfiles: new Map<ImageKind, string>() }
  for (const plan of plans) {
    const text = await readDockerfile(plan, root, files, findings)
    if (text !== undefined) findings.dockerfiles.set(plan.kind, text)
    await checkSources(plan, root, files, findings)
  }
  return findings
}

async function readDockerfile(
  plan: ImagePlan,
  root: string,
  files: ProjectFiles,
  findings: Findings,
): Promise<string | undefined> {
  const path = join(root, plan.dockerfile)
  const text =
    (await files.stat(path))?.kind === 'file'
      ? await files.readText(path).catch(() => undefined)
      : undefined
  if (text === undefined) {
    findings.problems.push(
      `The ${plan.kind} image definition '${plan.dockerfile}' does not exist (looked for '${path}'). Expected '${plan.kind}.Dockerfile' in 'docker-folder': add it, or set 'docker-folder' to the folder that holds it.`,
    )
  }
  return text
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
export function checkBuilder(builder: ImageBuilder, logger: Logger): Promise<Findings> {
  return builder.name === 'buildah' ? checkBuildah(builder, logger) : checkDocker(builder, logger)
}

export async function checkBuildah(buildah: ImageBuilder, logger: Logger): Promise<Findings> {
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
      `Buildah '${versions.client}' is too old: build-images needs Buildah ${minimum} or newer (build secrets from the environment, a layer per step). Upgrade Buildah on the runner.`,
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
