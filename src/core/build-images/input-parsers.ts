import { isAbsolute, normalize } from 'node:path'
import * as v from 'valibot'
import { unique } from '../shared/collections.js'
import { parseLines, parseList, refine } from '../shared/inputs.js'
import { imageNameProblem } from './image-names.js'
import { IMAGE_KINDS, type ImageKind } from './image-kinds.js'
import { templateProblem } from './tags.js'

/** The build-images inputs that need a rule of their own: each turns a string into a value or one sentence. */

export const imageName = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  const problem = imageNameProblem(raw)
  return problem ? { problem } : raw
})

export const tagTemplate = refine((raw) => {
  const problem = templateProblem(raw)
  return problem ? { problem } : raw
})

export const extraTags = refine((raw) => {
  const tags = parseList(raw)
  for (const tag of tags) {
    const problem = templateProblem(tag)
    if (problem) return { problem: `tag '${tag}' ${problem}` }
  }
  return tags
})

const KINDS_EXPECTED = `one or more of ${IMAGE_KINDS.map((kind) => `'${kind}'`).join(', ')}, one per line or comma-separated`

const isImageKind = (name: string): name is ImageKind =>
  (IMAGE_KINDS as readonly string[]).includes(name)

/** The images to build, in the order they are reported, whatever order they were named in. */
export const images = refine<ImageKind[]>((raw) => {
  const names = parseList(raw)
  const unknown = unique(names.filter((name) => !isImageKind(name)))
  if (unknown.length > 0) {
    const named = unknown.map((name) => `'${name}'`).join(', ')
    return {
      problem: `names ${unknown.length === 1 ? 'an unknown image' : 'unknown images'} ${named}; expected ${KINDS_EXPECTED}`,
    }
  }
  if (names.length === 0) return { problem: `names no image; expected ${KINDS_EXPECTED}` }
  return IMAGE_KINDS.filter((kind) => names.includes(kind))
})

export const branches = refine<string[] | undefined>((raw) => {
  const names = parseList(raw)
  const bad = names.find((name) => /\s/.test(name))
  if (bad !== undefined)
    return { problem: `branch '${bad}' contains a space; expected branch names` }
  for (const name of names) {
    const reason = branchNameProblem(name)
    if (reason)
      return {
        problem: `branch '${name}' can never match: git branch names ${reason}; expected branch names, '*' matching any characters`,
      }
  }
  return names.length === 0 ? undefined : names
})

/** What git's ref-name rules (git check-ref-format) forbid in a branch name; `*` is ours. */
function branchNameProblem(name: string): string | undefined {
  const forbidden = ['..', '~', '^', ':', '?', '[', '\\', '@{', '//'].find((part) =>
    name.includes(part),
  )
  if (forbidden) return `cannot hold '${forbidden}'`
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) return 'cannot hold control characters'
  if (name.startsWith('-') || name.startsWith('/')) return `cannot start with '${name[0]}'`
  const ending = ['.lock', '/', '.'].find((end) => name.endsWith(end))
  if (ending) return `cannot end with '${ending}'`
  return undefined
}

export const relativeFolder = (what: string): v.GenericSchema<string, string> =>
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

export const drawVersion = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (raw.length > 128 || !/^[\x21-\x7e]+$/.test(raw))
    return { problem: 'expected a version such as 2.11.3 (no spaces, at most 128 characters)' }
  return raw
})

const RESERVED_BUILD_ARG = 'SOURCES_PATH'
export const buildArgs = refine<Array<[string, string]>>((raw) => {
  const parsed: Array<[string, string]> = []
  for (const line of parseLines(raw)) {
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

export const platform = refine<string | undefined>((raw) => {
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

/** Lines only: a cache source may hold commas (`type=registry,ref=…`). */
export const cacheFrom = refine((raw) => parseLines(raw))

export const workingDirectory = v.pipe(
  v.string(),
  v.check((raw) => raw !== '', "is empty; expected the project root, such as '.'"),
)
