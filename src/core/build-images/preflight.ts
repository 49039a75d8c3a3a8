import { join } from 'node:path'
import type { RegistryMirrors } from '../registry/mirrors.js'
import { unique } from '../shared/collections.js'
import { ActionError } from '../shared/errors.js'
import type { Logger } from '../shared/ports.js'
import { imageNoun } from './image-kinds.js'
import { type ImageKind } from '../shared/project-images.js'
import type { Findings } from './builders/descriptor.js'
import type { ImageBuilder } from './builders/image-builder.js'
import { builderNamed } from './builders/known-builders.js'
import type { Files } from '../shared/ports.js'
import {
  checkSourcesPathDeclared,
  type DockerfileStages,
  type SourcesPathPorts,
} from './sources-path.js'
import type { ImagePlan } from './plan/plan.js'

type ProjectFiles = Pick<Files, 'stat' | 'list' | 'listFilesDeep'>

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
    /** By image id. */
    dockerfiles: ReadonlyMap<string, DockerfileStages>
  },
  tools: SourcesPathPorts & { files: ProjectFiles },
): Promise<Map<string, string | undefined>> {
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
  // Backends that share a Dockerfile share what is said of it: once.
  for (const warning of unique(findings.flatMap((f) => f.warnings))) tools.logger.warning(warning)
  const problems = unique(findings.flatMap((f) => f.problems))
  if (problems.length === 0) return sourcesPath?.bases ?? new Map<string, string | undefined>()
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
  const input =
    plan.name === undefined ? `'${SOURCES_INPUT[plan.kind]}'` : `its 'sources' in 'backends'`
  const fix = `Run '${BUILT_BY[plan.kind]}' before this step, or set ${input} to the folder your build writes.`
  const noun = imageNoun(plan)
  if (kind === undefined) {
    findings.problems.push(
      `The ${noun} sources folder '${plan.sources}' does not exist (looked for '${path}'). Expected the project's built ${noun}. ${fix}`,
    )
  } else if (kind !== 'directory') {
    findings.problems.push(
      `The ${noun} sources '${plan.sources}' is not a folder. Expected the folder of the built ${noun}. ${fix}`,
    )
  } else if ((await files.list(path).catch(() => undefined))?.length === 0) {
    findings.problems.push(
      `The ${noun} sources folder '${plan.sources}' is empty: the image would hold no application. ${fix}`,
    )
  }
}

/** The builder's own checks: the one the run builds with. */
function checkBuilder(builder: ImageBuilder, logger: Logger): Promise<Findings> {
  return builderNamed(builder.name).preflight(builder, logger)
}
