// The docker adapter (src/tools/docker.ts) and the core's build pipeline against the real engine
// and a real registry with basic auth.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { REGISTRY_LOGIN_HELP } from '../../src/platform/context.js'
import { randomBytes } from 'node:crypto'
import { lstat, mkdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildAndPush } from '../../src/core/build-images/build.js'
import { CONTEXT_NOTE, MIN_DOCKER_MAJOR } from '../../src/core/build-images/builders/docker.js'
import { BuilderCommandError } from '../../src/core/build-images/builders/image-builder.js'
import { majorVersion } from '../../src/core/build-images/builders/build-command.js'
import type { BuildCommand } from '../../src/core/build-images/builders/build-command.js'
import type { DockerBuilder } from '../../src/core/build-images/builders/docker-args.js'
import type { ImagePlan } from '../../src/core/build-images/plan/plan.js'
import { createDocker, isolatedDockerConfig } from '../../src/tools/docker.js'
import { exec } from '../../src/tools/exec.js'
import { withCleanup } from '../helpers/cleanup.js'
import { useCleanup } from '../helpers/suite.js'
import { docker as dockerCli, run } from '../helpers/docker-env.js'
import { recordingTools } from '../helpers/recording.js'
import { useDockerSuite } from '../helpers/docker-suite.js'

let project: string
const suite = useDockerSuite()

beforeAll(async () => {
  project = await suite.copyProject()
}, 60_000)

const docker = (env: Record<string, string> = {}): ReturnType<typeof createDocker> =>
  createDocker(exec, { env: { DOCKER_CONFIG: suite.dockerConfig, ...env } })

const ENGINE_BUILDER: DockerBuilder = { kind: 'buildkit', name: 'default', driver: 'docker' }
const PUSH = { push: true }

function command(
  kind: string,
  tag: string,
  dockerfile = `docker/${kind}.Dockerfile`,
): BuildCommand {
  return {
    dockerfile: join(project, dockerfile),
    context: project,
    sourcesPath: kind === 'frontend' ? 'dist/web' : 'dist/node',
    tags: [`${suite.registry.host}/${suite.uniqueRepository('it')}/${kind}:${tag}`],
    buildArgs: [],
    labels: [['draw_version', '9.9.9']],
    cacheFrom: [],
  }
}

async function failureOf(promise: Promise<unknown>): Promise<BuilderCommandError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof BuilderCommandError) return error
    throw error
  }
  throw new Error('expected a BuilderCommandError')
}

describe('docker adapter', () => {
  test('versions: the client, and the daemon that answers, Docker 24 or newer', async () => {
    const versions = await docker().versions()
    expect(versions.client).toMatch(/^\d+\.\d+/)
    expect(versions.problem).toBeUndefined()
    // These suites run on the engine users have, not an older one (.ci/setup-docker.sh).
    expect(majorVersion(versions.server ?? '')).toBeGreaterThanOrEqual(MIN_DOCKER_MAJOR)
  })

  test('versions: a daemon that does not answer is told apart from the client', async () => {
    const versions = await docker({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' }).versions()
    expect(versions.client).toMatch(/^\d+\.\d+/)
    expect(versions.server).toBeUndefined()
    expect(versions.problem).toMatch(/Cannot connect to the Docker daemon/)
  })

  test('login: a wrong password is refused with docker’s reason; the right one is stored', async () => {
    const { host, user, password } = suite.registry
    const refused = await failureOf(docker().login(host, user, 'not-the-password'))
    expect(refused.command).toBe('docker login')
    expect(refused.tail.join('\n')).toMatch(/unauthorized|401/i)
    await docker().login(host, user, password)
    expect(await suite.storedAuths()).toEqual([host])
  })

  test('the engine’s own builder: BuildKit through buildx, docker driver', async () => {
    expect(await docker().setup()).toEqual(ENGINE_BUILDER)
  })

  test('build and push: plain progress, inline cache, and the digest the registry serves', async () => {
    const build = command('backend', 'it-1')
    const reference = build.tags[0] ?? ''
    const lines: string[] = []
    const built = await docker().build(build, PUSH, (line) => lines.push(line))
    expect(built).toEqual({})
    expect(lines[0]).toMatch(/^\$ docker buildx build --progress=plain --file /)
    // The context: the project folder through a link named after the image.
    expect(lines[0]).toMatch(/ --cache-to type=inline \/\S+\/olympe-sample-project-\w+\.backend$/)
    // Plain progress: numbered steps, one event a line.
    expect(lines).toContain(`#0 building with "default" instance using docker driver`)
    expect(lines.some((line) => /^#\d+ naming to /.test(line))).toBe(true)
    const pushed: string[] = []
    const digest = await docker().push(reference, (line) => pushed.push(line))
    expect(pushed[0]).toBe(`$ docker push ${reference}`)
    const [name, tag] = reference.slice(suite.registry.host.length + 1).split(':')
    const manifest = await suite.registry.manifest(name ?? '', tag ?? '')
    expect(digest).toBe(manifest.digest)
    expect(manifest.config.Labels?.draw_version).toBe('9.9.9')
    // What a later `--cache-from` of this image reads.
    expect(manifest.configKeys).toContain('moby.buildkit.cache.v0')
    expect(await docker().imageSize(reference)).toBeGreaterThan(1000)
  })

  test('DOCKER_BUILDKIT=0: the legacy builder builds and pushes, for engines without BuildKit', async () => {
    const legacy = docker({ DOCKER_BUILDKIT: '0' })
    const builder = await legacy.setup()
    expect(builder).toEqual({ kind: 'legacy', reason: 'disabled' })
    const { logger, lines } = recordingTools()
    const plan = planOf(command('frontend', 'legacy'))
    const [image] = await buildAndPush(
      [plan],
      { push: true, loggedIn: true, loginHelp: REGISTRY_LOGIN_HELP.local },
      { builder: legacy, logger, redact: (text) => text },
    )
    expect(lines).toContain('Builder: the legacy builder, because DOCKER_BUILDKIT is false.')
    expect(lines.find((line) => line.startsWith('[frontend] $ docker '))).toMatch(
      /^\[frontend\] \$ docker build --file \S+ --build-arg SOURCES_PATH=dist\/web /,
    )
    expect(lines).toContain(`[frontend] Successfully tagged ${plan.reference}`)
    const manifest = await suite.registry.manifest(
      plan.reference.slice(suite.registry.host.length + 1).split(':')[0] ?? '',
      'legacy',
    )
    expect(image?.digest).toBe(manifest.digest)
    expect(manifest.configKeys).not.toContain('moby.buildkit.cache.v0')
  })

  test('a failing build keeps the tail of its output for the message', async () => {
    await mkdir(join(project, 'broken'), { recursive: true })
    await writeFile(
      join(project, 'broken/backend.Dockerfile'),
      'FROM olympeio/backend-base:stable\nARG SOURCES_PATH\nCOPY does-not-exist /x\n',
    )
    const failure = await failureOf(
      docker().build(
        command('backend', 'broken', 'broken/backend.Dockerfile'),
        PUSH,
        () => undefined,
      ),
    )
    expect(failure.message).toBe('docker buildx build exited with 1')
    expect(failure.tail.join('\n')).toMatch(/"\/does-not-exist": not found/)
  })

  test('a missing COPY source: the message shows BuildKit’s failure block and the .dockerignore hint', async () => {
    await writeFile(join(project, '.dockerignore'), 'dist/node\n')
    try {
      const { logger } = recordingTools()
      const error = await buildAndPush(
        [{ ...planOf(command('backend', 'ignored')), kind: 'backend', sources: 'dist/node' }],
        { push: true, loggedIn: true, loginHelp: REGISTRY_LOGIN_HELP.local },
        { builder: docker(), logger, redact: (text) => text },
      ).catch((caught: unknown) => caught)
      const message = (error as Error).message
      expect(message).toContain(
        'Building the backend image failed: docker buildx build exited with 1. Last lines of its output:\n  #',
      )
      expect(message).toMatch(/\n {2}ERROR: failed to solve: .*"\/dist\/node": not found\n/)
      expect(message).toContain("'dist/node' is not in the build context.")
      expect(message).toContain('.dockerignore')
    } finally {
      await rm(join(project, '.dockerignore'))
    }
  })

  test('a push without any login is refused, and the advice says how to log in', async () => {
    const anonymous = await isolatedDockerConfig({ DOCKER_CONFIG: '/nonexistent' })
    try {
      const plan = planOf(command('frontend', 'anon'))
      const noLogin = createDocker(exec, { env: { DOCKER_CONFIG: anonymous.dir } })
      const { logger } = recordingTools()
      const error = await buildAndPush(
        [plan],
        { push: true, loggedIn: false, loginHelp: REGISTRY_LOGIN_HELP.local },
        {
          builder: noLogin,
          logger,
          redact: (text) => text,
        },
      ).catch((caught: unknown) => caught)
      expect((error as Error).message).toContain(
        `The registry refused the push, and the step was given no login ('registry-username' and 'registry-password'; or a docker login in an earlier step). ${REGISTRY_LOGIN_HELP.local}.`,
      )
    } finally {
      await anonymous.dispose()
    }
  })
})

describe('isolated DOCKER_CONFIG', () => {
  test('starts as a copy of the current config and is gone after dispose', async () => {
    await docker().login(suite.registry.host, suite.registry.user, suite.registry.password)
    const session = await isolatedDockerConfig({ DOCKER_CONFIG: suite.dockerConfig })
    const copied = await readFile(join(session.dir, 'config.json'), 'utf8')
    expect(copied).toBe(await readFile(join(suite.dockerConfig, 'config.json'), 'utf8'))
    await session.dispose()
    await expect(stat(session.dir)).rejects.toThrow()
  })

  test('keeps buildx state, CLI plugins and contexts of the current config; dispose leaves them', async () => {
    await withCleanup(async (testCleanup) => {
      const current = await testCleanup.tempDir('olympe-docker-config-current-')
      await mkdir(join(current, 'cli-plugins'))
      await writeFile(join(current, 'cli-plugins/docker-example'), '#!/bin/sh\n')
      await mkdir(join(current, 'contexts'))
      const session = await isolatedDockerConfig({ DOCKER_CONFIG: current })
      expect(session.env).toEqual({
        DOCKER_CONFIG: session.dir,
        BUILDX_CONFIG: join(current, 'buildx'),
      })
      expect(await readlink(join(session.dir, 'cli-plugins'))).toBe(join(current, 'cli-plugins'))
      expect((await lstat(join(session.dir, 'contexts'))).isSymbolicLink()).toBe(true)
      await session.dispose()
      expect(await readFile(join(current, 'cli-plugins/docker-example'), 'utf8')).toBe(
        '#!/bin/sh\n',
      )
      expect((await stat(join(current, 'contexts'))).isDirectory()).toBe(true)
      const own = await isolatedDockerConfig({ DOCKER_CONFIG: current, BUILDX_CONFIG: '/srv/bx' })
      expect(own.env.BUILDX_CONFIG).toBe('/srv/bx')
      await own.dispose()
    })
  })

  test('works without any config to copy', async () => {
    const session = await isolatedDockerConfig({ DOCKER_CONFIG: '/nonexistent' })
    expect((await stat(session.dir)).isDirectory()).toBe(true)
    await session.dispose()
    await rm(session.dir, { recursive: true, force: true })
  })
})

describe('BuildKit state across runs', () => {
  /** The bytes of build context the engine reports receiving (`transferring context: 2.10MB`). */
  function contextBytes(lines: string[]): number {
    const units: Record<string, number> = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9 }
    const sizes = lines.flatMap((line) => {
      const match = /transferring context: ([\d.]+)(B|kB|MB|GB)/.exec(line)
      return match ? [Number(match[1]) * (units[match[2] ?? 'B'] ?? 1)] : []
    })
    return Math.max(0, ...sizes)
  }

  /** Sources of 2 MB that compress badly, in 20 files. */
  async function bigSources(folder: string): Promise<void> {
    await mkdir(join(project, folder), { recursive: true })
    for (let file = 0; file < 20; file++)
      await writeFile(join(project, folder, `chunk-${file}.bin`), randomBytes(100_000))
  }

  /** One run of the step: a new DOCKER_CONFIG with the credentials, the given buildx state. */
  async function buildInFreshConfig(
    buildxConfig: string,
    kind: string,
    sources: string,
  ): Promise<number> {
    const session = await isolatedDockerConfig({
      DOCKER_CONFIG: suite.dockerConfig,
      BUILDX_CONFIG: buildxConfig,
    })
    try {
      const lines: string[] = []
      await createDocker(exec, { env: session.env }).build(
        { ...command(kind, `ctx-${kind}`), sourcesPath: sources },
        { push: false },
        (line) => lines.push(line),
      )
      return contextBytes(lines)
    } finally {
      await session.dispose()
    }
  }

  test('each image keeps its build context across runs, even with a new DOCKER_CONFIG each run', async () => {
    await bigSources('big-web')
    await bigSources('big-node')
    await withCleanup(async (testCleanup) => {
      const buildx = await testCleanup.tempDir('olympe-buildx-state-')
      const other = await testCleanup.tempDir('olympe-buildx-state-')
      expect(await buildInFreshConfig(buildx, 'frontend', 'big-web')).toBeGreaterThan(1_900_000)
      expect(await buildInFreshConfig(buildx, 'backend', 'big-node')).toBeGreaterThan(1_900_000)
      // The next run: same buildx state, new credentials folder, and another image built in
      // between. Only what changed (nothing) is sent.
      expect(await buildInFreshConfig(buildx, 'frontend', 'big-web')).toBeLessThan(50_000)
      expect(await buildInFreshConfig(buildx, 'backend', 'big-node')).toBeLessThan(50_000)
      // Another buildx state is another client to BuildKit: everything is sent again.
      expect(await buildInFreshConfig(other, 'frontend', 'big-web')).toBeGreaterThan(1_900_000)
    })
  })

  test('without a context per image, building another image makes the next one send all again', async () => {
    // What plain `docker build` does with the project folder as context: the reason for the links.
    await bigSources('big-web')
    await bigSources('big-node')
    await withCleanup(async (testCleanup) => {
      const buildx = await testCleanup.tempDir('olympe-buildx-state-')
      const plainBuild = async (kind: string, sources: string): Promise<number> => {
        const dockerfile = join(project, `docker/${kind}.Dockerfile`)
        const { stdout, stderr } = await run(
          'docker',
          ['buildx', 'build', '--progress=plain', '--file', dockerfile, '--build-arg'].concat([
            `SOURCES_PATH=${sources}`,
            project,
          ]),
          { env: { ...process.env, DOCKER_CONFIG: suite.dockerConfig, BUILDX_CONFIG: buildx } },
        )
        return contextBytes(`${stdout}${stderr}`.split('\n'))
      }
      await plainBuild('frontend', 'big-web')
      await plainBuild('backend', 'big-node')
      expect(await plainBuild('frontend', 'big-web')).toBeGreaterThan(1_900_000)
    })
  })
})

describe('a docker-container builder', () => {
  let buildxConfig: string
  const name = `olympe-it-${randomBytes(4).toString('hex')}`
  const env = (): Record<string, string> => ({
    DOCKER_CONFIG: suite.dockerConfig,
    BUILDX_CONFIG: buildxConfig,
  })

  const builderCleanup = useCleanup()
  beforeAll(async () => {
    buildxConfig = await builderCleanup.tempDir('olympe-buildx-container-')
    builderCleanup.add(`builder ${name}`, () =>
      dockerCli(['buildx', 'rm', name], { env: { ...process.env, ...env() } }).catch(() => ''),
    )
    // As docker/setup-buildx-action makes one, with a BuildKit image no registry has, so that
    // booting it fails the same way on every machine (this one cannot run one at all).
    await dockerCli(
      ['buildx', 'create', '--name', name, '--driver', 'docker-container', '--use'].concat([
        '--driver-opt',
        'image=olympe-test/no-such-buildkit:never',
      ]),
      { env: { ...process.env, ...env() } },
    )
  })

  test('is detected as the current builder, and its builds push by themselves', async () => {
    const client = createDocker(exec, { env: env() })
    const builder = await client.setup()
    expect(builder).toEqual({ kind: 'buildkit', name, driver: 'docker-container' })
    const { logger, lines } = recordingTools()
    const error = await buildAndPush(
      [planOf(command('frontend', 'container'))],
      { push: true, loggedIn: true, loginHelp: REGISTRY_LOGIN_HELP.local },
      { builder: client, logger, redact: (text) => text },
    ).catch((caught: unknown) => caught)
    expect(lines).toContain(
      `Builder: BuildKit, builder '${name}' (docker-container driver): this driver keeps images in the builder, so each build pushes its image itself ('--push'), or loads it into the engine when push is false ('--load').`,
    )
    expect(lines).toContain(CONTEXT_NOTE)
    const argv = lines.find((line) => line.startsWith('[frontend] $ docker buildx build')) ?? ''
    expect(argv).toMatch(/ --cache-to type=inline --push --metadata-file \S+metadata\.json \S+$/)
    expect((error as Error).message).toContain('  > [internal] booting buildkit:')
    expect((error as Error).message).toContain(
      'The current buildx builder could not start BuildKit',
    )
  })
})

function planOf(build: BuildCommand): ImagePlan {
  const reference = build.tags[0] ?? ''
  return {
    id: 'frontend',
    kind: 'frontend',
    reference,
    references: [...build.tags],
    dockerfile: 'docker/frontend.Dockerfile',
    sources: build.sourcesPath,
    command: build,
  }
}
