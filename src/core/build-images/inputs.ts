import { basename, resolve } from 'node:path'
import type { InputValues, ParseTools, RawInputs } from '../definition.js'
import { EXISTING_LOGIN, type RegistryLogin, type RegistryTarget } from '../registry/credentials.js'
import { registryLogin } from '../registry/inputs.js'
import { GITHUB_REGISTRY } from '../registry/reference.js'
import { InputProblems, JSON_ONLY, parseInputs } from '../shared/inputs.js'
import { isProblem, type Problem } from '../shared/problem.js'
import type { KeyProblem, SigningKey } from '../signing/private-key.js'
import type { AttestationKind } from '../attestations/kinds.js'
import { attestationsAsked } from './attest/input.js'
import { legacyWhenBuildkitOff } from './builders/known-builders.js'
import { buildImagesDefinition, type BuildImagesInputName } from './definition.js'
import type { NamedBackend } from './backends-input.js'
import { type ImageTarget } from './image-kinds.js'
import { IMAGE_KINDS, type ImageKind } from '../shared/project-images.js'
import type { ImageSelection } from './input-parsers.js'
import { defaultImageName, imageNameProblem } from './plan/image-names.js'
import { imageTargets } from './plan/targets.js'

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
  | 'backends'
  | 'workingDirectory'
  | 'signingKey'
  | 'signingKeyPassword'
  | 'attestations'

/** The build-images action's inputs, validated, with their context-dependent defaults filled. */
export type BuildImagesInputs = Omit<Values, Resolved> & {
  registry: RegistryTarget
  /** The login to `registry` (see registryLogin); without it, the job's Docker login. */
  registryLogin?: RegistryLogin
  imageNames: Record<ImageKind, string>
  /** What to build, in IMAGE_KINDS order: `images`, plus code as data when `codeasdata` is true. */
  images: ImageKind[]
  /**
   * Every image to build, in the order they are reported: one per kind, or with `backends` one
   * per backend (those `images` names alone, else all).
   */
  targets: ImageTarget[]
  /** Relative to workingDirectory, like dockerFolder; the backend's is `backend-sources`'. */
  sources: Record<ImageKind, string>
  /** Absolute: the build context. */
  workingDirectory: string
  /** `signing-key`, opened with `signing-key-password`: every image pushed or re-tagged is signed. */
  signingKey?: SigningKey
  /** What each image built carries, signed with `signingKey`: `attestations`, or its default. */
  attestations: AttestationKind[]
}

/** The facts about the run that input defaults depend on. */
export interface InputFacts {
  platform: 'github' | 'gitlab' | 'local'
  repository?: string
  workspace: string
  /** Where the platform's templates take `registry-password` from (CiContext's). */
  registryPasswordFrom?: string
  /** DOCKER_BUILDKIT is false: docker (not Buildah) builds with the legacy builder. */
  buildkitDisabled?: boolean
  /** Reads `backends` written in YAML: loaded only for a value that is not JSON. */
  parseYaml?: ParseTools['parseYaml']
  /** Opens `signing-key` (private-key.ts): loaded only when one is given. */
  openSigningKey?: (text: string, password: string) => SigningKey | KeyProblem
}

export function parseBuildImagesInputs(
  raw: RawInputs<BuildImagesInputName>,
  facts: InputFacts,
): BuildImagesInputs {
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
    backends,
    signingKey,
    signingKeyPassword,
    attestations,
    ...values
  } = parseInputs(
    buildImagesDefinition,
    raw,
    facts.parseYaml ? { parseYaml: facts.parseYaml } : JSON_ONLY,
  )
  const problems = new InputProblems(buildImagesDefinition, raw)
  if (
    values.buildSecrets.length > 0 &&
    facts.buildkitDisabled &&
    legacyWhenBuildkitOff(values.builder)
  )
    problems.add(
      'build-secrets',
      "is set, but DOCKER_BUILDKIT is false, which makes docker build with the legacy builder: it cannot mount secrets (RUN --mount=type=secret). Unset DOCKER_BUILDKIT (BuildKit is Docker's builder since version 23), or leave 'build-secrets' empty",
    )
  const workingDirectory = resolve(facts.workspace, values.workingDirectory)
  const repository = facts.repository ?? basename(workingDirectory)
  const nameOf = (kind: ImageKind, given: string | undefined): string =>
    problems.take(`${kind}-image-name`, given ?? defaultName(kind, repository), '')
  const target = registry ?? defaultRegistry(facts)
  const known = isProblem(target) ? undefined : target
  const login = registryLogin(known, registryUsername, registryPassword, problems, {
    existing: EXISTING_LOGIN[values.builder],
    passwordFrom: facts.registryPasswordFrom,
  })
  const imageNames = {
    frontend: nameOf('frontend', frontendImageName),
    backend: nameOf('backend', backendImageName),
    codeasdata: nameOf('codeasdata', codeasdataImageName),
  }
  const sources = {
    frontend: frontendSources,
    backend: backendSources ?? DEFAULT_BACKEND_SOURCES,
    codeasdata: codeasdataSources,
  }
  const kinds = IMAGE_KINDS.filter(
    (kind) => images.kinds.includes(kind) || (kind === 'codeasdata' && codeasdata),
  )
  checkBackends(backends, { images, backendSources, imageNames }, problems)
  const inputs: BuildImagesInputs = {
    ...values,
    registry: problems.take('registry', target, GITHUB_TARGET),
    registryLogin: login,
    imageNames,
    images: kinds,
    targets: imageTargets({
      kinds,
      backends,
      only: images.backends,
      imageNames,
      sources,
      dockerFolder: values.dockerFolder,
    }),
    sources,
    workingDirectory,
    attestations: problems.take(
      'attestations',
      attestationsAsked(attestations, signingKey !== undefined),
      { kinds: [] },
    ).kinds,
  }
  const key = openKey(signingKey, signingKeyPassword, facts)
  if (key && isProblem(key)) problems.add(key.input, key.problem)
  else if (key) inputs.signingKey = key
  problems.throwIfAny()
  return inputs
}

/** The signing key opened, or the problem of the input it lies with; undefined without one. */
function openKey(
  text: string | undefined,
  password: string | undefined,
  facts: InputFacts,
): SigningKey | KeyProblem | undefined {
  if (text === undefined)
    return password === undefined
      ? undefined
      : {
          input: 'signing-key-password',
          problem: "is set, but 'signing-key' is empty; give the key it opens, or leave both empty",
        }
  if (!facts.openSigningKey)
    return { input: 'signing-key', problem: 'cannot be opened here (no key reader was loaded)' }
  return facts.openSigningKey(text, password ?? '')
}

const DEFAULT_BACKEND_SOURCES = 'dist/node'

/**
 * `backends` beside the inputs it changes: not with `backend-sources` (each backend names its
 * own); every `backend:<name>` of `images` among them; each image name valid.
 */
function checkBackends(
  backends: readonly NamedBackend[] | undefined,
  given: {
    images: ImageSelection
    backendSources: string | undefined
    imageNames: Record<ImageKind, string>
  },
  problems: InputProblems,
): void {
  const named = given.images.backends
  if (!backends) {
    if (named.length > 0)
      problems.add(
        'images',
        `names ${listed(named.map((name) => `backend:${name}`))}, but 'backends' is empty: a backend is named only among several; set 'backends', or name 'backend'`,
      )
    return
  }
  if (given.backendSources !== undefined)
    problems.add(
      'backends',
      "is set together with 'backend-sources': each backend of 'backends' names its own 'sources'; remove 'backend-sources'",
    )
  const unknown = named.filter((name) => !backends.some((backend) => backend.name === name))
  if (unknown.length > 0)
    problems.add(
      'images',
      `names ${listed(unknown.map((name) => `backend:${name}`))}, but 'backends' lists no backend of that name; expected one of ${listed(backends.map((backend) => `backend:${backend.name}`))}, or 'backend' for all`,
    )
  // A name refused already ('backend-image-name', or its default) is said once.
  if (given.imageNames.backend === '') return
  for (const backend of backends) {
    const name = `${given.imageNames.backend}-${backend.name}`
    const problem = imageNameProblem(name)
    if (problem)
      problems.add(
        'backends',
        `gives the backend '${backend.name}' the image name '${name}' ('backend-image-name' followed by '-${backend.name}'), which is not valid: ${problem}`,
      )
  }
}

/** `'a'`, `'a', 'b'`: names as messages list them. */
function listed(names: readonly string[]): string {
  return names.map((name) => `'${name}'`).join(', ')
}

const GITHUB_TARGET: RegistryTarget = { host: GITHUB_REGISTRY, prefix: GITHUB_REGISTRY }

function defaultRegistry(facts: InputFacts): RegistryTarget | Problem {
  if (facts.platform === 'github') return GITHUB_TARGET
  return {
    problem: "is required outside GitHub; set it to your registry host (on GitLab, '$CI_REGISTRY')",
  }
}

function defaultName(kind: ImageKind, repository: string): string | Problem {
  const name = defaultImageName(repository, kind)
  if (!imageNameProblem(name)) return name
  return {
    problem: `is not set, and the default '${name}' derived from the repository name '${repository}' is not a valid image name; set it`,
  }
}
