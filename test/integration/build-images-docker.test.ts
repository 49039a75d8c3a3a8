// The docker adapter (src/tools/docker.ts) and the core's build pipeline against the real engine
// and a real registry with basic auth.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals'
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildAndPush } from '../../src/core/build-images/build.js'
import { DockerCommandError } from '../../src/core/build-images/docker.js'
import type { BuildCommand } from '../../src/core/build-images/docker-args.js'
import type { ImagePlan } from '../../src/core/build-images/plan.js'
import { isolatedDockerConfig } from '../../src/tools/docker-config.js'
import { createDocker } from '../../src/tools/docker.js'
import { exec } from '../../src/tools/exec.js'
import { recordingTools } from '../helpers/docker-fake.js'
import { startDockerSuite, type DockerSuite } from '../helpers/docker-suite.js'

let suite: DockerSuite
let project: string

beforeAll(async () => {
  suite = await startDockerSuite()
  project = await suite.copyProject()
}, 60_000)

afterAll(async () => {
  await suite.stop()
})

const docker = (env: Record<string, string> = {}): ReturnType<typeof createDocker> =>
  createDocker(exec, { env: { DOCKER_CONFIG: suite.dockerConfig, ...env } })

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

async function failureOf(promise: Promise<unknown>): Promise<DockerCommandError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof DockerCommandError) return error
    throw error
  }
  throw new Error('expected a DockerCommandError')
}

describe('docker adapter', () => {
  test('versions: the client, and the daemon that answers', async () => {
    const versions = await docker().versions()
    expect(versions.client).toMatch(/^\d+\.\d+/)
    expect(versions.server).toMatch(/^\d+\.\d+/)
    expect(versions.problem).toBeUndefined()
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

  test('build and push: the digest parsed from the push is the one the registry serves', async () => {
    const build = command('backend', 'it-1')
    const reference = build.tags[0] ?? ''
    const lines: string[] = []
    await docker().build(build, (line) => lines.push(line))
    expect(lines.join('\n')).toMatch(/Successfully tagged|naming to/)
    const digest = await docker().push(reference, () => undefined)
    const [name, tag] = reference.slice(suite.registry.host.length + 1).split(':')
    const manifest = await suite.registry.manifest(name ?? '', tag ?? '')
    expect(digest).toBe(manifest.digest)
    expect(manifest.config.Labels?.draw_version).toBe('9.9.9')
    expect(await docker().imageSize(reference)).toBeGreaterThan(1000)
  })

  test('a failing build keeps the tail of its output for the message', async () => {
    await mkdir(join(project, 'broken'), { recursive: true })
    await writeFile(
      join(project, 'broken/backend.Dockerfile'),
      'FROM olympeio/backend-base:stable\nARG SOURCES_PATH\nCOPY does-not-exist /x\n',
    )
    const failure = await failureOf(
      docker().build(command('backend', 'broken', 'broken/backend.Dockerfile'), () => undefined),
    )
    expect(failure.message).toBe('docker build exited with 1')
    expect(failure.tail.join('\n')).toMatch(/does-not-exist/)
  })

  test('a push without any login is refused, and the advice says how to log in', async () => {
    const anonymous = await isolatedDockerConfig({ DOCKER_CONFIG: '/nonexistent' })
    try {
      const plan = planOf(command('frontend', 'anon'))
      const noLogin = createDocker(exec, { env: { DOCKER_CONFIG: anonymous.dir } })
      const { logger } = recordingTools()
      const error = await buildAndPush(
        [plan],
        { push: true, loggedIn: false },
        {
          docker: noLogin,
          logger,
          redact: (text) => text,
        },
      ).catch((caught: unknown) => caught)
      expect((error as Error).message).toContain(
        "The registry refused the push: set 'registry-username' and 'registry-password'",
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

  test('works without any config to copy', async () => {
    const session = await isolatedDockerConfig({ DOCKER_CONFIG: '/nonexistent' })
    expect((await stat(session.dir)).isDirectory()).toBe(true)
    await session.dispose()
    await rm(session.dir, { recursive: true, force: true })
  })
})

function planOf(build: BuildCommand): ImagePlan {
  const reference = build.tags[0] ?? ''
  return {
    kind: 'frontend',
    reference,
    references: [...build.tags],
    dockerfile: 'docker/frontend.Dockerfile',
    sources: build.sourcesPath,
    command: build,
  }
}
