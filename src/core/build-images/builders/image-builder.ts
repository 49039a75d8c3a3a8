import type { BuildahSetup } from './buildah-args.js'
import type { BuildCommand, BuilderVersions, HistoryEntry } from './build-command.js'
import type { DockerBuilder } from './docker-args.js'

/**
 * The builders build-images can build with (the `builder` input, once `auto` is decided). Each
 * has a descriptor in core (known-builders.ts: what the core knows of it) and an adapter in
 * src/tools (tools/builders.ts: its command line); the type checker asks for both.
 */
export const BUILDER_NAMES = ['docker', 'buildah'] as const
export type BuilderName = (typeof BUILDER_NAMES)[number]

/** How each builder will run the builds (what its `setup()` says), by name. */
export interface BuilderSetups extends Record<BuilderName, unknown> {
  docker: DockerBuilder
  buildah: BuildahSetup
}

/** How a builder will run the builds: what the log says of it before the first one. */
export type BuilderSetup = BuilderSetups[BuilderName]

/**
 * The image builder as the core sees it, whichever it is. src/tools/docker.ts implements it over
 * the docker command line, src/tools/buildah.ts over buildah's, each with the argv builders and
 * output parsers of its own module in core (docker-args.ts, buildah-args.ts); tests give a fake.
 */
export interface ImageBuilder {
  readonly name: BuilderName
  versions(): Promise<BuilderVersions & { problem?: string }>
  /** How the builds will run (asked once); a BuilderCommandError when the builder cannot say. */
  setup(): Promise<BuilderSetup>
  /** `<builder> login SERVER --password-stdin`. */
  login(server: string, username: string, password: string): Promise<void>
  /**
   * Builds, printing the command line and then its output to onLine. Resolves to the manifest
   * digest when the build pushed the image itself (a BuildKit driver other than `docker` with
   * push on).
   */
  build(
    command: BuildCommand,
    options: { push: boolean },
    onLine: (line: string) => void,
  ): Promise<{ digest?: string }>
  /** Prints the command line, then its output; resolves to the manifest digest the registry returned. */
  push(reference: string, onLine: (line: string) => void): Promise<string>
  /** Bytes, unpacked, or undefined when the builder cannot say. */
  imageSize(reference: string): Promise<number | undefined>
  /** A base image's ONBUILD triggers; pulls it first when the builder does not hold it. */
  onBuildTriggers(reference: string): Promise<string[]>
  /** The image's layer steps, newest first. */
  history(reference: string): Promise<HistoryEntry[]>
}

/** A builder command that failed to start or exited non-zero; the core words the message. */
export class BuilderCommandError extends Error {
  override readonly name = 'BuilderCommandError'
  constructor(
    /** `docker build`, `buildah push`…: what ran, without its arguments. */
    readonly command: string,
    /** `exited with 1`, `could not start (spawn docker ENOENT)`. */
    readonly reason: string,
    /** The last lines it printed, stdout and stderr in the order they came. */
    readonly tail: readonly string[],
  ) {
    super(`${command} ${reason}`)
  }
}
