// `builder: auto` on the runners it meets, each played for real: a machine whose Docker engine
// answers, a user who cannot reach it but has Buildah, a job whose DOCKER_HOST names an engine
// that starts late (a Docker-in-Docker service) or never, and a runner with neither builder.
// The bundle runs as the CLI, as a GitLab job does; nothing is pushed (push: false).
import { beforeAll, describe, expect, test } from '@jest/globals'
import { createServer, connect, type Server } from 'node:net'
import { useCleanup } from '../helpers/suite.js'
import { BASE_IMAGES, dockerLogin, freePort, pushImage } from '../helpers/docker-env.js'
import { SHA, useDockerSuite } from '../helpers/docker-suite.js'
import { buildahStore, giveTo, rootlessUser, type RootlessUser } from '../helpers/rootless.js'
import { runCli, type RunOptions, type RunResult } from '../helpers/run-action.js'

let user: RootlessUser
let project: string
/** The user's Buildah store (its environment), this suite's own. */
let store: Record<string, string>
const cleanup = useCleanup(60_000)
const suite = useDockerSuite(cleanup)

beforeAll(async () => {
  user = await rootlessUser(cleanup)
  // Docker Hub's base, served by the push registry (registry-mirrors), as on an instance.
  const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
  await dockerLogin(suite.registry, { env })
  const base = BASE_IMAGES.frontend
  await pushImage(base, `${suite.registry.host}/dockerhub/${base}`, { env })
  project = await suite.copyProject()
  store = await buildahStore(user, await cleanup.tempDir('olympe-choice-store-'))
  await giveTo(user, project)
}, 120_000)

const GITLAB = {
  GITLAB_CI: 'true',
  CI_PIPELINE_SOURCE: 'push',
  CI_COMMIT_BRANCH: 'main',
  CI_DEFAULT_BRANCH: 'main',
  CI_COMMIT_SHA: SHA,
  CI_PROJECT_PATH: 'acme/choice',
}

function build(options: Partial<RunOptions> = {}): Promise<RunResult> {
  return runCli('build-images', {
    cwd: project,
    inputs: {
      ...suite.pushInputs,
      'registry-mirrors': `docker.io=${suite.registry.host}/dockerhub`,
      images: 'frontend',
      push: 'false',
    },
    timeoutMs: 180_000,
    ...options,
    env: { ...GITLAB, CI_PROJECT_DIR: project, ...options.env },
  })
}

/** The line that says which builder, and why; the step's error when it failed. */
function choice(result: RunResult): string {
  const said = /^Building with .*$/m.exec(result.stdout)?.[0]
  return said ?? `(none) ${/^Error: .*$/m.exec(result.stderr)?.[0] ?? result.stderr.slice(-500)}`
}

describe("builder: auto picks the runner's builder and says why", () => {
  test('an engine answers: Docker', async () => {
    const result = await build({ env: suite.env })
    expect(result.code).toBe(0)
    expect(choice(result)).toMatch(
      /^Building with Docker: a Docker engine answers \(Docker 2\d\.\d+\.\d+[^)]*\)\.$/,
    )
    expect((await suite.spy.commands()).some((line) => line.startsWith('buildx build'))).toBe(true)
  }, 180_000)

  test('no engine it may reach, Buildah on PATH: Buildah', async () => {
    const result = await build({ user, env: store })
    expect(result.code).toBe(0)
    expect(choice(result)).toMatch(
      /^Building with Buildah: no Docker engine answers \(permission denied while trying to connect to the Docker daemon socket at unix:\/\/\/var\/run\/docker\.sock[^\n]*\), and Buildah 1\.28\.\d+ is on PATH\.$/,
    )
    expect(result.stdout).toMatch(/\$ buildah --storage-driver vfs bud /)
  }, 180_000)

  test('neither builder: the step fails before anything is built, naming both', async () => {
    // A runner image without either command: PATH holds neither.
    const result = await build({ user, env: { PATH: '/nonexistent' } })
    expect(result.code).toBe(1)
    expect(choice(result)).toBe(
      "(none) Error: 'builder' is 'auto', but no Docker engine answers (the docker command could not start (Unable to locate executable file: docker. Please verify either the file path exists or the file can be found within a directory specified by the PATH environment variable. Also check the file mode to verify the file is executable.)) and Buildah could not be run (the buildah command could not start (Unable to locate executable file: buildah. Please verify either the file path exists or the file can be found within a directory specified by the PATH environment variable. Also check the file mode to verify the file is executable.)): nothing was built. Give the runner a Docker engine (Docker 24 or newer, with buildx), or Buildah (Debian: apt-get install buildah uidmap), or set 'builder' to the one it has.",
    )
  }, 60_000)
})

describe('DOCKER_HOST set: the job meant Docker', () => {
  test('an engine that starts late (a Docker-in-Docker service) is waited for, then used', async () => {
    // The engine's socket behind a TCP port that opens 6 s after the job starts, as a dind
    // service's does; the local socket answers all along, but DOCKER_HOST says where to build.
    const port = await freePort()
    const engine = startLate(port, 6000)
    cleanup.add('late engine', () => engine.stop())
    const started = Date.now()
    const result = await build({ env: { ...suite.env, DOCKER_HOST: `tcp://127.0.0.1:${port}` } })
    expect(result.code).toBe(0)
    expect(Date.now() - started).toBeGreaterThanOrEqual(6000)
    expect(result.stdout).toMatch(
      new RegExp(
        `^DOCKER_HOST is set \\('tcp://127\\.0\\.0\\.1:${port}'\\), but its engine does not answer yet \\(.*\\): waiting up to 60 s for it, as a Docker-in-Docker service may still be starting\\.$`,
        'm',
      ),
    )
    expect(choice(result)).toMatch(
      new RegExp(
        `^Building with Docker: DOCKER_HOST is set \\('tcp://127\\.0\\.0\\.1:${port}'\\), and its engine answers \\(Docker 2\\d\\.\\d+\\.\\d+[^)]*\\)\\.$`,
      ),
    )
  }, 180_000)

  test('an engine that never answers: the step waits 60 s, then fails, and never builds with Buildah', async () => {
    const port = await freePort()
    const started = Date.now()
    const result = await build({ user, env: { DOCKER_HOST: `tcp://127.0.0.1:${port}` } })
    expect(Date.now() - started).toBeGreaterThanOrEqual(60_000)
    expect(result.code).toBe(1)
    expect(choice(result)).toMatch(
      new RegExp(
        `^\\(none\\) Error: 'builder' is 'auto' and DOCKER_HOST is set \\('tcp://127\\.0\\.0\\.1:${port}'\\), which means Docker, but no Docker engine answered there within 60 s \\(Cannot connect to the Docker daemon at tcp://127\\.0\\.0\\.1:${port}\\. Is the docker daemon running\\?\\)\\. Nothing was built, and no other builder was tried: start the engine \\(on GitLab, a 'docker:dind' service\\), or correct DOCKER_HOST, or unset it and set 'builder: buildah' to build without Docker\\.$`,
      ),
    )
    expect(result.stdout).not.toContain('buildah')
  }, 180_000)
})

/** A TCP port that forwards to the local engine's socket once `delayMs` have passed. */
function startLate(port: number, delayMs: number): { stop: () => Promise<void> } {
  let server: Server | undefined
  const timer = setTimeout(() => {
    server = createServer((client) => {
      const engine = connect('/var/run/docker.sock')
      client.pipe(engine).pipe(client)
      client.on('error', () => engine.destroy())
      engine.on('error', () => client.destroy())
    })
    server.listen(port, '127.0.0.1')
  }, delayMs)
  return {
    stop: () =>
      new Promise((resolve) => {
        clearTimeout(timer)
        if (!server) resolve()
        else server.close(() => resolve())
      }),
  }
}
