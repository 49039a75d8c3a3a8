/**
 * One image build as every builder gets it (Docker with BuildKit, or Buildah): what to build and
 * with what, whichever command line each builder's argv builder (docker-args.ts,
 * buildah-args.ts) makes of it.
 */

/** One build: the context is the project root, SOURCES_PATH is relative to it. */
export interface BuildCommand {
  dockerfile: string
  context: string
  sourcesPath: string
  tags: readonly string[]
  buildArgs: ReadonlyArray<readonly [string, string]>
  labels: ReadonlyArray<readonly [string, string]>
  platform?: string
  cacheFrom: readonly string[]
  /** Check the registry for a newer base image even when the builder holds one (`--pull`). */
  pull?: boolean
  /**
   * Where a builder that pushes its images itself keeps its cache, every step of it, in the
   * registry (`<image>:buildcache`): its own cache does not outlive a fresh runner.
   */
  registryCache?: string
  /** `build-secrets`: each value reaches the build through the builder command's environment only. */
  secrets?: ReadonlyArray<BuildSecret>
  /**
   * The images the Dockerfile builds FROM or copies from, as written, each with the reference
   * it is pulled from when `registry-mirrors` serves its registry (see mirrors.ts).
   */
  bases?: readonly BaseImage[]
}

export interface BaseImage {
  /** As the Dockerfile names it: `olympeio/frontend-base:latest`. */
  reference: string
  /** Where a mirror serves it: `registry.internal/dockerhub/olympeio/frontend-base:latest`. */
  mirrored?: string
}

export interface BuildSecret {
  /** What `RUN --mount=type=secret,id=<id>` names. */
  id: string
  value: string
}

/**
 * The variable each build secret is read from, by the builder's client: a name of ours, never
 * the id, so that a secret named PATH or DOCKER_CONFIG cannot change how the builder itself
 * runs. The values go into the builder command's environment only: never into argv, which any
 * process list shows, nor into a file.
 */
export function secretVariables(
  command: Pick<BuildCommand, 'secrets'>,
): Array<[string, BuildSecret]> {
  return (command.secrets ?? []).map((secret, index) => [
    `OLYMPE_BUILD_SECRET_${index + 1}`,
    secret,
  ])
}

/**
 * What Docker's and Buildah's build commands say alike, in the same words: the Dockerfile,
 * SOURCES_PATH and the build arguments, the labels, the tags and the platform.
 */
export function sharedBuildArgv(command: BuildCommand): string[] {
  const argv = ['--file', command.dockerfile]
  argv.push('--build-arg', `SOURCES_PATH=${command.sourcesPath}`)
  for (const [name, value] of command.buildArgs) argv.push('--build-arg', `${name}=${value}`)
  for (const [name, value] of command.labels) argv.push('--label', `${name}=${value}`)
  for (const tag of command.tags) argv.push('--tag', tag)
  if (command.platform) argv.push('--platform', command.platform)
  return argv
}

/** Each build secret as both builders take it: `--secret id=<id>,env=<variable>`. */
export function secretArgv(command: Pick<BuildCommand, 'secrets'>): string[] {
  return secretVariables(command).flatMap(([variable, { id }]) => [
    '--secret',
    `id=${id},env=${variable}`,
  ])
}

/** The environment that holds the build's secrets, for the command that builds it. */
export function secretEnvironment(command: Pick<BuildCommand, 'secrets'>): Record<string, string> {
  return Object.fromEntries(
    secretVariables(command).map(([variable, secret]) => [variable, secret.value]),
  )
}

/** One layer step of an image, as its history tells it. */
export interface HistoryEntry {
  /** The step that made the layer: `COPY dist/web /usr/share/nginx/html # buildkit`. */
  createdBy: string
  bytes: number
}

/**
 * A history step that copies files in: BuildKit's and Buildah's `COPY …`/`ADD …`, the
 * classic builder's `/bin/sh -c #(nop) COPY …`.
 */
export const COPY_STEP = /^(\/bin\/sh -c #\(nop\)\s+)?(COPY|ADD)\b/

/** What a builder says of itself before anything is built. */
export interface BuilderVersions {
  /** Docker's client, or Buildah's version. */
  client?: string
  /** Docker's daemon; undefined when it did not answer (Buildah has none). */
  server?: string
  /** `os/arch`: the platform of an image built without `--platform`. */
  platform?: string
}

/** `28.2.2`, `24.0.7-ce`, `20.10.24+dfsg1`, `1.28.2` → their major and minor version. */
export function releaseNumber(version: string): { major: number; minor: number } | undefined {
  const match = /^v?(\d+)\.(\d+)/.exec(version.trim())
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : undefined
}

/** `28.2.2`, `24.0.7-ce`, `20.10.24+dfsg1` → their major version. */
export function majorVersion(version: string): number | undefined {
  return releaseNumber(version)?.major
}
