// What every build-images suite against the real engine needs: the daemon and base images, a
// registry of its own with a random password, a private DOCKER_CONFIG, a docker spy, and a
// cleanup that removes only the images pushed to that registry (so suites can run in parallel).
import { randomBytes } from 'node:crypto'
import { cp, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startOwning, type Cleanup } from './cleanup.js'
import { useCleanup, useStarted } from './suite.js'
import {
  ensureBaseImages,
  ensureDockerDaemon,
  removeImages,
  startRegistry,
  type Registry,
} from './docker-env.js'
import { startDockerSpy, type DockerSpy } from './docker-spy.js'

export const SAMPLE_PROJECT = join(import.meta.dirname, '../fixtures/sample-project')
export const SAMPLE_DRAW_VERSION = '2.11.3'
export const SHA = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'

/** A push to main, as the GitHub runner describes it to a step of `repository`. */
export const githubPush = (repository: string): Record<string, string> => ({
  GITHUB_SHA: SHA,
  GITHUB_REPOSITORY: repository,
  GITHUB_RUN_ID: '4242',
})

/** A push pipeline on main, as GitLab describes it to a job of `repository` checked out in `dir`. */
export const gitlabPush = (repository: string, dir: string): Record<string, string> => ({
  GITLAB_CI: 'true',
  CI_PIPELINE_SOURCE: 'push',
  CI_COMMIT_BRANCH: 'main',
  CI_DEFAULT_BRANCH: 'main',
  CI_COMMIT_SHA: SHA,
  CI_PIPELINE_ID: '777',
  CI_PROJECT_PATH: repository,
  CI_PROJECT_DIR: dir,
})

export interface DockerSuite {
  registry: Registry
  spy: DockerSpy
  /** DOCKER_CONFIG for every docker the suite runs, the action's included. */
  dockerConfig: string
  /** Environment for the process under test: the private DOCKER_CONFIG and the spy's PATH. */
  env: Record<string, string>
  /** build-images' inputs that push to the suite's registry with its login. */
  pushInputs: Record<string, string>
  /** A repository name no other test uses, so image names never collide. */
  uniqueRepository(label: string): string
  /** A copy of the sample project that a test may break. */
  copyProject(): Promise<string>
  /** The login the test's DOCKER_CONFIG holds, if any (the action must leave it untouched). */
  storedAuths(): Promise<string[]>
  stop(): Promise<void>
}

export async function startDockerSuite(): Promise<DockerSuite> {
  await ensureDockerDaemon()
  await ensureBaseImages()
  return startOwning(async (owned) => {
    const password = `pw-${randomBytes(12).toString('hex')}`
    const registry = await startRegistry({ user: 'ci-user', password })
    // Undone last first: the folders, the spy, the registry, then the images pushed to it.
    owned.add('images', () => removeImages(`${registry.host}/`))
    owned.track('registry', registry)
    const spy = owned.track('docker spy', await startDockerSpy())
    const dockerConfig = await owned.tempDir('olympe-docker-config-test-')
    let counter = 0
    return {
      registry,
      spy,
      dockerConfig,
      env: { DOCKER_CONFIG: dockerConfig, PATH: spy.path },
      pushInputs: {
        registry: registry.host,
        'registry-username': registry.user,
        'registry-password': registry.password,
      },
      uniqueRepository: (label) =>
        `acme/${label}-${process.pid}-${++counter}-${randomBytes(3).toString('hex')}`,
      copyProject: async () => {
        const copy = await owned.tempDir('olympe-sample-project-')
        await cp(SAMPLE_PROJECT, copy, { recursive: true })
        return copy
      },
      storedAuths: async () => {
        const text = await readFile(join(dockerConfig, 'config.json'), 'utf8').catch(() => '{}')
        const config = JSON.parse(text) as { auths?: Record<string, unknown> }
        return Object.keys(config.auths ?? {})
      },
      stop: () => owned.run(),
    }
  })
}

/**
 * The Docker suite of a test file (or a `describe`): started in a `beforeAll`, stopped with
 * `cleanup` (by default one of its own) after the tests.
 */
export function useDockerSuite(cleanup: Cleanup = useCleanup()): DockerSuite {
  return useStarted('docker suite', startDockerSuite, cleanup, 60_000)
}
