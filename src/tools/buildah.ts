// The Buildah adapter: the ImageBuilder port over the buildah command line (whose argv the core's
// buildah-args.ts builds, and whose output it parses), and the files it runs with: a registries
// configuration and, with a login (or a DOCKER_CONFIG without config.json), an auth file of the
// step's own, both removed at its end.
import { existsSync } from 'node:fs'
import { copyFile, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  secretEnvironment,
  type BuildCommand,
} from '../core/build-images/builders/build-command.js'
import {
  buildahBuildArgv,
  buildahCommandName,
  buildahInspectArgv,
  buildahLoginArgv,
  buildahPullArgv,
  buildahPushArgv,
  buildahVersionArgv,
  parseBuildahInspect,
  parseBuildahVersion,
  parseDigestFile,
  registriesConf,
  saysImageNotKnown,
  type BuildahImage,
  type BuildahSetup,
} from '../core/build-images/builders/buildah-args.js'
import { BuilderCommandError } from '../core/build-images/builders/image-builder.js'
import type { ImageBuilder } from '../core/build-images/builders/image-builder.js'
import type { RegistryMirrors } from '../core/registry/mirrors.js'
import { usesPlainHttp } from '../core/registry/reference.js'
import type { Env } from '../core/shared/env.js'
import type { Exec, ExecResult } from '../core/shared/exec.js'
import { parseImageName } from '../core/shared/image-ref.js'
import type { StepCancellation } from './cancel.js'
import { jobDockerConfigPath } from './docker.js'
import {
  readPulling,
  runBuilderCommand,
  versionsOnce,
  type BuilderCommandOptions,
} from './builder-command.js'
import { stepFolder, stepFolderIn, type StepFolder } from './step-folder.js'

export interface BuildahOptions {
  /** Buildah's storage driver and isolation: the environment's, else this step's defaults. */
  settings: Pick<BuildahSetup, 'storageDriver' | 'isolation'>
  /** The step's own configuration (see buildahSession); none for a probe. */
  session?: BuildahSession
  /** Where a push's scratch folder goes (see stepTempRoot); the machine's temp folder if unset. */
  tempRoot?: string
  /** A cancelled step removes the scratch folder of a push it stopped. */
  cancel?: StepCancellation
  /** What buildah already said (to the `builder: auto` choice): kept when it answered. */
  known?: Awaited<ReturnType<ImageBuilder['versions']>>
}

/** Buildah through its command line, over the exec port. */
export function createBuildah(exec: Exec, options: BuildahOptions): ImageBuilder {
  const { settings, session } = options
  const run = (argv: string[], extra: BuilderCommandOptions = {}): Promise<ExecResult> =>
    runBuilderCommand(exec, 'buildah', buildahCommandName(argv), argv, session?.env, extra)

  const versions = versionsOnce(exec, 'buildah', buildahVersionArgv(), session?.env, {
    known: options.known,
    answered: (found) => found.client !== undefined,
    read: (result, said) => {
      const found = parseBuildahVersion(result.stdout)
      if (result.code === 0 && found.client) return found
      return { ...found, problem: said || `buildah version exited with ${result.code}` }
    },
    askAgain: false,
  })
  const inspect = async (reference: string): Promise<BuildahImage> => {
    const { stdout } = await run(buildahInspectArgv(reference, settings))
    const image = parseBuildahInspect(stdout)
    if (image) return image
    throw new BuilderCommandError('buildah inspect', 'printed no image description', [
      stdout.slice(0, 500),
    ])
  }

  /** The image as the store holds it, pulled first when it does not. */
  const held = async (reference: string): Promise<BuildahImage> => {
    await session?.reach([reference])
    return readPulling(
      () => inspect(reference),
      () => run(buildahPullArgv(reference, settings)),
      saysImageNotKnown,
    )
  }

  return {
    name: 'buildah',
    versions,
    async setup() {
      const found = await versions()
      return { kind: 'buildah', version: found.client ?? 'unknown', ...settings }
    },
    async login(server, username, password) {
      await session?.reach([server])
      await run(buildahLoginArgv(server, username, usesPlainHttp(server)), { input: password })
    },
    async build(command, _options, onLine) {
      await session?.reach(referencesOf(command))
      const argv = buildahBuildArgv(command, settings)
      await run(argv, { onLine, echo: true, env: secretEnvironment(command) })
      // The image is in Buildah's store: push sends it, as docker push does from the engine.
      return {}
    },
    async push(reference, onLine) {
      await session?.reach([reference])
      const scratch = await stepFolderIn(
        options.tempRoot ?? tmpdir(),
        'olympe-push-',
        options.cancel,
      )
      try {
        const file = join(scratch.dir, 'digest')
        await run(buildahPushArgv(reference, file, settings), { onLine, echo: true })
        const text = await readFile(file, 'utf8').catch(() => '')
        const digest = parseDigestFile(text)
        if (!digest)
          throw new BuilderCommandError('buildah push', 'wrote no manifest digest', [
            `--digestfile held: ${text.slice(0, 200) || '(nothing)'}`,
          ])
        return digest
      } finally {
        await scratch.dispose()
      }
    },
    async onBuildTriggers(reference) {
      return (await held(reference)).onBuild
    },
    // A base pulled by the build under its name as written, not its mirror's, is pulled again
    // by the mirror's name: its layers are in the store already.
    async history(reference) {
      return (await held(reference)).history
    },
    async imageSize(reference) {
      try {
        return (await inspect(reference)).size
      } catch {
        return undefined
      }
    },
  }
}

/** Every image a build talks to: its tags (pushed later), its bases and where mirrors serve them. */
function referencesOf(command: BuildCommand): string[] {
  return [
    ...command.tags,
    ...(command.bases ?? []).flatMap((base) =>
      base.mirrored ? [base.reference, base.mirrored] : [base.reference],
    ),
  ]
}

/**
 * The configuration buildah runs with for one step: CONTAINERS_REGISTRIES_CONF names a registries
 * configuration of the step's own (registries-conf in buildah-args.ts), and with a login (or
 * where buildah would refuse the one DOCKER_CONFIG names), REGISTRY_AUTH_FILE an auth file of its
 * own that starts as a copy of the runner's, so that its logins to other registries keep working
 * and the step's never outlives it.
 */
export interface BuildahSession {
  env: Record<string, string>
  /**
   * Tells the session of the registries a command is about to reach (image references, or a
   * login's server): one on loopback is added to the configuration as plain http.
   */
  reach(references: readonly string[]): Promise<void>
  dispose: () => Promise<void>
}

const SESSION_PREFIX = 'olympe-buildah-'

export async function buildahSession(
  env: Env,
  options: { login: boolean; mirrors: RegistryMirrors; cancel?: StepCancellation },
): Promise<BuildahSession> {
  const folder: StepFolder = await stepFolder(env, SESSION_PREFIX, options.cancel)
  const conf = join(folder.dir, 'registries.conf')
  const plainHttp = new Set(
    options.mirrors.map((mirror) => mirror.host).filter((host) => usesPlainHttp(host)),
  )
  const write = async (): Promise<void> => {
    // Whole or not at all: a build running beside may be reading it.
    const next = `${conf}.next`
    await writeFile(next, registriesConf({ mirrors: options.mirrors, plainHttp: [...plainHttp] }))
    await rename(next, conf)
  }
  await write()
  const sessionEnv: Record<string, string> = { CONTAINERS_REGISTRIES_CONF: conf }
  // With a login, a file of the step's own for it; without one, a DOCKER_CONFIG folder without
  // config.json would be buildah's auth file, and refused ("checking authfile"): the runner's
  // buildah logins are copied into one of the step's own instead.
  if (options.login || dockerConfigRefused(env)) {
    // There from the start: buildah refuses an auth file it is pointed at that does not exist.
    const auth = join(folder.dir, 'auth.json')
    const own = runnerAuthFile(env)
    const copied = own
      ? await copyFile(own, auth).then(
          () => true,
          () => false,
        )
      : false
    if (!copied) await writeFile(auth, '{"auths":{}}\n', { mode: 0o600 })
    sessionEnv.REGISTRY_AUTH_FILE = auth
  }
  return {
    env: sessionEnv,
    async reach(references) {
      const hosts = references.map(hostOf).filter((host): host is string => host !== undefined)
      const added = hosts.filter((host) => usesPlainHttp(host) && !plainHttp.has(host))
      if (added.length === 0) return
      for (const host of added) plainHttp.add(host)
      await write()
    },
    dispose: folder.dispose,
  }
}

/** The registry host of an image reference; a login's server (no '/') is one already. */
function hostOf(reference: string): string | undefined {
  if (!reference.includes('/')) return reference
  return parseImageName(reference)?.domain
}

/**
 * The auth file buildah reads the runner's logins from when nothing says otherwise, in the order
 * its `--authfile` default and containers-auth.json(5) give: REGISTRY_AUTH_FILE; else, when
 * DOCKER_CONFIG is set, `$DOCKER_CONFIG/config.json`, read alone; else (or when DOCKER_CONFIG
 * holds no config.json, see dockerConfigRefused) `$XDG_RUNTIME_DIR/containers/auth.json`, where
 * `buildah login` writes. Undefined when none is there (buildah then reads ~/.docker/config.json).
 */
function runnerAuthFile(env: Env): string | undefined {
  if (env.REGISTRY_AUTH_FILE) return env.REGISTRY_AUTH_FILE
  const docker = env.DOCKER_CONFIG && join(env.DOCKER_CONFIG, 'config.json')
  if (docker && existsSync(docker)) return docker
  const runtime = env.XDG_RUNTIME_DIR && join(env.XDG_RUNTIME_DIR, 'containers/auth.json')
  return runtime && existsSync(runtime) ? runtime : undefined
}

/**
 * DOCKER_CONFIG names a folder without config.json, and nothing else names an auth file: buildah
 * takes `$DOCKER_CONFIG/config.json` for its own, and a pull or push fails on it ("checking
 * authfile: … no such file or directory").
 */
function dockerConfigRefused(env: Env): boolean {
  if (env.REGISTRY_AUTH_FILE || !env.DOCKER_CONFIG) return false
  return !existsSync(join(env.DOCKER_CONFIG, 'config.json'))
}

/**
 * The runner's own logins as the registry look-ups read them for a Buildah run: Buildah's auth
 * file when there is one, else the Docker config, which buildah reads too.
 */
export function buildahAuthFilePath(env: Env, home: string = homedir()): string {
  return runnerAuthFile(env) ?? jobDockerConfigPath(env, home)
}
