import { basename } from 'node:path'

/**
 * Every docker command line the action runs, as argv arrays (never a shell string), and the
 * parsers of what those commands print. Pure, so that each is table-tested.
 */

/** One `docker build`: the context is the project root, SOURCES_PATH is relative to it. */
export interface BuildCommand {
  dockerfile: string
  context: string
  sourcesPath: string
  tags: readonly string[]
  buildArgs: ReadonlyArray<readonly [string, string]>
  labels: ReadonlyArray<readonly [string, string]>
  platform?: string
  cacheFrom: readonly string[]
  /** Check the registry for a newer base image even when the engine holds one (`--pull`). */
  pull?: boolean
  /**
   * Where a builder that pushes its images itself keeps its cache, every step of it, in the
   * registry (`<image>:buildcache`): its own cache does not outlive a fresh runner.
   */
  registryCache?: string
  /** `build-secrets`: each value reaches the build through the docker command's environment only. */
  secrets?: ReadonlyArray<BuildSecret>
}

export interface BuildSecret {
  /** What `RUN --mount=type=secret,id=<id>` names. */
  id: string
  value: string
}

/** What ran, without its arguments, for messages: `docker push`, `docker buildx build`. */
export function dockerCommandName(argv: readonly string[]): string {
  return ['docker', ...argv.slice(0, argv[0] === 'buildx' ? 2 : 1)].join(' ')
}

export function versionArgv(): string[] {
  return ['version', '--format', '{{json .}}']
}

/** The password goes to stdin: argv is visible in process lists and in error messages. */
export function loginArgv(server: string, username: string): string[] {
  return ['login', server, '--username', username, '--password-stdin']
}

/**
 * The builder `docker build` reaches. BuildKit goes through buildx's current builder; its driver
 * says where the image ends up: the `docker` driver writes it into the engine's image store, the
 * others (`docker-container`, `kubernetes`, `remote`) keep it in the builder unless told to load
 * or push it. The legacy builder is what `DOCKER_BUILDKIT=0`, or an engine without buildx, gives.
 */
export type Builder =
  | { kind: 'buildkit'; name: string; driver: string }
  | { kind: 'legacy'; reason: 'disabled' | 'no-buildx' }

/** How one build is run: by which builder, and whether its image is to be pushed. */
export interface BuildMode {
  builder: Builder
  push: boolean
  /** BuildKit writes the pushed manifest digest there (`--metadata-file`). */
  metadataFile?: string
}

export function buildArgv(command: BuildCommand, mode: BuildMode): string[] {
  const buildkit = mode.builder.kind === 'buildkit'
  // buildx's plain progress is one line per event, readable and redactable in a CI log.
  const argv = buildkit ? ['buildx', 'build', '--progress=plain'] : ['build']
  argv.push('--file', command.dockerfile)
  argv.push('--build-arg', `SOURCES_PATH=${command.sourcesPath}`)
  for (const [name, value] of command.buildArgs) argv.push('--build-arg', `${name}=${value}`)
  for (const [name, value] of command.labels) argv.push('--label', `${name}=${value}`)
  for (const tag of command.tags) argv.push('--tag', tag)
  if (command.platform) argv.push('--platform', command.platform)
  if (command.pull) argv.push('--pull')
  for (const source of command.cacheFrom) argv.push('--cache-from', source)
  for (const [variable, { id }] of secretVariables(command))
    argv.push('--secret', `id=${id},env=${variable}`)
  if (buildkit) {
    const output = buildOutput(mode)
    if (output === 'push' && command.registryCache) {
      // BuildKit reads only the steps that changed from this cache, without unpacking any layer.
      const cache = `type=registry,ref=${command.registryCache}`
      argv.push('--cache-from', cache, '--cache-to', `${cache},mode=max`)
    } else {
      // The cache metadata that makes these images usable as a later run's `--cache-from`: the
      // `docker` driver exports no other kind.
      argv.push('--cache-to', 'type=inline')
    }
    if (output) argv.push(`--${output}`)
    if (output === 'push' && mode.metadataFile) argv.push('--metadata-file', mode.metadataFile)
  }
  argv.push(command.context)
  return argv
}

/**
 * The variable each build secret is read from, by BuildKit's client: a name of ours, never the
 * id, so that a secret named PATH or DOCKER_CONFIG cannot change how docker itself runs. The
 * values go into the docker command's environment only: never into argv, which any process
 * list shows, nor into a file.
 */
export function secretVariables(
  command: Pick<BuildCommand, 'secrets'>,
): Array<[string, BuildSecret]> {
  return (command.secrets ?? []).map((secret, index) => [
    `OLYMPE_BUILD_SECRET_${index + 1}`,
    secret,
  ])
}

/** The environment that holds the build's secrets, for the docker command that builds it. */
export function secretEnvironment(command: Pick<BuildCommand, 'secrets'>): Record<string, string> {
  return Object.fromEntries(
    secretVariables(command).map(([variable, secret]) => [variable, secret.value]),
  )
}

/**
 * What BuildKit is told to do with the image beyond the builder's default: nothing for the
 * `docker` driver (the image is in the engine, `docker push` sends it), `push` or `load` for a
 * builder that keeps images to itself, where a later `docker push` would find nothing.
 */
export function buildOutput(mode: BuildMode): 'push' | 'load' | undefined {
  if (loadsIntoEngine(mode.builder)) return undefined
  return mode.push ? 'push' : 'load'
}

export function loadsIntoEngine(builder: Builder): boolean {
  return builder.kind === 'legacy' || builder.driver === 'docker'
}

/** The current builder, honouring `BUILDX_BUILDER` and `docker buildx use`. */
export function builderInspectArgv(): string[] {
  return ['buildx', 'inspect']
}

/** `docker buildx inspect` starts with `Name:` and `Driver:` of the builder (buildx 0.10 to 0.13+). */
export function parseBuilderInspect(output: string): { name: string; driver: string } | undefined {
  const field = (key: string): string | undefined =>
    new RegExp(`^${key}:[ \\t]*(\\S+)[ \\t]*$`, 'm').exec(output)?.[1]
  const name = field('Name')
  const driver = field('Driver')
  return name && driver ? { name, driver } : undefined
}

/**
 * The name under which an image's build context is given to BuildKit: the project folder's name
 * and the image's Dockerfile, `shop.frontend`. BuildKit keeps the context a client sent, to send
 * only what changed the next time, under a key made of the context folder's name and the
 * client's buildx identity, whatever files the build uses. The three images of a project share
 * one folder, so each build would find the files another image used and send all of its own
 * again (hundreds of MB each run). A link of this name to the project folder gives each image
 * a key, and a kept context, of its own.
 */
export function contextAlias(command: Pick<BuildCommand, 'context' | 'dockerfile'>): string {
  const image = basename(command.dockerfile).replace(/\.Dockerfile$/i, '')
  return `${basename(command.context)}.${image}`
}

/** What the docker command says when the buildx plugin is not installed (old and new wording). */
export function saysBuildxMissing(output: string): boolean {
  return /'buildx' is not a docker command|unknown command:? "?(docker )?buildx/i.test(output)
}

/**
 * `DOCKER_BUILDKIT` as the docker command reads it (Go's strconv.ParseBool): a false value
 * selects the legacy builder. Other values, or none, leave BuildKit on.
 */
export function buildkitDisabled(value: string | undefined): boolean {
  return value !== undefined && ['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value.trim())
}

/** `--metadata-file` JSON: `containerimage.digest` is the digest of what was pushed. */
export function parseBuildMetadata(text: string): string | undefined {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch {
    return undefined
  }
  const digest = stringAt(document, 'containerimage.digest')
  return digest && /^sha256:[0-9a-f]{64}$/.test(digest) ? digest : undefined
}

export function pushArgv(reference: string): string[] {
  return ['push', reference]
}

export function imageSizeArgv(reference: string): string[] {
  return ['image', 'inspect', '--format', '{{.Size}}', reference]
}

/** Bytes, or undefined when `imageSizeArgv` printed no number. */
export function parseImageSize(output: string): number | undefined {
  const text = output.trim()
  const size = Number(text)
  return text !== '' && Number.isFinite(size) ? size : undefined
}

/** A base image's ONBUILD triggers, as a JSON array (`null` when it has none). */
export function onBuildArgv(reference: string): string[] {
  return ['image', 'inspect', '--format', '{{json .Config.OnBuild}}', reference]
}

export function pullArgv(reference: string): string[] {
  return ['pull', '--quiet', reference]
}

/** The triggers, or undefined when the output is not what `onBuildArgv` prints. */
export function parseOnBuild(output: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(output.trim())
    if (parsed === null) return []
    if (Array.isArray(parsed) && parsed.every((item) => typeof item === 'string')) return parsed
  } catch {
    // Not JSON: fall through.
  }
  return undefined
}

/** `docker image inspect` of an image the engine does not hold. */
export function saysNoSuchImage(output: string): boolean {
  return /no such (image|object)/i.test(output)
}

/** One line per layer step, newest first, sizes in bytes. */
export function historyArgv(reference: string): string[] {
  return ['image', 'history', '--no-trunc', '--human=false', '--format', '{{json .}}', reference]
}

export interface HistoryEntry {
  /** The step that made the layer: `COPY dist/web /usr/share/nginx/html # buildkit`. */
  createdBy: string
  bytes: number
}

export function parseHistory(output: string): HistoryEntry[] {
  const entries: HistoryEntry[] = []
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue
    const row = JSON.parse(line) as { CreatedBy?: unknown; Size?: unknown }
    const bytes = Number(row.Size)
    entries.push({
      createdBy: typeof row.CreatedBy === 'string' ? row.CreatedBy : '',
      bytes: Number.isFinite(bytes) ? bytes : 0,
    })
  }
  return entries
}

/**
 * `docker push` ends with `<tag>: digest: sha256:<64 hex> size: <bytes>`: the manifest digest,
 * the one the registry serves and `name@sha256:…` references pin.
 */
export function parsePushDigest(output: string, reference: string): string | undefined {
  const tag = reference.slice(reference.lastIndexOf(':') + 1)
  for (const line of output.split(/\r?\n/).reverse()) {
    const match = /^(\S+): digest: (sha256:[0-9a-f]{64}) size: \d+\s*$/.exec(line.trim())
    if (match && match[1] === tag) return match[2]
  }
  return undefined
}

export interface DockerVersions {
  client?: string
  /** Undefined when the daemon did not answer. */
  server?: string
  /** The daemon's `os/arch`: the platform of an image built without `--platform`. */
  platform?: string
}

/** `docker version --format '{{json .}}'` prints the client part even when no daemon answers. */
export function parseVersions(output: string): DockerVersions {
  let document: unknown
  try {
    document = JSON.parse(output.trim())
  } catch {
    return {}
  }
  const os = stringAt(document, 'Server', 'Os')
  const arch = stringAt(document, 'Server', 'Arch')
  return {
    client: stringAt(document, 'Client', 'Version'),
    server: stringAt(document, 'Server', 'Version'),
    ...(os && arch ? { platform: `${os}/${arch}` } : {}),
  }
}

function stringAt(document: unknown, ...path: string[]): string | undefined {
  let value = document
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** `28.2.2`, `24.0.7-ce`, `20.10.24+dfsg1` → their major version. */
export function majorVersion(version: string): number | undefined {
  const match = /^v?(\d+)\./.exec(version.trim())
  return match ? Number(match[1]) : undefined
}
