import { isVersionText } from '../shared/image-labels.js'
import * as v from 'valibot'
import { unique } from '../shared/collections.js'
import { quote } from '../shared/errors.js'
import type { SecretParts } from '../definition.js'
import { parseLines, parseList, refine } from '../shared/inputs.js'
import type { BuildSecret } from './builders/build-command.js'
import { imageNameProblem } from './plan/image-names.js'
import { IMAGE_KINDS, type ImageKind } from '../shared/project-images.js'
import { signingKeyShapeProblem } from '../signing/pem.js'
import { projectPath } from './project-paths.js'
import { BACKEND_NAME_EXPECTED, isBackendName } from '../shared/project-images.js'
import { templateProblem } from './plan/tags.js'

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

const KINDS_EXPECTED = `one or more of ${IMAGE_KINDS.map((kind) => `'${kind}'`).join(', ')}, or 'backend:<name>' for one backend of 'backends', one per line or comma-separated`

const isImageKind = (name: string): name is ImageKind =>
  (IMAGE_KINDS as readonly string[]).includes(name)

/** What `images` names: kinds, and backends of `backends` by name (`backend:<name>`). */
export interface ImageSelection {
  /** In the order they are reported, whatever order they were named in. */
  kinds: ImageKind[]
  /** The backends named alone; with `backend` too, every backend is built all the same. */
  backends: string[]
}

const BACKEND_PREFIX = 'backend:'

/** The images to build: `frontend`, `backend` (every backend), `backend:<name>`, `codeasdata`. */
export const images = refine<ImageSelection>((raw) => {
  const names = parseList(raw)
  const backends = unique(
    names
      .filter((name) => name.startsWith(BACKEND_PREFIX))
      .map((name) => name.slice(BACKEND_PREFIX.length)),
  )
  const unknown = unique(
    names.filter((name) => !isImageKind(name) && !name.startsWith(BACKEND_PREFIX)),
  )
  if (unknown.length > 0) {
    const named = unknown.map((name) => `'${name}'`).join(', ')
    return {
      problem: `names ${unknown.length === 1 ? 'an unknown image' : 'unknown images'} ${named}; expected ${KINDS_EXPECTED}`,
    }
  }
  const invalid = backends.find((name) => !isBackendName(name))
  if (invalid !== undefined)
    return {
      problem: `names ${quote(`${BACKEND_PREFIX}${invalid}`)}, whose backend name the platform cannot hold; expected ${BACKEND_NAME_EXPECTED}, as in 'backends'`,
    }
  if (names.length === 0) return { problem: `names no image; expected ${KINDS_EXPECTED}` }
  const kinds = IMAGE_KINDS.filter(
    (kind) => names.includes(kind) || (kind === 'backend' && backends.length > 0),
  )
  return { kinds, backends: names.includes('backend') ? [] : backends }
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
  refine((raw) => projectPath(raw, what))

/**
 * `backend-sources`: as relativeFolder, but optional, since `backends` gives each backend its
 * own; its default (`dist/node`) is filled where both are read (inputs.ts).
 */
export const optionalRelativeFolder = (what: string): v.GenericSchema<string, string | undefined> =>
  refine<string | undefined>((raw) => (raw === '' ? undefined : projectPath(raw, what)))

export const drawVersion = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  if (!isVersionText(raw))
    return { problem: 'expected a version such as 2.11.3 (no spaces, at most 128 characters)' }
  return raw
})

const RESERVED_BUILD_ARG = 'SOURCES_PATH'
export const buildArgs = refine<Array<[string, string]>>((raw) => {
  const parsed: Array<[string, string]> = []
  for (const { line, name, value } of argumentLines(raw)) {
    if (value === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      return { problem: `line '${line}' is not NAME=value` }
    if (name === RESERVED_BUILD_ARG)
      return {
        problem: `sets ${RESERVED_BUILD_ARG}, which is set per image from 'frontend-sources', 'backend-sources' and 'codeasdata-sources'; set those instead`,
      }
    parsed.push([name, value])
  }
  return parsed
})

/** Each line of `build-args` and `build-secrets`, cut at its first '=': the one reading of both. */
function argumentLines(raw: string): Array<{ line: string; name: string; value?: string }> {
  return parseLines(raw).map((line) => {
    const eq = line.indexOf('=')
    return eq < 0
      ? { line, name: line }
      : { line, name: line.slice(0, eq), value: line.slice(eq + 1) }
  })
}

/**
 * Whether a build argument's name says it holds a secret: the words of BuildKit's own check
 * (SecretsUsedInArgOrEnv) as the name's first or last part, or all of it (`NPM_TOKEN`,
 * `api_key`, `PASSWORD`), unless a part says it is no secret (`PUBLIC_KEY`, `TOKEN_FILE`).
 */
export function looksSecret(name: string): boolean {
  const secret =
    /(?:_|^)(?:apikey|auth|credentials?|key|password|pword|passwd|secret|token)(?:_|$)/i
  return secret.test(name) && !/(?:_|^)(?:public|file|version)(?:_|$)/i.test(name)
}

/**
 * The values of `build-args` whose names look secret: masked, as a token would be (the step
 * warns about them too). A text that does not parse is read line by line the same way.
 */
export const secretLookingArguments: SecretParts<Array<[string, string]>> = {
  said: 'a value whose name looks secret',
  parts: (args) => args.filter(([name]) => looksSecret(name)).map(([, value]) => value),
  unparsed: (raw) =>
    argumentLines(raw).flatMap(({ name, value }) =>
      value !== undefined && looksSecret(name.trim()) ? [value] : [],
    ),
  shown: (raw) => raw,
}

/**
 * A secret id as BuildKit's two comma-separated `key=value` lists read it, `--secret id=…` and
 * `RUN --mount=type=secret,id=…` (no comma, `=`, quote or space), and as the file name it is
 * mounted at, `/run/secrets/<id>` (no `/`, not `.` or `..`).
 */
const SECRET_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/
const SECRET_ID_EXPECTED =
  "letters, digits, '_', '.' and '-', not starting with '.' or '-', at most 128 characters, as in RUN --mount=type=secret,id=NPM_TOKEN"
/** An environment variable carries the value to docker: Linux takes at most 128 KiB per variable. */
const MAX_SECRET_BYTES = 64 * 1024

/**
 * `build-secrets`: one `ID=value` per line. A problem names the line by its number, never by its
 * text: a line that is not `ID=value` may be a value pasted alone.
 */
export const buildSecrets = refine<BuildSecret[]>((raw) => {
  const secrets: BuildSecret[] = []
  const lineOf = new Map<string, number>()
  for (const { number, id, value } of secretLines(raw)) {
    if (value === undefined)
      return {
        problem: `line ${number} is not ID=value (the line is not shown: it may be a secret); expected one secret per line, such as NPM_TOKEN=<value>`,
      }
    if (!SECRET_ID.test(id))
      return {
        problem: `line ${number} names the id ${quote(id)}; expected ${SECRET_ID_EXPECTED}`,
      }
    if (value === '')
      return {
        problem: `line ${number} has nothing after '=' (an unset CI/CD variable or secret gives an empty value); set it, or remove the line`,
      }
    if (Buffer.byteLength(value) > MAX_SECRET_BYTES)
      return {
        problem: `line ${number} holds more than 64 KiB, more than an environment variable can carry to docker; put the value in a file that the build reads instead`,
      }
    const first = lineOf.get(id)
    if (first !== undefined)
      return {
        problem: `gives the id ${quote(id)} twice (lines ${first} and ${number}); expected each id once`,
      }
    lineOf.set(id, number)
    secrets.push({ id, value })
  }
  return secrets
})

/** The lines of `build-secrets` that hold something, numbered as written, cut at their first '='. */
function secretLines(raw: string): Array<{ number: number; id: string; value?: string }> {
  return raw.split(/\r?\n/).flatMap((text, index) => {
    const line = text.trim()
    if (line === '') return []
    const eq = line.indexOf('=')
    if (eq < 0) return [{ number: index + 1, id: line }]
    return [{ number: index + 1, id: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() }]
  })
}

/**
 * `build-secrets` is secret whole, and so is each value alone; a line that is no `ID=value` may
 * be a value pasted alone, so a text that does not parse has each such line masked whole.
 */
export const buildSecretParts: SecretParts<BuildSecret[]> = {
  whole: true,
  said: 'secrets',
  parts: (secrets) => secrets.map((secret) => secret.value),
  unparsed: (raw) => secretLines(raw).map(({ id, value }) => value ?? id),
  shown: () => '***',
}

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

/**
 * `signing-key`: the PEM block of a private key of a kind this step opens (see pem.ts); the
 * password, a second input, opens it once both are read (parseBuildImagesInputs).
 */
export const signingKey = refine<string | undefined>((raw) => {
  if (raw === '') return undefined
  const problem = signingKeyShapeProblem(raw)
  return problem ? { problem } : raw
})
