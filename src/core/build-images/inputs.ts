import { basename, resolve } from 'node:path'
import * as v from 'valibot'
import type { RawInputs } from '../definition.js'
import { InputError } from '../shared/errors.js'
import { describeInputProblem, parseInputs } from '../shared/inputs.js'
import { booleanInput, optionalText } from '../shared/parse.js'
import {
  buildImagesDefinition,
  IMAGE_KINDS,
  type BuildImagesInputName,
  type ImageKind,
} from './definition.js'
import {
  defaultImageName,
  GITHUB_REGISTRY,
  imageNameProblem,
  type RegistryTarget,
} from './image-names.js'
import {
  branches,
  buildArgs,
  cacheFrom,
  drawVersion,
  extraTags,
  imageName,
  images,
  platform,
  registry,
  relativeFolder,
  tagTemplate,
} from './input-fields.js'

/** The build-images action's inputs, validated, with their context-dependent defaults filled. */
export interface BuildImagesInputs {
  registry: RegistryTarget
  credentials?: { username: string; password: string }
  imageNames: Record<ImageKind, string>
  tagTemplate: string
  extraTags: string[]
  /** What to build, in IMAGE_KINDS order: `images`, plus code as data when `codeasdata` is true. */
  images: ImageKind[]
  push: boolean
  /** Undefined: the repository's default branch. */
  branches?: string[]
  /** Relative to workingDirectory, like the sources. */
  dockerFolder: string
  sources: Record<ImageKind, string>
  drawVersion?: string
  /** Build when a base image cannot be read to tell whether it declares SOURCES_PATH. */
  allowUndeclaredSourcesPath: boolean
  buildArgs: Array<[name: string, value: string]>
  platform?: string
  cacheFrom: string[]
  /** Absolute: the build context. */
  workingDirectory: string
}

/** The facts about the run that input defaults depend on. */
export interface InputFacts {
  platform: 'github' | 'gitlab' | 'local'
  repository?: string
  workspace: string
}

const BuildImagesInputsSchema = v.object({
  registry,
  'registry-username': optionalText,
  'registry-password': optionalText,
  'frontend-image-name': imageName,
  'backend-image-name': imageName,
  'codeasdata-image-name': imageName,
  'tag-template': tagTemplate,
  'extra-tags': extraTags,
  images,
  codeasdata: booleanInput,
  push: booleanInput,
  branches,
  'docker-folder': relativeFolder('folder of the Dockerfiles'),
  'frontend-sources': relativeFolder('frontend build output folder'),
  'backend-sources': relativeFolder('backend build output folder'),
  'codeasdata-sources': relativeFolder('code-as-data build output folder'),
  'draw-version': drawVersion,
  'allow-undeclared-sources-path': booleanInput,
  'build-args': buildArgs,
  platform,
  'cache-from': cacheFrom,
  'working-directory': v.pipe(
    v.string(),
    v.check((raw) => raw !== '', "is empty; expected the project root, such as '.'"),
  ),
})

type Parsed = v.InferOutput<typeof BuildImagesInputsSchema>
type Raw = RawInputs<BuildImagesInputName>

export function parseBuildImagesInputs(raw: Raw, facts: InputFacts): BuildImagesInputs {
  const i = parseInputs(buildImagesDefinition, BuildImagesInputsSchema, raw)
  const workingDirectory = resolve(facts.workspace, i['working-directory'])
  return {
    registry: registryOrDefault(i.registry, facts, raw),
    credentials: credentials(i, raw),
    imageNames: imageNames(i, raw, facts.repository ?? basename(workingDirectory)),
    tagTemplate: i['tag-template'],
    extraTags: i['extra-tags'],
    images: IMAGE_KINDS.filter(
      (kind) => i.images.includes(kind) || (kind === 'codeasdata' && i.codeasdata),
    ),
    push: i.push,
    branches: i.branches,
    dockerFolder: i['docker-folder'],
    sources: {
      frontend: i['frontend-sources'],
      backend: i['backend-sources'],
      codeasdata: i['codeasdata-sources'],
    },
    drawVersion: i['draw-version'],
    allowUndeclaredSourcesPath: i['allow-undeclared-sources-path'],
    buildArgs: i['build-args'],
    platform: i.platform,
    cacheFrom: i['cache-from'],
    workingDirectory,
  }
}

function problem(raw: Raw, input: BuildImagesInputName, text: string): InputError {
  return new InputError(input, describeInputProblem(buildImagesDefinition, raw, input, text))
}

function registryOrDefault(
  given: RegistryTarget | undefined,
  facts: InputFacts,
  raw: Raw,
): RegistryTarget {
  if (given) return given
  if (facts.platform === 'github') return { host: GITHUB_REGISTRY, prefix: GITHUB_REGISTRY }
  throw problem(
    raw,
    'registry',
    "is required outside GitHub; set it to your registry host (on GitLab, '$CI_REGISTRY')",
  )
}

function credentials(i: Parsed, raw: Raw): BuildImagesInputs['credentials'] {
  const username = i['registry-username']
  const password = i['registry-password']
  // Basic auth joins them as user:password (RFC 7617), and docker login reads one line.
  if (username && /[:\p{Cc}]/u.test(username))
    throw problem(
      raw,
      'registry-username',
      'holds a colon or a control character (a line break, a tab), which no registry user name can; expected the user name alone',
    )
  if (username && password) return { username, password }
  if (username)
    throw problem(
      raw,
      'registry-password',
      "is empty while 'registry-username' is set; give both to log in, or neither to use the existing Docker login",
    )
  if (password)
    throw problem(
      raw,
      'registry-username',
      "is empty while 'registry-password' is set; give both to log in, or neither to use the existing Docker login",
    )
  return undefined
}

function imageNames(i: Parsed, raw: Raw, repository: string): Record<ImageKind, string> {
  const names = {} as Record<ImageKind, string>
  for (const kind of IMAGE_KINDS) {
    const input = `${kind}-image-name` as const
    const name = i[input] ?? defaultImageName(repository, kind)
    if (imageNameProblem(name))
      throw problem(
        raw,
        input,
        `is not set, and the default '${name}' derived from the repository name '${repository}' is not a valid image name; set it`,
      )
    names[kind] = name
  }
  return names
}
