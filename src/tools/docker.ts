import {
  buildArgv,
  imageSizeArgv,
  loginArgv,
  parsePushDigest,
  parseVersions,
  pushArgv,
  versionArgv,
} from '../core/build-images/docker-args.js'
import { DockerCommandError, type DockerClient } from '../core/build-images/docker.js'
import { errorMessage } from '../core/shared/errors.js'
import type { Exec, ExecResult } from '../core/shared/exec.js'

export interface DockerOptions {
  /** Added to every docker command's environment, e.g. an isolated DOCKER_CONFIG. */
  env?: Record<string, string>
}

/** Lines of output kept for an error message: enough for a failing RUN step and its cause. */
const TAIL_LINES = 30

/** The Docker engine through its command line, over the exec port. */
export function createDocker(exec: Exec, options: DockerOptions = {}): DockerClient {
  const run = async (
    argv: string[],
    extra: { input?: string; onLine?: (line: string) => void } = {},
  ): Promise<ExecResult> => {
    const command = `docker ${argv[0] ?? ''}`
    const tail: string[] = []
    let result: ExecResult
    try {
      result = await exec('docker', argv, {
        env: options.env,
        input: extra.input,
        onLine: (line) => {
          tail.push(line)
          if (tail.length > TAIL_LINES) tail.shift()
          extra.onLine?.(line)
        },
      })
    } catch (error) {
      throw new DockerCommandError(command, `could not start (${errorMessage(error)})`, [])
    }
    if (result.code !== 0) throw new DockerCommandError(command, `exited with ${result.code}`, tail)
    return result
  }

  return {
    async versions() {
      let result: ExecResult
      try {
        result = await exec('docker', versionArgv(), { env: options.env })
      } catch (error) {
        return { problem: `the docker command could not start (${errorMessage(error)})` }
      }
      const versions = parseVersions(result.stdout)
      const said = result.stderr.trim().split('\n').slice(-3).join(' ')
      return result.code === 0 || versions.server ? versions : { ...versions, problem: said }
    },
    async login(server, username, password) {
      await run(loginArgv(server, username), { input: password })
    },
    async build(command, onLine) {
      await run(buildArgv(command), { onLine })
    },
    async push(reference, onLine) {
      const { stdout } = await run(pushArgv(reference), { onLine })
      const digest = parsePushDigest(stdout, reference)
      if (!digest)
        throw new DockerCommandError(
          'docker push',
          'printed no manifest digest',
          stdout.split('\n'),
        )
      return digest
    },
    async imageSize(reference) {
      try {
        const { stdout } = await run(imageSizeArgv(reference))
        const size = Number(stdout.trim())
        return Number.isFinite(size) && stdout.trim() !== '' ? size : undefined
      } catch {
        return undefined
      }
    },
  }
}
