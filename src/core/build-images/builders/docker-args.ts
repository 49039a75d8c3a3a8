import { basename } from 'node:path'
import { DOCKER_HUB, registryName } from '../../registry/reference.js'
import { isSha256Digest, parseImageName } from '../../shared/image-ref.js'
import { jsonValue } from '../../shared/json-text.js'
import {
  secretArgv,
  sharedBuildArgv,
  type BuildCommand,
  type BuilderVersions,
  type HistoryEntry,
} from './build-command.js'

/**
 * Every docker command line the action runs, as argv arrays (never a shell string), and the
 * parsers of what those commands print. Pure, so that each is table-tested.
 */

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
export type DockerBuilder =
  | { kind: 'buildkit'; name: string; driver: string }
  | { kind: 'legacy'; reason: 'disabled' | 'no-buildx' }

/** How one build is run: by which builder, and whether its image is to be pushed. */
export interface BuildMode {
  builder: DockerBuilder
  push: boolean
  /** BuildKit writes the pushed manifest digest there (`--metadata-file`). */
  metadataFile?: string
}

export function buildArgv(command: BuildCommand, mode: BuildMode): string[] {
  const buildkit = mode.builder.kind === 'buildkit'
  // buildx's plain progress is one line per event, readable and redactable in a CI log.
  const argv = buildkit ? ['buildx', 'build', '--progress=plain'] : ['build']
  argv.push(...sharedBuildArgv(command))
  if (command.pull) argv.push('--pull')
  for (const source of command.cacheFrom) argv.push('--cache-from', source)
  argv.push(...secretArgv(command))
  if (buildkit) {
    // A base that a mirror serves is pulled from there: engine mirrors serve Docker Hub only and
    // take no path, a named context takes any image from anywhere.
    for (const base of command.bases ?? [])
      if (base.mirrored)
        argv.push(
          '--build-context',
          `${namedContextKey(base.reference)}=docker-image://${base.mirrored}`,
        )
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
 * What BuildKit is told to do with the image beyond the builder's default: nothing for the
 * `docker` driver (the image is in the engine, `docker push` sends it), `push` or `load` for a
 * builder that keeps images to itself, where a later `docker push` would find nothing.
 */
export function buildOutput(mode: BuildMode): 'push' | 'load' | undefined {
  if (loadsIntoEngine(mode.builder)) return undefined
  return mode.push ? 'push' : 'load'
}

export function loadsIntoEngine(builder: DockerBuilder): boolean {
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
  const document = jsonValue(text)
  if (document === undefined) return undefined
  const digest = stringAt(document, 'containerimage.digest')
  return digest && isSha256Digest(digest) ? digest : undefined
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
  const parsed = jsonValue(output.trim())
  if (parsed === null) return []
  if (Array.isArray(parsed) && parsed.every((item) => typeof item === 'string')) return parsed
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
    const match = /^(\S+): digest: (\S+) size: \d+\s*$/.exec(line.trim())
    if (match && match[1] === tag && isSha256Digest(match[2] ?? '')) return match[2]
  }
  return undefined
}

/** `docker version --format '{{json .}}'` prints the client part even when no daemon answers. */
export function parseVersions(output: string): BuilderVersions {
  const document = jsonValue(output.trim())
  if (document === undefined) return {}
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

/**
 * The name BuildKit looks a FROM image up by among the named contexts: the image as Docker
 * shows it (`node:20`, `olympeio/frontend-base`, `ghcr.io/acme/base:1`), Docker Hub's `docker.io/`
 * and `library/` left out, and a `:latest` tag too (dockerui's NamedContext).
 */
export function namedContextKey(reference: string): string {
  const parsed = parseImageName(reference)
  if (!parsed) return reference
  const hub = parsed.domain === undefined || registryName(parsed.domain) === DOCKER_HUB
  const path = hub ? parsed.path.replace(/^library\/(?=[^/]+$)/, '') : parsed.path
  const name = hub ? path : `${parsed.domain ?? ''}/${path}`
  const tagged = parsed.tag ? `${name}:${parsed.tag}` : name
  const familiar = parsed.digest ? `${tagged}@${parsed.digest}` : tagged
  return familiar.replace(/:latest$/, '')
}
