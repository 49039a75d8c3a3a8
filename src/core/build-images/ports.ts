import type {
  BuildCommand,
  Builder,
  BuildMode,
  DockerVersions,
  HistoryEntry,
} from './docker-args.js'

/**
 * The Docker engine as the core sees it. src/tools/docker.ts implements it over the exec port
 * with the argv builders and output parsers of docker-args.ts; tests give a fake.
 */
export interface DockerClient {
  versions(): Promise<DockerVersions & { problem?: string }>
  /** The builder `docker build` would use; a DockerCommandError when buildx cannot say. */
  builder(): Promise<Builder>
  /** `docker login SERVER --password-stdin`. */
  login(server: string, username: string, password: string): Promise<void>
  /**
   * Builds, printing the command line and then its output to onLine. Resolves to the manifest
   * digest when the build pushed the image itself (a builder other than `docker` with push on).
   */
  build(
    command: BuildCommand,
    mode: Omit<BuildMode, 'metadataFile'>,
    onLine: (line: string) => void,
  ): Promise<{ digest?: string }>
  /** Prints the command line, then its output; resolves to the manifest digest the registry returned. */
  push(reference: string, onLine: (line: string) => void): Promise<string>
  /** Bytes, or undefined when docker cannot say. */
  imageSize(reference: string): Promise<number | undefined>
  /** A base image's ONBUILD triggers; pulls it first when the engine does not hold it. */
  onBuildTriggers(reference: string): Promise<string[]>
  /** The image's layer steps, newest first. */
  history(reference: string): Promise<HistoryEntry[]>
}

/** A docker command that failed to start or exited non-zero; the core words the message. */
export class DockerCommandError extends Error {
  override readonly name = 'DockerCommandError'
  constructor(
    /** `docker build`, `docker push`…: what ran, without its arguments. */
    readonly command: string,
    /** `exited with 1`, `could not start (spawn docker ENOENT)`. */
    readonly reason: string,
    /** The last lines it printed, stdout and stderr in the order they came. */
    readonly tail: readonly string[],
  ) {
    super(`${command} ${reason}`)
  }
}
