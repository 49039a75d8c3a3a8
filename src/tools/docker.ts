// The Docker adapter: the ImageBuilder port over the docker command line (whose argv the core's
// docker-args.ts builds, and whose output it parses), and the Docker config folders it runs with.
import { copyFile, readFile, stat, symlink } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { secretEnvironment } from '../core/build-images/builders/build-command.js'
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
  type DockerBuilder,
} from '../core/build-images/builders/docker-args.js'
import { BuilderCommandError } from '../core/build-images/builders/image-builder.js'
import type { ImageBuilder } from '../core/build-images/builders/image-builder.js'
import type { Env } from '../core/shared/env.js'
import type { Exec, ExecResult } from '../core/shared/exec.js'
import type { StepCancellation } from './cancel.js'
import {
  readPulling,
  runBuilderCommand,
  versionsOnce,
  type BuilderCommandOptions,
} from './builder-command.js'
import { stepFolder, stepFolderIn } from './step-folder.js'

export interface DockerOptions {
  /** Added to every docker command's environment, e.g. an isolated DOCKER_CONFIG. */
  env?: Record<string, string>
  /** Where a build's scratch folder goes (see stepTempRoot); the machine's temp folder if unset. */
  tempRoot?: string
  /** A cancelled step removes the scratch folder of a build it stopped. */
  cancel?: StepCancellation
  /** What the engine already said (to the `builder: auto` choice): kept when it answered. */
  known?: Awaited<ReturnType<ImageBuilder['versions']>>
}

/** A build's scratch folder: its metadata file, and the link its context goes through. */
const BUILD_PREFIX = 'olympe-build-'

/** The Docker engine through its command line, over the exec port. */
export function createDocker(exec: Exec, options: DockerOptions = {}): ImageBuilder {
  const run = (argv: string[], extra: BuilderCommandOptions = {}): Promise<ExecResult> =>
    runBuilderCommand(exec, 'docker', dockerCommandName(argv), argv, options.env, extra)

  // An answer is kept for the step (the pre-flight check and the platform of the fingerprints
  // both need it); no answer is asked again, as a Docker-in-Docker service may be starting.
  const versions = versionsOnce(exec, 'docker', versionArgv(), options.env, {
    known: options.known,
    answered: (found) => found.server !== undefined,
    read: (result, said) => {
      const found = parseVersions(result.stdout)
      return result.code === 0 || found.server ? found : { ...found, problem: said }
    },
    askAgain: true,
  })

  const askBuilder = async (): Promise<DockerBuilder> => {
    // The docker command itself reads this variable; the exec port adds options.env to ours.
    const setting = options.env?.DOCKER_BUILDKIT ?? process.env.DOCKER_BUILDKIT
    if (buildkitDisabled(setting)) return { kind: 'legacy', reason: 'disabled' }
    let result: ExecResult
    try {
      result = await run(builderInspectArgv())
    } catch (error) {
      if (error instanceof BuilderCommandError && saysBuildxMissing(error.tail.join('\n')))
        return { kind: 'legacy', reason: 'no-buildx' }
      throw error
    }
    const found = parseBuilderInspect(result.stdout)
    if (!found) {
      const said = result.stdout.split('\n').slice(0, 5)
      throw new BuilderCommandError('docker buildx inspect', 'printed no builder driver', said)
    }
    return { kind: 'buildkit', ...found }
  }
  let builder: Promise<DockerBuilder> | undefined
  /** What `read` finds of the image in the engine's store, pulled first when it is not there. */
  const held = <T>(reference: string, read: () => Promise<T>): Promise<T> =>
    readPulling(read, () => run(pullArgv(reference)), saysNoSuchImage)

  return {
    name: 'docker',
    versions,
    setup: () => (builder ??= askBuilder()),
    async login(server, username, password) {
      await run(loginArgv(server, username), { input: password })
    },
    async build(command, { push }, onLine) {
      const mode = { builder: await (builder ??= askBuilder()), push }
      const scratch = await stepFolderIn(options.tempRoot ?? tmpdir(), BUILD_PREFIX, options.cancel)
      const { dir } = scratch
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
        await run(argv, { onLine, echo: true, env: secretEnvironment(command) })
        if (!metadataFile) return {}
        const text = await readFile(metadataFile, 'utf8').catch(() => '')
        const digest = parseBuildMetadata(text)
        if (!digest) {
          const tail = [`--metadata-file held: ${text.slice(0, 500) || '(nothing)'}`]
          throw new BuilderCommandError('docker buildx build', 'reported no pushed digest', tail)
        }
        return { digest }
      } finally {
        // Removes the link, never the project it points to.
        await scratch.dispose()
      }
    },
    async push(reference, onLine) {
      const { stdout } = await run(pushArgv(reference), { onLine, echo: true })
      const digest = parsePushDigest(stdout, reference)
      if (!digest)
        throw new BuilderCommandError(
          'docker push',
          'printed no manifest digest',
          stdout.split('\n'),
        )
      return digest
    },
    onBuildTriggers: (reference) =>
      held(reference, async () => {
        const { stdout } = await run(onBuildArgv(reference))
        const triggers = parseOnBuild(stdout)
        if (triggers) return triggers
        throw new BuilderCommandError('docker image inspect', 'printed no ONBUILD list', [stdout])
      }),
    // A base that a mirror served as a named context is in BuildKit's store, not the engine's.
    history: (reference) =>
      held(reference, async () => parseHistory((await run(historyArgv(reference))).stdout)),
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

const CONFIG_PREFIX = 'olympe-docker-config-'

/**
 * A DOCKER_CONFIG of this step's own, so that the credentials it logs in with never outlive the
 * step (a self-hosted runner keeps ~/.docker between jobs) and never overwrite a login made by
 * an earlier step. It starts as a copy of the current config, so logins to other registries
 * (private base images) keep working. The copy is deleted when the step ends, failed or
 * cancelled; it lives in the job's temporary folder (see stepFolder).
 *
 * buildx keeps its state (the current builder, and the node identity that BuildKit's build
 * context cache is keyed on) in BUILDX_CONFIG, by default DOCKER_CONFIG/buildx. A new folder each
 * run would lose a builder chosen with `docker buildx use`, and make BuildKit send the whole
 * build context again every run; so BUILDX_CONFIG stays the user's own.
 */
export async function isolatedDockerConfig(
  env: Env,
  cancel?: StepCancellation,
): Promise<DockerConfigSession> {
  const { dir, dispose } = await stepFolder(env, CONFIG_PREFIX, cancel)
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
    dispose,
  }
}
