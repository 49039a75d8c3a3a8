import { posix } from 'node:path'
import {
  DockerfileProblem,
  parseDockerfile,
  parseHeredoc,
  type Escape,
  type Instruction,
} from './syntax.js'
import { processWord, ShellNotUnderstood, ShellSyntaxError, type Env } from './shell-words.js'
import { argPairs, MetaArgs, readFrom, type BuildArgs } from './arguments.js'

/**
 * Everything a build reads besides its Dockerfile, read as BuildKit reads it (syntax.ts), for
 * the reuse fingerprint: the images it pulls and the context paths it copies, each with its
 * variables expanded as BuildKit expands them. Whatever cannot be known that way is said
 * (`unknowable`), and the image is then built.
 */

/** BuildKit's system.DefaultPathEnv for Linux: what PATH is when a base image sets none. */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
/** A build argument that makes BuildKit run another frontend, as a `syntax` directive does. */
const SYNTAX_ARG = 'BUILDKIT_SYNTAX'
/** Build arguments BuildKit keeps out of the stage's environment. */
const NON_ENV_ARGS = new Set(['BUILDKIT_SBOM_SCAN_CONTEXT', 'BUILDKIT_SBOM_SCAN_STAGE'])
/** The flags each instruction that reads may have in every BuildKit version this reader follows. */
const KNOWN_FLAGS: Record<string, ReadonlySet<string>> = {
  COPY: new Set(['from', 'chown', 'chmod', 'link']),
  ADD: new Set(['chown', 'chmod', 'link', 'keep-git-dir', 'checksum']),
  RUN: new Set(['mount', 'network', 'security']),
}

/** The `--platform=` of a FROM line, as written (`$BUILDPLATFORM`); undefined without one. */
function platformOf(instruction: Instruction): string | undefined {
  const flag = instruction.flags.find((each) => /^--platform=/i.test(each))
  return flag?.slice('--platform='.length)
}

/** What a base image brings to the stages built FROM it. */
export interface BaseFacts {
  /** Its ONBUILD triggers, which run first in those stages. */
  onBuild: readonly string[]
  /** Its environment (`NAME=value`), which their variables expand with. */
  env: readonly string[]
}

/** What a build reads besides the Dockerfile, found in its text without building anything. */
export interface BuildInputs {
  /**
   * The images the build pulls: each stage's base (not `scratch`, not an earlier stage), and
   * the images of `COPY --from` and `RUN --mount=…,from=`.
   */
  images: string[]
  /**
   * The build context's paths that `COPY`, `ADD` and `RUN --mount=type=bind` read, variables
   * expanded, relative to the context root as BuildKit resolves them (`.` is the whole
   * context). A wildcard stays in the path.
   */
  sources: string[]
  /** `ADD --checksum=<digest> <url>`: the URL and the digest that pins its content. */
  pinned: string[]
  /**
   * The bases of stages that name their own platform (`FROM --platform=$BUILDPLATFORM`), with
   * that platform as written: the build pulls them for it, not for the target platform.
   */
  platformImages: Array<{ image: string; platform: string }>
  /** Why what the build reads cannot be known from the text: `ADD <url>`, a frontend… */
  unknowable?: string
}

/**
 * The images and context paths a Dockerfile's build reads. `buildArgs` are the `--build-arg`
 * values (SOURCES_PATH included). `base` gives what a base image brings (its ONBUILD triggers
 * and environment): until it is known, the paths of a stage built FROM it may be unknowable.
 */
export function readBuildInputs(
  dockerfile: string,
  buildArgs: BuildArgs,
  base: (image: string) => BaseFacts | undefined = () => undefined,
): BuildInputs {
  return readWith(dockerfile, buildArgs, base, 'refused')
}

/**
 * The images a Dockerfile builds FROM or copies from, as BuildKit's own frontend reads them, also
 * when the file or a build argument names another frontend (which pulls the same bases, and which
 * `readBuildInputs` leaves unread): the images a mirror must serve.
 */
export function baseImagesOf(dockerfile: string, buildArgs: BuildArgs): string[] {
  return readWith(dockerfile, buildArgs, () => undefined, 'read as BuildKit').images
}

function readWith(
  dockerfile: string,
  buildArgs: BuildArgs,
  base: (image: string) => BaseFacts | undefined,
  otherFrontend: OtherFrontend,
): BuildInputs {
  const inputs: BuildInputs = { images: [], sources: [], pinned: [], platformImages: [] }
  try {
    new Reader(dockerfile, buildArgs, base, inputs, otherFrontend).read()
  } catch (error) {
    if (!(error instanceof DockerfileProblem)) throw error
    inputs.unknowable ??= error.invalid
      ? `BuildKit cannot read it (${error.message})`
      : `this step cannot read it as BuildKit does: ${error.message}`
  }
  inputs.images = [...new Set(inputs.images)]
  inputs.sources = [...new Set(inputs.sources)]
  inputs.pinned = [...new Set(inputs.pinned)]
  return inputs
}

interface StageState {
  env: Map<string, string>
  /** The base image's environment is not known yet: a variable not set here may be there. */
  envUnknown: boolean
  /** Our own ONBUILD triggers: they run in the stages built FROM this one. */
  onBuild: Instruction[]
}

/** A Dockerfile that names another frontend: refused as unknowable, or read as BuildKit would. */
type OtherFrontend = 'refused' | 'read as BuildKit'

class Reader {
  private readonly given: ReadonlyMap<string, string>
  private readonly meta: MetaArgs
  private escape: Escape = '\\'
  private readonly stages: StageState[] = []
  private readonly names = new Map<string, number>()

  constructor(
    private readonly dockerfile: string,
    buildArgs: BuildArgs,
    private readonly base: (image: string) => BaseFacts | undefined,
    private readonly inputs: BuildInputs,
    private readonly otherFrontend: OtherFrontend,
  ) {
    this.given = new Map(buildArgs.map(([name, value]) => [name, value]))
    this.meta = new MetaArgs(this.given)
  }

  read(): void {
    if (this.otherFrontend === 'refused' && this.given.has(SYNTAX_ARG))
      throw new DockerfileProblem(
        `the build argument ${SYNTAX_ARG} runs another frontend instead of BuildKit's own, which may read the file differently`,
        false,
      )
    const syntax = parseDockerfile(this.dockerfile)
    if (this.otherFrontend === 'refused' && syntax.syntax !== undefined)
      throw new DockerfileProblem(
        `its '# syntax=${syntax.syntax}' directive runs that frontend instead of BuildKit's own, which may read the file differently`,
        false,
      )
    this.escape = syntax.escape
    for (const instruction of syntax.instructions) {
      if (instruction.keyword === 'FROM') this.from(instruction)
      else if (this.stages.length === 0) {
        if (instruction.keyword !== 'ARG')
          throw new DockerfileProblem(`'${instruction.keyword}' comes before any FROM`, true)
        this.meta.declare(instruction, this.escape)
      } else this.dispatch(instruction, this.stages[this.stages.length - 1] as StageState)
    }
  }

  private from(instruction: Instruction): void {
    const from = readFrom(instruction, this.meta, this.escape, this.names)
    if (from.image === undefined && from.stage === undefined)
      throw new DockerfileProblem(
        `its line '${instruction.original.trim()}' names the base image through a build argument without a value`,
        false,
      )
    let state: StageState
    let triggers: Instruction[] = []
    if (from.stage !== undefined) {
      const parent = this.stages[from.stage] as StageState
      state = { env: new Map(parent.env), envUnknown: parent.envUnknown, onBuild: [] }
      triggers = parent.onBuild
    } else if (from.image?.toLowerCase() === 'scratch') {
      state = { env: new Map(), envUnknown: false, onBuild: [] }
    } else {
      const image = from.image as string
      this.inputs.images.push(image)
      const platform = platformOf(instruction)
      if (platform !== undefined) this.inputs.platformImages.push({ image, platform })
      const facts = this.base(image)
      state = { env: new Map(), envUnknown: facts === undefined, onBuild: [] }
      for (const entry of facts?.env ?? []) {
        const at = entry.indexOf('=')
        state.env.set(at < 0 ? entry : entry.slice(0, at), at < 0 ? '' : entry.slice(at + 1))
      }
      for (const trigger of facts?.onBuild ?? []) {
        const parsed = parseDockerfile(trigger).instructions
        if (parsed.length !== 1)
          throw new DockerfileProblem('onbuild trigger should be a single expression', true)
        triggers.push(...parsed)
      }
    }
    if (!state.envUnknown && !state.env.has('PATH')) state.env.set('PATH', DEFAULT_PATH)
    this.stages.push(state)
    if (from.name) this.names.set(from.name, this.stages.length - 1)
    // A base's triggers run with the default escape token, as BuildKit parses each alone.
    for (const trigger of triggers) this.dispatch(trigger, state)
  }

  private dispatch(instruction: Instruction, state: StageState): void {
    switch (instruction.keyword) {
      case 'ARG':
        this.arg(instruction, state)
        return
      case 'ENV':
        for (const [name, value] of instruction.pairs ?? []) {
          if (name === '' || /[$"'`\\]/.test(name))
            throw new DockerfileProblem(`its ENV name '${name}' is not a plain name`, name === '')
          state.env.set(name, this.expand(value, state, 'ENV value'))
        }
        return
      case 'ONBUILD':
        if (instruction.trigger) state.onBuild.push(instruction.trigger)
        return
      case 'COPY':
      case 'ADD':
        this.copy(instruction, state)
        return
      case 'RUN':
        for (const mount of this.flags(instruction).get('mount') ?? []) this.mount(mount)
        return
    }
  }

  private arg(instruction: Instruction, state: StageState): void {
    for (const { name, value } of argPairs(instruction)) {
      const given = this.given.get(name)
      const own = value === undefined ? undefined : this.expand(value, state, 'ARG value')
      // An ARG before FROM that got no value gives none to the stage's ARG of its name.
      const meta = this.meta.empty.has(name) ? undefined : this.meta.values.get(name)
      const resolved = given ?? own ?? meta
      if (resolved !== undefined && !NON_ENV_ARGS.has(name)) state.env.set(name, resolved)
    }
  }

  /** A word with the stage's variables expanded, as BuildKit expands it. */
  private expand(word: string, state: StageState, what: string): string {
    let unknown: string | undefined
    const env: Env = {
      get: (name) => {
        const value = state.env.get(name)
        if (value === undefined && state.envUnknown) unknown ??= name
        return value
      },
    }
    let expanded: string
    try {
      expanded = processWord(word, env, this.escape)
    } catch (error) {
      if (error instanceof ShellSyntaxError)
        throw new DockerfileProblem(`${what} '${word}': ${error.message}`, true)
      if (error instanceof ShellNotUnderstood)
        throw new DockerfileProblem(
          `${what} '${word}' uses ${error.message}, which this step does not expand`,
          false,
        )
      throw error
    }
    // Said, and read on: the later FROM lines still name the images to look up.
    if (unknown !== undefined)
      this.unknowable(
        `this step cannot read it as BuildKit does: ${what} '${word}' uses $${unknown}, which its base image's environment may set`,
      )
    return expanded
  }

  /** BuildKit's BFlags: `--name=value` words, each name one this reader knows. */
  private flags(instruction: Instruction): Map<string, string[]> {
    const known = KNOWN_FLAGS[instruction.keyword] ?? new Set<string>()
    const flags = new Map<string, string[]>()
    for (const flag of instruction.flags) {
      const [name = '', ...value] = flag.replace(/^--/, '').split('=')
      if (!flag.startsWith('--') || !known.has(name))
        throw new DockerfileProblem(
          `its flag '${flag}' on ${instruction.keyword} is not one this step reads`,
          false,
        )
      flags.set(name, [...(flags.get(name) ?? []), value.join('=')])
    }
    return flags
  }

  private copy(instruction: Instruction, state: StageState): void {
    const { keyword } = instruction
    const flags = this.flags(instruction)
    if (instruction.args.length < 2)
      throw new DockerfileProblem(`${keyword} requires at least two arguments`, true)
    const from = flags.get('from')?.[0]
    if (from !== undefined) {
      this.copyFrom(from)
      return
    }
    const checksum = flags.get('checksum')?.[0]
    for (const source of instruction.args.slice(0, -1)) {
      if (parseHeredoc(source)) continue
      const expanded = this.expand(source, state, `${keyword} source`)
      if (keyword === 'ADD' && isRemote(expanded)) {
        if (checksum !== undefined && checksum !== '' && isPinnable(expanded))
          this.inputs.pinned.push(`${expanded} ${checksum}`)
        else
          this.unknowable(
            `'ADD ${expanded}' downloads what only the build knows (pin it with ADD --checksum=sha256:…)`,
          )
        continue
      }
      this.inputs.sources.push(contextPath(expanded))
    }
  }

  /** COPY --from: an earlier stage (by name or number), or an image. */
  private copyFrom(from: string): void {
    if (/[$"'`\\]/.test(from))
      throw new DockerfileProblem(`'--from=${from}' is not a plain name`, false)
    if (/^\d+$/.test(from) || this.names.has(from.toLowerCase())) return
    this.inputs.images.push(from)
  }

  /** RUN --mount: a bind mount of the context reads it; `from=` reads an image or a stage. */
  private mount(mount: string): void {
    if (/[$"'`\\]/.test(mount))
      throw new DockerfileProblem(`'--mount=${mount}' is not plain text this step reads`, false)
    const options = new Map<string, string>()
    for (const field of mount.split(',')) {
      const at = field.indexOf('=')
      options.set(
        (at < 0 ? field : field.slice(0, at)).toLowerCase(),
        at < 0 ? '' : field.slice(at + 1),
      )
    }
    const from = options.get('from')
    if (from !== undefined && from !== '') this.copyFrom(from)
    else if ((options.get('type') ?? 'bind') === 'bind')
      this.inputs.sources.push(contextPath(options.get('source') ?? options.get('src') ?? ''))
  }

  private unknowable(why: string): void {
    this.inputs.unknowable ??= why
  }
}

/**
 * Where BuildKit fetches instead of reading the context: an URL, or anything its git reference
 * parser takes for a repository (`git@host:…`, `….git`, `….git#ref`). Broader than BuildKit, never
 * narrower: a local path taken for remote only means a build.
 */
function isRemote(source: string): boolean {
  return (
    /^[a-z][a-z0-9+.-]*:\/\//i.test(source) ||
    /^[^/]+@[^/:]+:/.test(source) ||
    /\.git(?:#.*)?$/.test(source)
  )
}

/** An http(s) URL that is no git reference: what `ADD --checksum` pins. */
function isPinnable(source: string): boolean {
  return /^https?:\/\//.test(source) && !/\.git(?:#.*)?$/.test(source)
}

/** The context path a source names: BuildKit joins it to `/`, so `..` stops at the root. */
function contextPath(source: string): string {
  const joined = posix.join('/', source)
  return joined === '/' ? '.' : joined.slice(1).replace(/\/+$/, '')
}
