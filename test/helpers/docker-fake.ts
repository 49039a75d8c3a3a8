// A scripted image builder (Docker by default) for unit tests of the build-images core.
import type {
  BuildCommand,
  HistoryEntry,
} from '../../src/core/build-images/builders/build-command.js'
import { buildOutput } from '../../src/core/build-images/builders/docker-args.js'
import {
  BuilderCommandError,
  type BuilderName,
  type BuilderSetup,
  type ImageBuilder,
} from '../../src/core/build-images/builders/image-builder.js'
import type { BuilderPorts } from '../../src/core/build-images/run.js'

export interface FakeDockerScript {
  /** Which builder it plays (default docker). */
  name?: BuilderName
  client?: string
  server?: string
  /** The daemon's os/arch (default linux/amd64 when a daemon answers). */
  platform?: string
  /** Kinds (matched in the Dockerfile path) whose build fails. */
  failBuild?: string[]
  /** References whose push fails with this output. */
  failPush?: Record<string, string[]>
  failLogin?: string[]
  /** How long each build takes, by kind, in ms (default 5). */
  buildMs?: Record<string, number>
  /** What `docker buildx inspect` finds (default: BuildKit, `default`, docker driver), or its failure. */
  builder?: BuilderSetup | string[]
  /** ONBUILD triggers by base image (default none), or the output of a failed pull. */
  onBuild?: Record<string, string[] | { pullFails: string[] }>
  /** Layer steps by image reference, newest first (default none). */
  history?: Record<string, HistoryEntry[]>
}

export interface FakeDocker extends ImageBuilder {
  /** Every call, in order: `build frontend`, `build frontend --push`, `push <ref>`, `login <server> <user>`… */
  calls: string[]
  /** How many builds ran at the same time, at most. */
  maxConcurrentBuilds: number
  /** Each build's command, in the order the builds started. */
  builds: BuildCommand[]
  passwords: string[]
}

/**
 * What a build is called in the calls and the script: its image's last name part (`backend-api`
 * for one of several backends), else its Dockerfile's kind.
 */
const kindOf = (command: BuildCommand): string =>
  /\/([a-z0-9._-]+):[^/:]+$/.exec(command.tags[0] ?? '')?.[1] ??
  /([a-z]+)\.Dockerfile$/.exec(command.dockerfile)?.[1] ??
  '?'

export function fakeDocker(script: FakeDockerScript = {}): FakeDocker {
  let running = 0
  const setup = (): BuilderSetup | string[] =>
    script.builder ??
    (script.name === 'buildah'
      ? {
          kind: 'buildah',
          version: script.client ?? '1.28.2',
          storageDriver: { value: 'vfs' },
          isolation: { value: 'chroot' },
        }
      : { kind: 'buildkit', name: 'default', driver: 'docker' })
  const fake: FakeDocker = {
    name: script.name ?? 'docker',
    calls: [],
    maxConcurrentBuilds: 0,
    builds: [],
    passwords: [],
    // Buildah has no daemon: its version is all it says, with the platform it builds for.
    versions: () =>
      Promise.resolve(
        script.name === 'buildah'
          ? { client: script.client ?? '1.28.2', platform: script.platform ?? 'linux/amd64' }
          : {
              client: script.client ?? '28.2.2',
              server: script.server,
              platform: script.server ? (script.platform ?? 'linux/amd64') : undefined,
              problem: script.server ? undefined : 'Cannot connect to the Docker daemon',
            },
      ),
    setup: () => {
      fake.calls.push('builder')
      const builder = setup()
      if (Array.isArray(builder))
        return Promise.reject(
          new BuilderCommandError('docker buildx inspect', 'exited with 1', builder),
        )
      return Promise.resolve(builder)
    },
    login: (server, username, password) => {
      fake.calls.push(`login ${server} ${username}`)
      fake.passwords.push(password)
      if (script.failLogin)
        return Promise.reject(
          new BuilderCommandError('docker login', 'exited with 1', script.failLogin),
        )
      return Promise.resolve()
    },
    build: async (command, { push }, onLine) => {
      const kind = kindOf(command)
      const builder = setup()
      const output =
        Array.isArray(builder) || builder.kind === 'buildah'
          ? undefined
          : buildOutput({ builder, push })
      fake.calls.push(`build ${kind}${output ? ` --${output}` : ''}`)
      fake.builds.push(command)
      running++
      fake.maxConcurrentBuilds = Math.max(fake.maxConcurrentBuilds, running)
      await new Promise((resolve) => setTimeout(resolve, script.buildMs?.[kind] ?? 5))
      running--
      onLine(`Step 1/1 : FROM base (${kind})`)
      if (script.failBuild?.includes(kind)) {
        throw new BuilderCommandError('docker build', 'exited with 1', [
          `COPY failed: file not found in build context (${kind})`,
        ])
      }
      fake.calls.push(`built ${kind}`)
      return output === 'push'
        ? { digest: `sha256:${kind.length.toString(16).padStart(64, 'b')}` }
        : {}
    },
    push: (reference, onLine) => {
      fake.calls.push(`push ${reference}`)
      const failure = script.failPush?.[reference]
      if (failure)
        return Promise.reject(new BuilderCommandError('docker push', 'exited with 1', failure))
      onLine(`${reference.split(':').pop() ?? ''}: digest: sha256:${'0'.repeat(64)} size: 1`)
      return Promise.resolve(`sha256:${reference.length.toString(16).padStart(64, '0')}`)
    },
    imageSize: () => Promise.resolve(1_984_513),
    onBuildTriggers: (reference) => {
      fake.calls.push(`onbuild ${reference}`)
      const triggers = script.onBuild?.[reference] ?? []
      if (Array.isArray(triggers)) return Promise.resolve(triggers)
      return Promise.reject(
        new BuilderCommandError('docker pull', 'exited with 1', triggers.pullFails),
      )
    },
    history: (reference) => {
      fake.calls.push(`history ${reference}`)
      return Promise.resolve(script.history?.[reference] ?? [])
    },
  }
  return fake
}

/**
 * The runner's builders as run.ts asks for them: `builder` (a fake) is the one opened whatever is
 * chosen unless `others` gives one by name; `opened` records each open, `disposed` each dispose.
 */
export function fakeBuilders(
  builder: ImageBuilder,
  options: {
    dockerHost?: string
    others?: Partial<Record<BuilderName, ImageBuilder>>
    authFile?: string
  } = {},
): BuilderPorts & { opened: string[]; disposed: number } {
  const byName = (name: BuilderName): ImageBuilder =>
    options.others?.[name] ?? (builder.name === name ? builder : fakeDocker({ name }))
  const ports = {
    opened: [] as string[],
    disposed: 0,
    candidates: {
      dockerHost: options.dockerHost,
      docker: byName('docker'),
      buildah: byName('buildah'),
    },
    open: (name: BuilderName, settings: { login: boolean }) => {
      ports.opened.push(`${name}${settings.login ? ' with login' : ''}`)
      return Promise.resolve({
        builder: byName(name),
        authFile: options.authFile ?? '/home/runner/.docker/config.json',
        dispose: () => {
          ports.disposed++
          return Promise.resolve()
        },
      })
    },
  }
  return ports
}
