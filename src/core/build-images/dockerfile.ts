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
      stages.push({
        from: instruction,
        base: parent === undefined ? expanded : undefined,
        parentStage: parent,
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

/** Whether ONBUILD triggers declare, or use, `SOURCES_PATH`. */
export function triggersOf(triggers: readonly string[]): { declares: boolean; uses: boolean } {
  const stage = readStages(['FROM scratch', ...triggers].join('\n'), [])[0]
  return { declares: stage?.declaresSourcesPath ?? false, uses: stage?.usesSourcesPath ?? false }
}

/** Instructions one per entry: continuations joined, comments and blank lines left out. */
function instructions(dockerfile: string): string[] {
  const result: string[] = []
  let pending = ''
  for (const line of dockerfile.split(/\r?\n/)) {
    if (/^\s*#/.test(line)) continue
    const continued = /\\\s*$/.test(line)
    pending += `${continued ? line.replace(/\\\s*$/, '') : line} `
    if (continued) continue
    if (pending.trim() !== '') result.push(pending.trim())
    pending = ''
  }
  if (pending.trim() !== '') result.push(pending.trim())
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
