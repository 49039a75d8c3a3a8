/**
 * What build-images needs to know of a Dockerfile, read from its text: its stages, what each
 * builds FROM, and whether each declares and uses `SOURCES_PATH`. Not a full parser: enough to
 * follow `FROM` lines (with `--platform`, `AS name`, and build arguments in the image name) and
 * `ARG` lines, across line continuations and comments.
 */

export interface Stage {
  /** The FROM line as written, for messages. */
  from: string
  /** The image it builds FROM, build arguments expanded; undefined when one has no value. */
  base?: string
  /** The earlier stage it builds FROM, when its FROM names one. */
  parentStage?: number
  /** `FROM --platform=<value>` as written (`$BUILDPLATFORM`), when the stage names one. */
  platform?: string
  /** An `ARG SOURCES_PATH` line in the stage. */
  declaresSourcesPath: boolean
  /** `$SOURCES_PATH` or `${SOURCES_PATH}` in the stage's instructions. */
  usesSourcesPath: boolean
}

const SOURCES_PATH_USE = /\$(?:SOURCES_PATH\b|\{SOURCES_PATH[}:])/

/**
 * The stages, in order. `buildArgs` are the `--build-arg` values the build will get: they
 * override the defaults of the ARG lines before the first FROM, which FROM lines may use.
 */
export function readStages(
  dockerfile: string,
  buildArgs: ReadonlyArray<readonly [string, string]>,
): Stage[] {
  const given = new Map(buildArgs.map(([name, value]) => [name, value]))
  const globals = new Map<string, string | undefined>()
  const stages: Stage[] = []
  const names = new Map<string, number>()
  for (const instruction of instructions(dockerfile)) {
    const [keyword = '', ...words] = instruction.split(/\s+/)
    const upper = keyword.toUpperCase()
    const current = stages[stages.length - 1]
    if (upper === 'FROM') {
      const [image = '', as, name] = words.filter((word) => !word.startsWith('--'))
      const expanded = expand(image, (arg) => given.get(arg) ?? globals.get(arg))
      const parent = expanded === undefined ? undefined : names.get(expanded.toLowerCase())
      const platform = words.find((word) => /^--platform=/i.test(word))?.slice('--platform='.length)
      stages.push({
        from: instruction,
        base: parent === undefined ? expanded : undefined,
        parentStage: parent,
        ...(platform ? { platform } : {}),
        declaresSourcesPath: false,
        usesSourcesPath: false,
      })
      if (as?.toUpperCase() === 'AS' && name) names.set(name.toLowerCase(), stages.length - 1)
    } else if (upper === 'ARG') {
      for (const word of words) {
        const [name = '', ...value] = word.split('=')
        if (current) current.declaresSourcesPath ||= name === 'SOURCES_PATH'
        else globals.set(name, value.length > 0 ? value.join('=') : undefined)
      }
    } else if (current && SOURCES_PATH_USE.test(instruction)) {
      current.usesSourcesPath = true
    }
  }
  return stages
}

/** What a build reads besides the Dockerfile, found in its text without building anything. */
export interface BuildInputs {
  /**
   * The images the build pulls: each stage's base (not `scratch`, not an earlier stage), the
   * images of `COPY --from` and `RUN --mount=…,from=`, and the `# syntax=` frontend.
   */
  images: string[]
  /**
   * The build context's paths that `COPY`, `ADD` and `RUN --mount=type=bind` read, build
   * arguments expanded, as written (`.` is the whole context). A wildcard stays in the path.
   */
  sources: string[]
  /**
   * The bases of stages that name their own platform (`FROM --platform=$BUILDPLATFORM`), with
   * that platform as written: the build pulls them for it, not for the target platform.
   */
  platformImages: Array<{ image: string; platform: string }>
  /** Why what the build reads cannot be known from the text: `ADD <url>`, an unknown variable. */
  unknowable?: string
}

/**
 * The images and context paths a Dockerfile's build reads. `buildArgs` are the `--build-arg`
 * values (SOURCES_PATH included); `triggers` gives a base image's ONBUILD instructions, which
 * run first in the stages built FROM it. A path is expanded only with the build arguments its
 * stage declares (`ARG`, or its base's `ONBUILD ARG`): anything else, `ENV` values included, is
 * unknowable rather than guessed.
 */
export function readBuildInputs(
  dockerfile: string,
  buildArgs: ReadonlyArray<readonly [string, string]>,
  triggers: (base: string) => readonly string[] = () => [],
): BuildInputs {
  const given = new Map(buildArgs.map(([name, value]) => [name, value]))
  const stages = readStages(dockerfile, buildArgs)
  const inputs: BuildInputs = { images: [], sources: [], platformImages: [] }
  const syntax = /^#\s*syntax\s*=\s*(\S+)\s*$/im.exec(directives(dockerfile))?.[1]
  if (syntax) inputs.images.push(syntax)
  const globals = new Map<string, string | undefined>()
  const names = new Map<string, number>()
  let stage = -1
  let declared = new Map<string, string | undefined>()
  const unknowable = (why: string): void => {
    inputs.unknowable ??= why
  }
  const value = (name: string): string | undefined =>
    declared.has(name) ? (given.get(name) ?? declared.get(name)) : undefined
  const expanded = (text: string, what: string): string | undefined => {
    const result = expand(text, value)
    if (result === undefined || result.includes('$'))
      unknowable(`${what} '${text}' uses a variable whose value is not known before the build`)
    return result
  }
  /** An image, or an earlier stage named by its name or number. */
  const external = (reference: string): string | undefined => {
    const image = expand(reference, (name) => given.get(name) ?? globals.get(name))
    if (image === undefined) {
      unknowable(`'${reference}' names an image through a build argument without a value`)
      return undefined
    }
    if (names.has(image.toLowerCase()) || /^\d+$/.test(image)) return undefined
    return image
  }
  const read = (keyword: string, rest: string): void => {
    if (keyword === 'ARG') {
      for (const word of rest.split(/\s+/)) {
        const [name = '', ...parts] = word.split('=')
        if (name === '') continue
        if (stage < 0) globals.set(name, parts.length > 0 ? parts.join('=') : undefined)
        else declared.set(name, parts.length > 0 ? parts.join('=') : globals.get(name))
      }
    } else if (keyword === 'ONBUILD') {
      // A trigger of ours runs in a later stage built FROM this one: counted here already.
      const [inner = '', ...more] = rest.split(/\s+/)
      read(inner.toUpperCase(), more.join(' '))
    } else if (keyword === 'COPY' || keyword === 'ADD') {
      readCopy(keyword, rest)
    } else if (keyword === 'RUN') {
      for (const mount of flagValues(rest, 'mount')) readMount(mount)
    }
  }
  const readCopy = (keyword: string, rest: string): void => {
    const from = flagValues(rest, 'from')[0]
    if (from !== undefined) {
      const image = external(from)
      if (image) inputs.images.push(image)
      return
    }
    const paths = copyPaths(rest)
    for (const path of paths.slice(0, -1)) {
      if (path.startsWith('<<')) continue
      if (keyword === 'ADD' && /^([a-z][a-z0-9+.-]*:\/\/|git@)/i.test(path)) {
        unknowable(`'ADD ${path}' downloads what only the build knows`)
        continue
      }
      const source = expanded(path, `${keyword} source`)
      if (source !== undefined) inputs.sources.push(source)
    }
  }
  const readMount = (mount: string): void => {
    const options = new Map(
      mount.split(',').map((option) => {
        const [key = '', ...parts] = option.split('=')
        return [key.toLowerCase(), parts.join('=')] as const
      }),
    )
    const type = options.get('type') ?? 'bind'
    const from = options.get('from')
    if (from !== undefined && from !== '') {
      const image = external(from)
      if (image) inputs.images.push(image)
    } else if (type === 'bind') {
      const source = expanded(
        options.get('source') ?? options.get('src') ?? '.',
        'RUN --mount source',
      )
      if (source !== undefined) inputs.sources.push(source)
    }
  }
  for (const { line } of parseInstructions(dockerfile)) {
    const [word = '', ...words] = line.split(/\s+/)
    const keyword = word.toUpperCase()
    const rest = words.join(' ')
    if (keyword === 'FROM') {
      stage++
      declared = new Map()
      const current = stages[stage]
      const [, as, name] = words.filter((part) => !part.startsWith('--'))
      if (current?.base === undefined && current?.parentStage === undefined)
        unknowable(
          `its line '${line}' names the base image through a build argument without a value`,
        )
      const base = current?.base
      if (base !== undefined && base.toLowerCase() !== 'scratch') {
        inputs.images.push(base)
        if (current?.platform)
          inputs.platformImages.push({ image: base, platform: current.platform })
        for (const trigger of triggers(base)) {
          const [inner = '', ...more] = trigger.trim().split(/\s+/)
          read(inner.toUpperCase(), more.join(' '))
        }
      }
      if (as?.toUpperCase() === 'AS' && name) names.set(name.toLowerCase(), stage)
    } else if (stage >= 0 || keyword === 'ARG') {
      read(keyword, rest)
    }
  }
  inputs.images = [...new Set(inputs.images)]
  inputs.sources = [...new Set(inputs.sources)]
  return inputs
}

/** The parser directives: the comment lines at the very top (`# syntax=`, `# escape=`). */
function directives(dockerfile: string): string {
  const lines: string[] = []
  for (const line of dockerfile.split(/\r?\n/)) {
    if (!/^\s*#\s*[a-z]+\s*=/i.test(line)) break
    lines.push(line)
  }
  return lines.join('\n')
}

/** The values of `--name=value` flags at the start of an instruction's arguments. */
function flagValues(rest: string, name: string): string[] {
  const values: string[] = []
  for (const word of rest.split(/\s+/)) {
    if (!word.startsWith('--')) break
    const match = new RegExp(`^--${name}=(.*)$`, 'i').exec(word)
    if (match) values.push(match[1] ?? '')
  }
  return values
}

/** COPY and ADD paths, sources then destination: the JSON form, or words after the flags. */
function copyPaths(rest: string): string[] {
  const words = rest.split(/\s+/)
  const first = words.findIndex((word) => !word.startsWith('--'))
  const args = first < 0 ? '' : words.slice(first).join(' ')
  if (args.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(args)
      if (Array.isArray(parsed) && parsed.every((item) => typeof item === 'string')) return parsed
    } catch {
      // Not JSON: read as words, as Docker does.
    }
  }
  return args.split(/\s+/).filter((word) => word !== '')
}

/** Whether ONBUILD triggers declare, or use, `SOURCES_PATH`. */
export function triggersOf(triggers: readonly string[]): { declares: boolean; uses: boolean } {
  const stage = readStages(['FROM scratch', ...triggers].join('\n'), [])[0]
  return { declares: stage?.declaresSourcesPath ?? false, uses: stage?.usesSourcesPath ?? false }
}

/** One instruction: its line, continuations joined, and the bodies of its here-documents. */
interface Instruction {
  line: string
  heredocs: string
}

/** Instructions one per entry: continuations joined, comments and blank lines left out. */
function instructions(dockerfile: string): string[] {
  return parseInstructions(dockerfile).map(({ line, heredocs }) =>
    heredocs === '' ? line : `${line} ${heredocs}`,
  )
}

/** `<<EOF`, `<<-EOF`, `<<"EOF"`: a here-document whose lines run to the line `EOF`. */
const HEREDOC = /<<-?(["']?)([A-Za-z_][A-Za-z0-9_]*)\1/g

function parseInstructions(dockerfile: string): Instruction[] {
  const result: Instruction[] = []
  const lines = dockerfile.split(/\r?\n/)
  let pending = ''
  const finish = (index: number): number => {
    const line = pending.trim()
    pending = ''
    if (line === '') return index
    // The here-documents' lines belong to the instruction, not to the instructions after it.
    const bodies: string[] = []
    let next = index
    for (const [, , word] of line.matchAll(HEREDOC)) {
      while (next + 1 < lines.length) {
        const body = lines[++next] ?? ''
        if (body.replace(/^\t+/, '') === word) break
        bodies.push(body)
      }
    }
    result.push({ line, heredocs: bodies.join('\n') })
    return next
  }
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? ''
    if (/^\s*#/.test(line)) continue
    const continued = /\\\s*$/.test(line)
    pending += `${continued ? line.replace(/\\\s*$/, '') : line} `
    if (!continued) index = finish(index)
  }
  finish(lines.length)
  return result
}

/** `$NAME` and `${NAME}` replaced; undefined when one has no value. */
function expand(text: string, value: (name: string) => string | undefined): string | undefined {
  const missing: string[] = []
  const expanded = text.replace(/\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/g, (_, braced, bare) => {
    const name = String(braced ?? bare)
    const found = value(name)
    if (found === undefined || found === '') missing.push(name)
    return found ?? ''
  })
  return missing.length > 0 ? undefined : expanded
}
