// The Docker adapter: the DockerClient port over the docker command line (whose argv the core's
// docker-args.ts builds, and whose output it parses), and the Docker config folders it runs with.
import { copyFile, mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import {
  builderInspectArgv,
  buildArgv,
  buildkitDisabled,
  buildOutput,
  contextAlias,
  dockerCommandName,
  historyArgv,
  imageSizeArgv,
  onBuildArgv,
  parseHistory,
  parseImageSize,
  parseOnBuild,
  pullArgv,
  saysNoSuchImage,
  loginArgv,
  parseBuilderInspect,
  parseBuildMetadata,
  parsePushDigest,
  parseVersions,
  pushArgv,
  saysBuildxMissing,
  versionArgv,
} from '../core/build-images/docker-args.js'
import { DockerCommandError, type DockerClient } from '../core/build-images/ports.js'
import type { Env } from '../core/shared/env.js'
import { errorMessage } from '../core/shared/errors.js'
import { commandLine, type Exec, type ExecResult } from '../core/shared/exec.js'

export interface DockerOptions {
  /** Added to every docker command's environment, e.g. an isolated DOCKER_CONFIG. */
  env?: Record<string, string>
}

/** Lines of output kept for an error message: enough for a failing RUN step and its cause. */
const TAIL_LINES = 30

interface RunExtra {
  input?: string
  onLine?: (line: string) => void
  /** Print the command line to onLine first. */
  echo?: boolean
}

/** The Docker engine through its command line, over the exec port. */
export function createDocker(exec: Exec, options: DockerOptions = {}): DockerClient {
  const run = async (argv: string[], extra: RunExtra = {}): Promise<ExecResult> => {
    const command = dockerCommandName(argv)
    if (extra.echo) extra.onLine?.(`$ ${commandLine('docker', argv)}`)
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

  let versions: ReturnType<DockerClient['versions']> | undefined
  const askVersions: DockerClient['versions'] = async () => {
    let result: ExecResult
    try {
      result = await exec('docker', versionArgv(), { env: options.env })
    } catch (error) {
      return { problem: `the docker command could not start (${errorMessage(error)})` }
    }
    const found = parseVersions(result.stdout)
    const said = result.stderr.trim().split('\n').slice(-3).join(' ')
    return result.code === 0 || found.server ? found : { ...found, problem: said }
  }

  return {
    // Asked once a step: the pre-flight check and the platform of the fingerprints both need it.
    versions: () => (versions ??= askVersions()),
    async builder() {
      // The docker command itself reads this variable; the exec port adds options.env to ours.
      const setting = options.env?.DOCKER_BUILDKIT ?? process.env.DOCKER_BUILDKIT
      if (buildkitDisabled(setting)) return { kind: 'legacy', reason: 'disabled' }
      let result: ExecResult
      try {
        result = await run(builderInspectArgv())
      } catch (error) {
        if (error instanceof DockerCommandError && saysBuildxMissing(error.tail.join('\n')))
          return { kind: 'legacy', reason: 'no-buildx' }
        throw error
      }
      const found = parseBuilderInspect(result.stdout)
      if (!found) {
        const said = result.stdout.split('\n').slice(0, 5)
        throw new DockerCommandError('docker buildx inspect', 'printed no builder driver', said)
      }
      return { kind: 'buildkit', ...found }
    },
    async login(server, username, password) {
      await run(loginArgv(server, username), { input: password })
    },
    async build(command, mode, onLine) {
      const dir = await mkdtemp(join(tmpdir(), 'olympe-build-'))
      try {
        let context = command.context
        if (mode.builder.kind === 'buildkit') {
          // A context of the image's own for BuildKit's kept copy: see contextAlias.
          context = join(dir, contextAlias(command))
          await symlink(resolve(command.context), context)
        }
        const pushes = buildOutput(mode) === 'push'
        // The image goes straight from the builder to the registry: the digest is in the metadata.
        const metadataFile = pushes ? join(dir, 'metadata.json') : undefined
        const argv = buildArgv({ ...command, context }, { ...mode, metadataFile })
        await run(argv, { onLine, echo: true })
        if (!metadataFile) return {}
        const text = await readFile(metadataFile, 'utf8').catch(() => '')
        const digest = parseBuildMetadata(text)
        if (!digest) {
          const tail = [`--metadata-file held: ${text.slice(0, 500) || '(nothing)'}`]
          throw new DockerCommandError('docker buildx build', 'reported no pushed digest', tail)
        }
        return { digest }
      } finally {
        // Removes the link, never the project it points to.
        await rm(dir, { recursive: true, force: true })
      }
    },
    async push(reference, onLine) {
      const { stdout } = await run(pushArgv(reference), { onLine, echo: true })
      const digest = parsePushDigest(stdout, reference)
      if (!digest)
        throw new DockerCommandError(
          'docker push',
          'printed no manifest digest',
          stdout.split('\n'),
        )
      return digest
    },
    async onBuildTriggers(reference) {
      const inspect = async (): Promise<string[]> => {
        const { stdout } = await run(onBuildArgv(reference))
        const triggers = parseOnBuild(stdout)
        if (triggers) return triggers
        throw new DockerCommandError('docker image inspect', 'printed no ONBUILD list', [stdout])
      }
      try {
        return await inspect()
      } catch (error) {
        if (!(error instanceof DockerCommandError && saysNoSuchImage(error.tail.join('\n'))))
          throw error
      }
      await run(pullArgv(reference))
      return inspect()
    },
    async history(reference) {
      const { stdout } = await run(historyArgv(reference))
      return parseHistory(stdout)
    },
    async imageSize(reference) {
      try {
        return parseImageSize((await run(imageSizeArgv(reference))).stdout)
      } catch {
        return undefined
      }
    },
  }
}

/**
 * The Docker config that a `docker login` earlier in the job wrote, as the docker CLI finds it:
 * `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`. The deploy step only reads it.
 */
export function jobDockerConfigPath(env: Env, home: string = homedir()): string {
  return join(dockerConfigDir(env, home), 'config.json')
}

/** The folder the docker CLI keeps its configuration in: `$DOCKER_CONFIG`, else `~/.docker`. */
export function dockerConfigDir(env: Env, home: string = homedir()): string {
  return env.DOCKER_CONFIG || join(home, '.docker')
}

export interface DockerConfigSession {
  /** The DOCKER_CONFIG folder every docker command of this run uses. */
  dir: string
  /** The environment docker commands run with: DOCKER_CONFIG, and the buildx state to keep. */
  env: Record<string, string>
  dispose(): Promise<void>
}

/**
 * Folders that docker looks for only inside DOCKER_CONFIG and that `docker login` never writes:
 * CLI plugins installed per user (docker/setup-buildx-action can put buildx there) and the
 * `docker context` store (endpoints, and the TLS files of remote engines). Linked, so that the
 * step's docker reaches the same engine with the same plugins.
 */
const SHARED_FOLDERS = ['cli-plugins', 'contexts']

/**
 * A DOCKER_CONFIG of this step's own, so that the credentials it logs in with never outlive the
 * step (a self-hosted runner keeps ~/.docker between jobs) and never overwrite a login made by
 * an earlier step. It starts as a copy of the current config, so logins to other registries
 * (private base images) keep working. The copy is deleted when the step ends, failed or not.
 *
 * buildx keeps its state (the current builder, and the node identity that BuildKit's build
 * context cache is keyed on) in BUILDX_CONFIG, by default DOCKER_CONFIG/buildx. A new folder each
 * run would lose a builder chosen with `docker buildx use`, and make BuildKit send the whole
 * build context again every run; so BUILDX_CONFIG stays the user's own.
 */
export async function isolatedDockerConfig(env: Env): Promise<DockerConfigSession> {
  const dir = await mkdtemp(join(tmpdir(), 'olympe-docker-config-'))
  const current = dockerConfigDir(env)
  await copyFile(join(current, 'config.json'), join(dir, 'config.json')).catch(() => undefined)
  for (const folder of SHARED_FOLDERS) {
    const isFolder = await stat(join(current, folder)).then(
      (s) => s.isDirectory(),
      () => false,
    )
    if (isFolder) await symlink(join(current, folder), join(dir, folder))
  }
  return {
    dir,
    env: { DOCKER_CONFIG: dir, BUILDX_CONFIG: env.BUILDX_CONFIG || join(current, 'buildx') },
    // fs.rm removes the links themselves, never what they point to.
    dispose: () => rm(dir, { recursive: true, force: true }),
  }
}
