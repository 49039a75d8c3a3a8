import { basename, resolve } from 'node:path'
import type { InputValues, RawInputs } from '../definition.js'
import { isLoginProblem, loginFromInputs, type RegistryTarget } from '../registry/credentials.js'
import { inputProblem, parseInputs } from '../shared/inputs.js'
import { buildImagesDefinition, type BuildImagesInputName } from './definition.js'
import { IMAGE_KINDS, type ImageKind } from './image-kinds.js'
import { defaultImageName, GITHUB_REGISTRY, imageNameProblem } from './image-names.js'

type Values = InputValues<typeof buildImagesDefinition>

/** Inputs that are read together, or whose default depends on the run: resolved below. */
type Resolved =
  | 'registry'
  | 'registryUsername'
  | 'registryPassword'
  | `${ImageKind}ImageName`
  | `${ImageKind}Sources`
  | 'images'
  | 'codeasdata'
  | 'workingDirectory'

/** The build-images action's inputs, validated, with their context-dependent defaults filled. */
export type BuildImagesInputs = Omit<Values, Resolved> & {
  registry: RegistryTarget
  credentials?: { username: string; password: string }
  imageNames: Record<ImageKind, string>
  /** What to build, in IMAGE_KINDS order: `images`, plus code as data when `codeasdata` is true. */
  images: ImageKind[]
  /** Relative to workingDirectory, like dockerFolder. */
  sources: Record<ImageKind, string>
  /** Absolute: the build context. */
  workingDirectory: string
}

/** The facts about the run that input defaults depend on. */
export interface InputFacts {
  platform: 'github' | 'gitlab' | 'local'
  repository?: string
  workspace: string
  /** DOCKER_BUILDKIT is false: docker builds with the legacy builder. */
  buildkitDisabled?: boolean
}

type Raw = RawInputs<BuildImagesInputName>

export function parseBuildImagesInputs(raw: Raw, facts: InputFacts): BuildImagesInputs {
  const {
    registry,
    registryUsername,
    registryPassword,
    frontendImageName,
    backendImageName,
    codeasdataImageName,
    frontendSources,
    backendSources,
    codeasdataSources,
    images,
    codeasdata,
    ...values
  } = parseInputs(buildImagesDefinition, raw)
  const login = loginFromInputs(registryUsername, registryPassword)
  if (isLoginProblem(login))
    throw inputProblem(buildImagesDefinition, raw, login.input, login.problem)
  if (values.buildSecrets.length > 0 && facts.buildkitDisabled)
    throw inputProblem(
      buildImagesDefinition,
      raw,
      'build-secrets',
      "is set, but DOCKER_BUILDKIT is false, which makes docker build with the legacy builder: it cannot mount secrets (RUN --mount=type=secret). Unset DOCKER_BUILDKIT (BuildKit is Docker's builder since version 23), or leave 'build-secrets' empty",
    )
  const workingDirectory = resolve(facts.workspace, values.workingDirectory)
  const repository = facts.repository ?? basename(workingDirectory)
  return {
    ...values,
    registry: registry ?? defaultRegistry(facts, raw),
    credentials: login,
    imageNames: {
      frontend: imageNameOrDefault(frontendImageName, 'frontend', repository, raw),
      backend: imageNameOrDefault(backendImageName, 'backend', repository, raw),
      codeasdata: imageNameOrDefault(codeasdataImageName, 'codeasdata', repository, raw),
    },
    images: IMAGE_KINDS.filter(
      (kind) => images.includes(kind) || (kind === 'codeasdata' && codeasdata),
    ),
    sources: { frontend: frontendSources, backend: backendSources, codeasdata: codeasdataSources },
    workingDirectory,
  }
}

function defaultRegistry(facts: InputFacts, raw: Raw): RegistryTarget {
  if (facts.platform === 'github') return { host: GITHUB_REGISTRY, prefix: GITHUB_REGISTRY }
  throw inputProblem(
    buildImagesDefinition,
    raw,
    'registry',
    "is required outside GitHub; set it to your registry host (on GitLab, '$CI_REGISTRY')",
  )
}

function imageNameOrDefault(
  given: string | undefined,
  kind: ImageKind,
  repository: string,
  raw: Raw,
): string {
  if (given) return given
  const name = defaultImageName(repository, kind)
  if (imageNameProblem(name))
    throw inputProblem(
      buildImagesDefinition,
      raw,
      `${kind}-image-name`,
      `is not set, and the default '${name}' derived from the repository name '${repository}' is not a valid image name; set it`,
    )
  return name
}
