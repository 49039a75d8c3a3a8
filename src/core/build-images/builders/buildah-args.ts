import type { RegistryMirrors } from '../../registry/mirrors.js'
import { isSha256Digest } from '../../shared/image-ref.js'
import { isObject, jsonValue } from '../../shared/json-text.js'
import {
  COPY_STEP,
  secretArgv,
  sharedBuildArgv,
  type BuildCommand,
  type HistoryEntry,
} from './build-command.js'

/**
 * Every buildah command line the action runs, as argv arrays (never a shell string), the
 * registries configuration it runs with, and the parsers of what those commands print. Pure,
 * so that each is table-tested. Buildah builds without a daemon, as an unprivileged user: what
 * runners without Docker (Kubernetes executors, Actions Runner Controller) can run.
 */

/**
 * What a runner without privileges needs (Buildah's own advice for builds in containers): the
 * `vfs` storage driver (no overlay mount, no fuse) and `chroot` isolation (no new mount or
 * network namespace, no runtime), unless STORAGE_DRIVER and BUILDAH_ISOLATION choose. Either way
 * the value is given on each command line: Buildah 1.28 (Debian bookworm's, the job image's)
 * reads STORAGE_DRIVER in `bud` and `pull` only, and its `push` and `inspect` then probe overlay,
 * which fails in a container and leaves a store that every later command refuses.
 */
const BUILDAH_DEFAULTS = { storageDriver: 'vfs', isolation: 'chroot' } as const

/**
 * Debian bookworm's, the oldest this step is run with: its `bud` takes `--secret id=…,env=…`
 * and `--identity-label=false`, and its `push` `--digestfile`, as used here.
 */
export const MIN_BUILDAH = { major: 1, minor: 28 } as const

/** A setting of Buildah's, and who chose it: this step's default, or the environment. */
export interface BuildahSetting {
  value: string
  /** The variable that set it; undefined when it is this step's default. */
  from?: 'STORAGE_DRIVER' | 'BUILDAH_ISOLATION'
}

export interface BuildahSetup {
  kind: 'buildah'
  version: string
  storageDriver: BuildahSetting
  isolation: BuildahSetting
}

/** The settings as the environment gives them, else this step's defaults. */
export function buildahSettings(env: {
  STORAGE_DRIVER?: string
  BUILDAH_ISOLATION?: string
}): Pick<BuildahSetup, 'storageDriver' | 'isolation'> {
  const storage = env.STORAGE_DRIVER?.trim()
  const isolation = env.BUILDAH_ISOLATION?.trim()
  return {
    storageDriver: storage
      ? { value: storage, from: 'STORAGE_DRIVER' }
      : { value: BUILDAH_DEFAULTS.storageDriver },
    isolation: isolation
      ? { value: isolation, from: 'BUILDAH_ISOLATION' }
      : { value: BUILDAH_DEFAULTS.isolation },
  }
}

type Settings = Pick<BuildahSetup, 'storageDriver' | 'isolation'>

/** The global options every command that touches the image store gets. */
function storageArgv(settings: Settings): string[] {
  return ['--storage-driver', settings.storageDriver.value]
}

/** What ran, without its arguments, for messages: `buildah bud`, `buildah push`. */
export function buildahCommandName(argv: readonly string[]): string {
  const command = argv.find((word, index) => !word.startsWith('-') && !isOptionValue(argv, index))
  return `buildah ${command ?? ''}`.trim()
}

function isOptionValue(argv: readonly string[], index: number): boolean {
  return index > 0 && argv[index - 1] === '--storage-driver'
}

export function buildahVersionArgv(): string[] {
  return ['version', '--json']
}

/** `buildah version --json`: the version, and the platform it builds for by default. */
export function parseBuildahVersion(output: string): { client?: string; platform?: string } {
  const parsed = jsonValue(output)
  if (!isObject(parsed)) return {}
  return {
    ...(typeof parsed.version === 'string' && parsed.version ? { client: parsed.version } : {}),
    ...(typeof parsed.osArch === 'string' && /^[a-z0-9_]+\/[a-z0-9_]+/.test(parsed.osArch)
      ? { platform: parsed.osArch }
      : {}),
  }
}

/**
 * The password goes to stdin. A registry on loopback is asked over plain http, as everywhere
 * else in this step: `buildah login` does not read that from the registries configuration.
 */
export function buildahLoginArgv(server: string, username: string, plainHttp: boolean): string[] {
  return [
    'login',
    '--username',
    username,
    '--password-stdin',
    ...(plainHttp ? ['--tls-verify=false'] : []),
    server,
  ]
}

/**
 * `buildah bud`, as Docker's builder would build the image:
 * - `--format docker`: a Docker manifest and config, as Docker pushes them, which keep ONBUILD
 *   triggers (OCI configs have none) for images built FROM this one;
 * - no `--layers`: the build's steps go into one layer over the base. With `vfs`, `--layers`
 *   copies the whole file tree into a new container at every step and deletes them all at the
 *   end: four times slower on a real-sized backend (190 s against 48 s), for a cache that a
 *   fresh runner does not have anyway;
 * - `--identity-label=false`: no `io.buildah.version` label, so that the labels are the ones
 *   the step sets, as with Docker;
 * - `--pull=true` checks the registry for a newer base, as Docker's `--pull`; `false` pulls
 *   only a missing one, as Docker does without it.
 * `cache-from` images are not given: Buildah takes a repository of its own cache there.
 */
export function buildahBuildArgv(command: BuildCommand, settings: Settings): string[] {
  const argv = [...storageArgv(settings), 'bud', '--format', 'docker', '--identity-label=false']
  argv.push('--isolation', settings.isolation.value)
  argv.push(`--pull=${command.pull ? 'true' : 'false'}`)
  argv.push(...sharedBuildArgv(command), ...secretArgv(command), command.context)
  return argv
}

/** Pushes in Docker's manifest format, as `docker push` does; the digest goes to `digestFile`. */
export function buildahPushArgv(
  reference: string,
  digestFile: string,
  settings: Settings,
): string[] {
  return [
    ...storageArgv(settings),
    'push',
    '--format',
    'docker',
    '--digestfile',
    digestFile,
    reference,
  ]
}

/** The digest `--digestfile` wrote, or undefined when it holds none. */
export function parseDigestFile(text: string): string | undefined {
  const digest = text.trim()
  return isSha256Digest(digest) ? digest : undefined
}

export function buildahPullArgv(reference: string, settings: Settings): string[] {
  return [...storageArgv(settings), 'pull', '--quiet', reference]
}

export function buildahInspectArgv(reference: string, settings: Settings): string[] {
  return [...storageArgv(settings), 'inspect', '--type', 'image', reference]
}

/** `buildah inspect` of an image the store does not hold. */
export function saysImageNotKnown(output: string): boolean {
  return /image not known|no such image/i.test(output)
}

/** What `buildah inspect --type image` says of an image, as the core asks it. */
export interface BuildahImage {
  onBuild: string[]
  /** Newest first, as `docker image history` lists them; a step without a layer counts 0 bytes. */
  history: HistoryEntry[]
  /** The layers' bytes, unpacked as the store holds a built image's (docker image ls's size). */
  size: number
}

/** The image's Docker config, history and manifest; undefined when the output is not that. */
export function parseBuildahInspect(output: string): BuildahImage | undefined {
  const document = jsonValue(output)
  if (!isObject(document)) return undefined
  const docker = isObject(document.Docker) ? document.Docker : {}
  const config = isObject(docker.config) ? docker.config : {}
  const onBuild = Array.isArray(config.OnBuild)
    ? config.OnBuild.filter((line): line is string => typeof line === 'string')
    : []
  const oci = isObject(document.OCIv1) ? document.OCIv1 : {}
  const steps = Array.isArray(oci.history) ? oci.history.filter(isObject) : []
  const layers = manifestLayers(document.Manifest)
  if (!layers) return undefined
  return {
    onBuild,
    history: layerSteps(steps, layers).reverse(),
    size: layers.reduce((total, bytes) => total + bytes, 0),
  }
}

/**
 * The history with each layer's bytes on its step. Buildah commits a build's steps as one layer,
 * recorded on the last step (a LABEL): that layer is named after the first COPY or ADD of the
 * steps it holds, the one whose size the size check compares with the sources.
 */
function layerSteps(
  steps: Array<Record<string, unknown>>,
  layers: readonly number[],
): HistoryEntry[] {
  let layer = 0
  let since = 0
  return steps.map((step, index): HistoryEntry => {
    const createdBy = typeof step.created_by === 'string' ? step.created_by : ''
    if (step.empty_layer === true) return { createdBy, bytes: 0 }
    const held = steps
      .slice(since, index + 1)
      .map((s) => (typeof s.created_by === 'string' ? s.created_by : ''))
    since = index + 1
    const copy = held.find((line) => COPY_STEP.test(line))
    const named =
      copy && copy !== createdBy ? `${copy.trim()} (with the steps after it, one layer)` : createdBy
    return { createdBy: named, bytes: layers[layer++] ?? 0 }
  })
}

/** The sizes of the manifest's layers (a JSON text in buildah's output). */
function manifestLayers(manifest: unknown): number[] | undefined {
  if (typeof manifest !== 'string') return undefined
  const parsed = jsonValue(manifest)
  if (!isObject(parsed) || !Array.isArray(parsed.layers)) return undefined
  return parsed.layers.map((layer: unknown) =>
    isObject(layer) && typeof layer.size === 'number' ? layer.size : 0,
  )
}

/**
 * The registries configuration (containers-registries.conf, version 2) Buildah runs with:
 * - an image named without a registry is Docker Hub's, as Docker reads it (Debian's own file
 *   names no search registry, and short names would fail);
 * - each `registry-mirrors` line redirects its registry's images to the mirror (pulls only:
 *   pushes go where the reference says), with no fallback, as Docker's named contexts;
 * - registries on loopback are asked over plain http, as Docker and this step's look-ups do.
 * Aliases of drop-in files (registries.conf.d) still apply: the fingerprint of an image built
 * FROM a short name is Buildah's own (see builders/reading.ts).
 */
export function registriesConf(options: {
  mirrors: RegistryMirrors
  plainHttp: readonly string[]
}): string {
  const lines = [
    '# Written by olympe-deploy-actions for one build-images step, and removed at its end.',
    'unqualified-search-registries = ["docker.io"]',
    'short-name-mode = "permissive"',
  ]
  const prefixes = new Set<string>()
  for (const mirror of options.mirrors) {
    prefixes.add(mirror.registry)
    lines.push(
      '',
      '[[registry]]',
      `prefix = ${tomlString(mirror.registry)}`,
      `location = ${tomlString(mirror.location)}`,
      `insecure = ${String(options.plainHttp.includes(mirror.host))}`,
    )
  }
  for (const host of options.plainHttp) {
    if (prefixes.has(host)) continue
    prefixes.add(host)
    lines.push('', '[[registry]]', `location = ${tomlString(host)}`, 'insecure = true')
  }
  return `${lines.join('\n')}\n`
}

/** Hosts and paths as the inputs' parsers let them through: no quote, no backslash, no control. */
function tomlString(value: string): string {
  return JSON.stringify(value)
}

/** What the log says of the builder before the first build. */
export function describeBuildah(setup: BuildahSetup): string {
  const said = (setting: BuildahSetting, variable: string): string =>
    setting.from
      ? `${setting.value} (from ${setting.from})`
      : `${setting.value} (${variable} unset: this step's default)`
  return `Builder: Buildah ${setup.version}, storage driver ${said(setup.storageDriver, 'STORAGE_DRIVER')}, isolation ${said(setup.isolation, 'BUILDAH_ISOLATION')}: each image goes into Buildah's store, then buildah push sends it in Docker's manifest format.`
}
