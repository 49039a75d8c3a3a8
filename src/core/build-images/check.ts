import { join } from 'node:path'
import type { RawInputs } from '../definition.js'
import { inputsLogin, type InputsLogin } from '../registry/logins.js'
import type { CiContext } from '../shared/context.js'
import { ActionError, InputError, quote } from '../shared/errors.js'
import type { CommonPorts, Files } from '../shared/ports.js'
import type { BuildImagesInputName } from './definition.js'
import { baseImagesOf } from '../dockerfile/build-inputs.js'
import { readStages } from '../dockerfile/stages.js'
import type { BaseImage } from './builders/build-command.js'
import { legacyWhenBuildkitOff } from './builders/known-builders.js'
import { legacyMirrorsRefusal } from './builders/legacy-builder.js'
import { mirroredReference } from '../registry/mirrors.js'
import { decideGate } from './plan/gate.js'
import { imageNoun, type ImageTarget } from './image-kinds.js'
import { parseBuildImagesInputs, type BuildImagesInputs, type InputFacts } from './inputs.js'
import { defaultDockerfile } from './plan/targets.js'
import { isProblem, type Problem } from '../shared/problem.js'
import { isInside } from '../shared/workspace-file.js'
import { sourcesPathFromText, type DockerfileStages } from './sources-path.js'
import { PLACEHOLDER_SOURCE, renderTag, TAG_EXPECTED, type TagFacts } from './plan/tags.js'
import { unique } from '../shared/collections.js'

export type BuildImagesCheckPorts = Pick<CommonPorts, 'logger' | 'clock' | 'registerSecret'> & {
  files: Pick<Files, 'stat' | 'readText' | 'hashFile' | 'realpath'>
}

/** A Dockerfile read once, in the check phase: its text and digest serve every later use. */
export interface CheckedDockerfile extends DockerfileStages {
  text: string
  /** SHA-256 of its bytes, hex: the fingerprint's part (see reuse). */
  sha256: string
  /**
   * The images it builds FROM or copies from, with the build's arguments, and where a mirror
   * serves them: Docker takes those as named contexts, Buildah from its registries configuration.
   * A `# syntax=` frontend image is none of them: BuildKit pulls it as it is named.
   */
  bases: BaseImage[]
}

/** What the check phase found: nothing to build and why, or everything a build starts from. */
export type CheckedBuildImages = { inputs: BuildImagesInputs } & (
  | { skipped: string }
  | {
      branch: string
      /** Every tag, rendered once: `tag-template`'s first, then `extra-tags`'. */
      tags: string[]
      /** The run's time: `{date}` and the `created` label. */
      now: Date
      /** By image id (ImageTarget): two backends may share one Dockerfile, not its arguments. */
      dockerfiles: ReadonlyMap<string, CheckedDockerfile>
      /** The inputs' registry login, for the registry the images go to. */
      login?: InputsLogin
    }
)

/**
 * The build-images action's check phase: the inputs; the branch gate; every tag, rendered with
 * this run's facts; and each Dockerfile, read once and judged on its text. The sources folders
 * are build outputs, and the base images live in the engine or a registry: the run's pre-flight
 * checks those. `facts`: what the inputs depend on besides the CI context (InputFacts).
 */
export async function checkBuildImages(
  raw: RawInputs<BuildImagesInputName>,
  context: CiContext,
  ports: BuildImagesCheckPorts,
  facts: Omit<InputFacts, keyof CiContext> = {},
): Promise<CheckedBuildImages> {
  const { logger } = ports
  const inputs = parseBuildImagesInputs(raw, { ...context, ...facts })
  // The signing key's opened forms, masked before anything can print them.
  for (const secret of inputs.signingKey?.secrets ?? []) ports.registerSecret(secret)
  const gate = await logger.group('Branch check', () => {
    const decision = decideGate(context, inputs.branches)
    logger.info(
      decision.build
        ? `Branch '${decision.branch}' is one of the branches to build (${decision.branches.join(', ')}).`
        : `Skipped, nothing is built: ${decision.reason}.`,
    )
    return Promise.resolve(decision)
  })
  if (!gate.build) return { inputs, skipped: gate.reason }
  const now = ports.clock.now()
  const tags = renderTags(inputs, {
    branch: gate.branch,
    sha: context.sha,
    runId: context.runId,
    date: now,
  })
  // DOCKER_BUILDKIT false: docker builds with its legacy builder (not Buildah, which ignores it).
  const legacy = facts.buildkitDisabled === true && legacyWhenBuildkitOff(inputs.builder)
  const dockerfiles = await checkDockerfiles(inputs, ports, legacy)
  // The images' one registry: the login is for it (inputs.ts names it), and for no other.
  const login = inputs.registryLogin && inputsLogin(inputs.registryLogin, [])
  return { inputs, branch: gate.branch, tags, now, dockerfiles, ...(login ? { login } : {}) }
}

/** `tag-template`, then each of `extra-tags`, filled with the run's facts; duplicates once. */
export function renderTags(inputs: BuildImagesInputs, facts: TagFacts): string[] {
  return unique([
    tagFrom('tag-template', inputs.tagTemplate, facts),
    ...inputs.extraTags.map((template) => tagFrom('extra-tags', template, facts)),
  ])
}

function tagFrom(input: 'tag-template' | 'extra-tags', template: string, facts: TagFacts): string {
  const rendered = renderTag(template, facts)
  if ('tag' in rendered) return rendered.tag
  const problem =
    'missing' in rendered
      ? `uses {${rendered.missing}}, but ${PLACEHOLDER_SOURCE[rendered.missing]}; remove it from the template`
      : `gives ${quote(rendered.invalid)} in this run, not a valid tag (${TAG_EXPECTED})`
  throw new InputError(input, `Invalid input '${input}' ${quote(template)}: ${problem}.`)
}

/**
 * Each image's Dockerfile, read once (text and digest) and judged on its text (see
 * sourcesPathFromText). Every problem is named at once; a missing Dockerfile is a problem of
 * `docker-folder`, or of `backends` for a backend's own.
 */
async function checkDockerfiles(
  inputs: BuildImagesInputs,
  ports: BuildImagesCheckPorts,
  legacy: boolean,
): Promise<Map<string, CheckedDockerfile>> {
  const problems: string[] = []
  const dockerfiles = new Map<string, CheckedDockerfile>()
  let input: BuildImagesInputName | undefined
  const reads = new Map<string, Promise<DockerfileRead>>()
  for (const target of inputs.targets) {
    const { dockerfile: path } = target
    if (!reads.has(path))
      reads.set(path, readDockerfile(inputs.workingDirectory, path, ports.files))
    const read = await reads.get(path)
    if (!read || isProblem(read)) {
      const said = dockerfileProblem(target, read, inputs)
      input ??= said.input
      problems.push(said.problem)
      continue
    }
    const stages = readStages(read.text, inputs.buildArgs)
    const named = { path, sources: target.sources, stages }
    const found = sourcesPathFromText(named, inputs.allowUndeclaredSourcesPath)
    problems.push(...found.problems)
    for (const warning of found.warnings) ports.logger.warning(warning)
    const bases = basesOf(read.text, [['SOURCES_PATH', named.sources], ...inputs.buildArgs], inputs)
    dockerfiles.set(target.id, { ...named, ...read, askEngine: found.askEngine, bases })
  }
  const mirrors = legacy
    ? legacyMirrorsRefusal(
        'disabled',
        [...dockerfiles.values()].flatMap((each) => each.bases),
      )
    : undefined
  if (mirrors) problems.push(mirrors)
  if (problems.length === 0) return dockerfiles
  const message = `The Dockerfiles cannot be built as they are, so no image was built:\n${unique(
    problems,
  )
    .map((p) => `- ${p}`)
    .join('\n')}`
  throw input ? new InputError(input, message) : new ActionError(message)
}

/**
 * Why a target's Dockerfile cannot be read, and the input to blame: the one of its folder, or
 * `backends` for a backend's own (a missing one, or one that resolves outside the project).
 */
function dockerfileProblem(
  target: ImageTarget,
  read: Problem | undefined,
  inputs: BuildImagesInputs,
): { input: BuildImagesInputName; problem: string } {
  const { dockerfile: path } = target
  const full = join(inputs.workingDirectory, path)
  const own = target.dockerfile !== defaultDockerfile(inputs.dockerFolder, target.kind)
  const what = `The ${imageNoun(target)} image definition '${path}'`
  if (read) return { input: 'backends', problem: `${what} ${read.problem}.` }
  const does = `${what} does not exist (looked for '${full}').`
  if (own)
    return {
      input: 'backends',
      problem: `${does} Expected the Dockerfile that 'dockerfile' names for backend '${target.name ?? ''}' in 'backends': add it, or correct 'dockerfile'.`,
    }
  return {
    input: 'docker-folder',
    problem: `${does} Expected '${target.kind}.Dockerfile' in 'docker-folder': add it, or set 'docker-folder' to the folder that holds it${target.name === undefined ? '' : ` (or give backend '${target.name}' a 'dockerfile' of its own in 'backends')`}.`,
  }
}

/** The Dockerfile's bases as the build names them (its arguments: SOURCES_PATH first). */
function basesOf(
  text: string,
  buildArgs: Array<[string, string]>,
  inputs: BuildImagesInputs,
): BaseImage[] {
  return baseImagesOf(text, buildArgs).map((reference) => {
    const mirrored = mirroredReference(reference, inputs.registryMirrors)
    return mirrored ? { reference, mirrored } : { reference }
  })
}

type DockerfileRead = { text: string; sha256: string } | Problem | undefined

/**
 * A Dockerfile's text and digest; undefined when it is missing; a problem when it resolves
 * outside the project (a committed symbolic link must not make the step read the runner's files).
 */
async function readDockerfile(
  root: string,
  path: string,
  files: BuildImagesCheckPorts['files'],
): Promise<DockerfileRead> {
  const full = join(root, path)
  if ((await files.stat(full))?.kind !== 'file') return undefined
  const [real, project] = await Promise.all([
    files.realpath(full).catch(() => full),
    files.realpath(root).catch(() => root),
  ])
  if (!isInside(project, real))
    return {
      problem: `resolves to ${quote(real)}, outside the project ${quote(project)}; expected a Dockerfile inside it (a symbolic link out of the project is not followed)`,
    }
  try {
    const [text, sha256] = await Promise.all([files.readText(real), files.hashFile(real)])
    return { text, sha256 }
  } catch {
    return undefined
  }
}
