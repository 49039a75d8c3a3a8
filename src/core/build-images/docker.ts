import type { BuildCommand, DockerVersions } from './docker-args.js'

/**
 * The Docker engine as the core sees it. src/tools/docker.ts implements it over the exec port
 * with the argv builders of docker-args.ts; tests give a fake.
 */
export interface DockerClient {
  versions(): Promise<DockerVersions & { problem?: string }>
  /** `docker login SERVER --password-stdin`. */
  login(server: string, username: string, password: string): Promise<void>
  build(command: BuildCommand, onLine: (line: string) => void): Promise<void>
  /** Resolves to the manifest digest the registry returned. */
  push(reference: string, onLine: (line: string) => void): Promise<string>
  /** Bytes, or undefined when docker cannot say. */
  imageSize(reference: string): Promise<number | undefined>
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
