// What every build-images suite against the real engine needs: the daemon and base images, a
// registry of its own with a random password, a private DOCKER_CONFIG, a docker spy, and a
// cleanup that removes only the images pushed to that registry (so suites can run in parallel).
import { expect } from '@jest/globals'
import { randomBytes } from 'node:crypto'
import { cp, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { IMAGE_KINDS, type ImageKind } from '../../src/core/shared/project-images.js'
import { startOwning, type Cleanup } from './cleanup.js'
import { useCleanup, useStarted } from './suite.js'
import {
  BASE_IMAGES,
  ensureBaseImages,
  ensureDockerDaemon,
  pushImage,
  removeImages,
  startOwnedRegistry,
  type Registry,
} from './docker-env.js'
import { startDockerSpy, type DockerSpy } from './docker-spy.js'
import { runAsGithub, type RunResult } from './run-action.js'

export const SAMPLE_PROJECT = join(import.meta.dirname, '../fixtures/sample-project')
export const SAMPLE_DRAW_VERSION = '2.11.3'
export const SHA = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'

/**
 * build-images was cancelled by `signal` during a build: it failed, and said so where `platform`
 * shows a step's error (GitHub's annotation on stdout, stderr in a GitLab job).
 */
export function expectBuildCancelled(
  run: { code: number | null; stdout: string; stderr: string },
  platform: 'github' | 'gitlab',
  signal: string,
): void {
  const message = `The step was cancelled (${signal}): it stopped the processes it had started and removed the files it had made for itself, then exited without finishing. Builds under way were stopped, and the step's own registry login (its Docker config, or Buildah's auth file) was removed. Images pushed before the cancel stay in the registry.`
  expect(run.code).toBe(1)
  if (platform === 'github')
    expect(run.stdout).toContain(`::error title=olympe build-images cancelled::${message}`)
  else expect(run.stderr).toContain(`Error: ${message}`)
}

/** The labels an image built from the sample project at SHA carries, for a repository at `source`. */
export const sampleLabels = (source: string): Record<string, string> => ({
  draw_version: SAMPLE_DRAW_VERSION,
  'org.opencontainers.image.source': source,
  'org.opencontainers.image.revision': SHA,
})

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

/** What a run of an action shows: its output and the files it wrote. */
export interface SeenRun {
  stdout: string
  stderr: string
  files: Record<string, string>
}

/** What a build on a fresh engine is given besides the suite's push inputs and environment. */
export interface FreshBuild {
  inputs: Record<string, string>
  env: Record<string, string>
  timeoutMs?: number
}

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
  /**
   * A copy of the sample project whose Dockerfiles (those of `kinds`, by default all) build FROM
   * the suite's registry, where the base images are pushed first, as a runner pulls them: what
   * lets a later run find its bases unchanged and reuse its images. DOCKER_CONFIG must hold the
   * registry's login (`dockerLogin`).
   */
  copyProjectOnRegistryBases(kinds?: readonly ImageKind[]): Promise<string>
  /**
   * build-images as GitHub's runner runs it on a push to main, in `project`, pushing to the
   * suite's registry with its login (plus `inputs`), with the suite's environment (plus
   * `env`), on an engine that holds nothing of that registry's, as a fresh runner's: only the
   * registry remembers.
   */
  buildOnFreshEngine(project: string, options: FreshBuild): Promise<RunResult>
  /** The login the test's DOCKER_CONFIG holds, if any (the action must leave it untouched). */
  storedAuths(): Promise<string[]>
  /**
   * Everything a user or a log collector could see of a run, for the leak scans: its output, the
   * files it wrote, and docker's argv (process lists) since the spy was last reset.
   */
  seenIn(run: SeenRun): Promise<Record<string, string>>
  stop(): Promise<void>
}

export async function startDockerSuite(): Promise<DockerSuite> {
  await ensureDockerDaemon()
  await ensureBaseImages()
  return startOwning(async (owned) => {
    const password = `pw-${randomBytes(12).toString('hex')}`
    // Undone last first: the folders, the spy, the registry, then the images pushed to it.
    const registry = await startOwnedRegistry(owned, { user: 'ci-user', password })
    const spy = owned.track('docker spy', await startDockerSpy())
    const dockerConfig = await owned.tempDir('olympe-docker-config-test-')
    let counter = 0
    const suite: DockerSuite = {
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
      copyProjectOnRegistryBases: (kinds = IMAGE_KINDS) => projectOnRegistryBases(suite, kinds),
      buildOnFreshEngine: (project, options) => buildOnFreshEngine(suite, project, options),
      storedAuths: async () => {
        const text = await readFile(join(dockerConfig, 'config.json'), 'utf8').catch(() => '{}')
        const config = JSON.parse(text) as { auths?: Record<string, unknown> }
        return Object.keys(config.auths ?? {})
      },
      seenIn: async (run) => ({
        stdout: run.stdout,
        stderr: run.stderr,
        ...run.files,
        'docker argv': (await spy.commands()).join('\n'),
      }),
      stop: () => owned.run(),
    }
    return suite
  })
}

async function projectOnRegistryBases(
  suite: DockerSuite,
  kinds: readonly ImageKind[],
): Promise<string> {
  const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
  for (const base of Object.values(BASE_IMAGES))
    await pushImage(base, `${suite.registry.host}/${base}`, { env })
  const project = await suite.copyProject()
  for (const kind of kinds) {
    const file = join(project, `docker/${kind}.Dockerfile`)
    const text = await readFile(file, 'utf8')
    await writeFile(file, text.replace(/^FROM (\S+)/m, `FROM ${suite.registry.host}/$1`))
  }
  return project
}

async function buildOnFreshEngine(
  suite: DockerSuite,
  project: string,
  options: FreshBuild,
): Promise<RunResult> {
  await removeImages(`${suite.registry.host}/`)
  return runAsGithub('build-images', {
    cwd: project,
    inputs: { ...suite.pushInputs, ...options.inputs },
    env: { ...suite.env, ...options.env },
    event: { name: 'push', payload: { repository: { default_branch: 'main' } } },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  })
}

/**
 * The Docker suite of a test file (or a `describe`): started in a `beforeAll`, stopped with
 * `cleanup` (by default one of its own) after the tests.
 */
export function useDockerSuite(cleanup: Cleanup = useCleanup()): DockerSuite {
  return useStarted('docker suite', startDockerSuite, cleanup, 60_000)
}
