import { basename, isAbsolute, normalize, resolve } from 'node:path'
import * as v from 'valibot'
import type { RawInputs } from '../definition.js'
import { InputError } from '../shared/errors.js'
import { describeInputProblem, parseInputs, refine } from '../shared/inputs.js'
import { booleanInput, optionalText, parseList } from '../shared/parse.js'
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
  parseRegistry,
  type RegistryTarget,
} from './image-names.js'
import { templateProblem } from './tags.js'

/** The build-images action's inputs, validated, with their context-dependent defaults filled. */
export interface BuildImagesInputs {
  registry: RegistryTarget
  credentials?: { username: string; password: string }
  imageNames: Record<ImageKind, string>
  tagTemplate: string
  extraTags: string[]
  codeasdata: boolean
  push: boolean
  /** Undefined: the repository's default branch. */
  branches?: string[]
  /** Relative to workingDirectory, like the sources. */
  dockerFolder: string
  sources: Record<ImageKind, string>
  drawVersion?: string
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

/** Lines only: build arguments and cache sources may hold commas (`type=registry,ref=…`). */
const lines = (raw: string): string[] =>
  raw
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')

const registry = refine<RegistryTarget | undefined>((raw) =>
  raw === '' ? undefined : parseRegistry(raw),
)

const imageName = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  const problem = imageNameProblem(raw)
  return problem ? { problem } : raw
})

const tagTemplate = refine((raw) => {
  const problem = templateProblem(raw)
  return problem ? { problem } : raw
})

const extraTags = refine((raw) => {
  const tags = parseList(raw)
  for (const tag of tags) {
    const problem = templateProblem(tag)
    if (problem) return { problem: `tag '${tag}' ${problem}` }
  }
  return tags
})

const branches = refine<string[] | undefined>((raw) => {
  const names = parseList(raw)
  const bad = names.find((name) => /\s/.test(name))
  if (bad !== undefined)
    return { problem: `branch '${bad}' contains a space; expected branch names` }
  return names.length === 0 ? undefined : names
})

const relativeFolder = (what: string): v.GenericSchema<string, string> =>
  refine((raw) => {
    if (raw === '') return { problem: `is empty; expected the ${what}` }
    if (isAbsolute(raw))
      return {
        problem: `is absolute; expected the ${what} relative to 'working-directory', the build context`,
      }
    const normal = normalize(raw)
    if (normal === '..' || normal.startsWith('../'))
      return {
        problem: `is outside 'working-directory', the build context, where docker cannot read it; expected the ${what} inside the project`,
      }
    return normal.replace(/\/+$/, '')
  })

const drawVersion = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (raw.length > 128 || !/^[\x21-\x7e]+$/.test(raw))
    return { problem: 'expected a version such as 2.11.3 (no spaces, at most 128 characters)' }
  return raw
})

const RESERVED_BUILD_ARG = 'SOURCES_PATH'
const buildArgs = refine<Array<[string, string]>>((raw) => {
  const parsed: Array<[string, string]> = []
  for (const line of lines(raw)) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line)
    if (!match) return { problem: `line '${line}' is not NAME=value` }
    const [, name = '', value = ''] = match
    if (name === RESERVED_BUILD_ARG)
      return {
        problem: `sets ${RESERVED_BUILD_ARG}, which is set per image from 'frontend-sources', 'backend-sources' and 'codeasdata-sources'; set those instead`,
      }
    parsed.push([name, value])
  }
  return parsed
})

const platform = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (raw.includes(','))
    return {
      problem:
        'names several platforms; expected one, such as linux/amd64 (multi-platform images need buildx)',
    }
  if (!/^[a-z0-9_]+\/[a-z0-9_]+(?:\/[a-z0-9_]+)?$/.test(raw))
    return { problem: 'expected os/architecture[/variant], such as linux/amd64 or linux/arm64/v8' }
  return raw
})

const cacheFrom = refine((raw) => lines(raw))

const BuildImagesInputsSchema = v.object({
  registry,
  'registry-username': optionalText,
  'registry-password': optionalText,
  'frontend-image-name': imageName,
  'backend-image-name': imageName,
  'codeasdata-image-name': imageName,
  'tag-template': tagTemplate,
  'extra-tags': extraTags,
  codeasdata: booleanInput,
  push: booleanInput,
  branches,
  'docker-folder': relativeFolder('folder of the Dockerfiles'),
  'frontend-sources': relativeFolder('frontend build output folder'),
  'backend-sources': relativeFolder('backend build output folder'),
  'codeasdata-sources': relativeFolder('code-as-data build output folder'),
  'draw-version': drawVersion,
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
    codeasdata: i.codeasdata,
    push: i.push,
    branches: i.branches,
    dockerFolder: i['docker-folder'],
    sources: {
      frontend: i['frontend-sources'],
      backend: i['backend-sources'],
      codeasdata: i['codeasdata-sources'],
    },
    drawVersion: i['draw-version'],
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
