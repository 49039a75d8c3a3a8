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
import type { ImageKind } from './image-kinds.js'
import { parseBuildImagesInputs, type BuildImagesInputs, type InputFacts } from './inputs.js'
import { dockerfilePath } from './plan/plan.js'
import { sourcesPathFromText, type DockerfileStages } from './sources-path.js'
import { PLACEHOLDER_SOURCE, renderTag, TAG_EXPECTED, type TagFacts } from './plan/tags.js'
import { unique } from '../shared/collections.js'
import { checkAttestations, type AttestationPlan } from './attest/check.js'

export type BuildImagesCheckPorts = Pick<CommonPorts, 'logger' | 'clock' | 'registerSecret'> & {
  files: Pick<Files, 'stat' | 'readText' | 'hashFile' | 'linkTarget' | 'realpath'>
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
      dockerfiles: ReadonlyMap<ImageKind, CheckedDockerfile>
      /** The inputs' registry login, for the registry the images go to. */
      login?: InputsLogin
      /** What each image built is attested with, when `attestations` asks for any. */
      attest?: AttestationPlan
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
  const attest = await checkAttestations(inputs, raw, context, ports)
  return {
    inputs,
    branch: gate.branch,
    tags,
    now,
    dockerfiles,
    ...(login ? { login } : {}),
    ...(attest ? { attest } : {}),
  }
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
 * `docker-folder`.
 */
async function checkDockerfiles(
  inputs: BuildImagesInputs,
  ports: BuildImagesCheckPorts,
  legacy: boolean,
): Promise<Map<ImageKind, CheckedDockerfile>> {
  const problems: string[] = []
  const dockerfiles = new Map<ImageKind, CheckedDockerfile>()
  let missing = false
  for (const kind of inputs.images) {
    const path = dockerfilePath(inputs, kind)
    const full = join(inputs.workingDirectory, path)
    const read = await readDockerfile(full, ports.files)
    if (!read) {
      missing = true
      problems.push(
        `The ${kind} image definition '${path}' does not exist (looked for '${full}'). Expected '${kind}.Dockerfile' in 'docker-folder': add it, or set 'docker-folder' to the folder that holds it.`,
      )
      continue
    }
    const stages = readStages(read.text, inputs.buildArgs)
    const named = { path, sources: inputs.sources[kind], stages }
    const found = sourcesPathFromText(named, inputs.allowUndeclaredSourcesPath)
    problems.push(...found.problems)
    for (const warning of found.warnings) ports.logger.warning(warning)
    const bases = basesOf(read.text, [['SOURCES_PATH', named.sources], ...inputs.buildArgs], inputs)
    dockerfiles.set(kind, { ...named, ...read, askEngine: found.askEngine, bases })
  }
  const mirrors = legacy
    ? legacyMirrorsRefusal(
        'disabled',
        [...dockerfiles.values()].flatMap((each) => each.bases),
      )
    : undefined
  if (mirrors) problems.push(mirrors)
  if (problems.length === 0) return dockerfiles
  const message = `The Dockerfiles cannot be built as they are, so no image was built:\n${problems.map((p) => `- ${p}`).join('\n')}`
  throw missing ? new InputError('docker-folder', message) : new ActionError(message)
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

async function readDockerfile(
  path: string,
  files: BuildImagesCheckPorts['files'],
): Promise<{ text: string; sha256: string } | undefined> {
  if ((await files.stat(path))?.kind !== 'file') return undefined
  try {
    const [text, sha256] = await Promise.all([files.readText(path), files.hashFile(path)])
    return { text, sha256 }
  } catch {
    return undefined
  }
}
