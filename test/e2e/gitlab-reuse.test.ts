// Reuse on GitLab with nothing configured: the build-images template's job, under
// gitlab-ci-local with each job in a build folder of its own (as a runner's), keeps its records
// of what the default branch built in the `cache:` the template declares, and the next pipeline
// restores them. The package comes from a loopback npm registry by version; the images go to a
// registry with auth on the real engine. (GitLab's separation of protected branches' caches is
// GitLab's own, and cannot run here.)
import { beforeAll, describe, expect, test } from '@jest/globals'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { useCleanup, useServers } from '../helpers/suite.js'
import { BASE_IMAGES, docker, dockerLogin, pushImage, removeImages } from '../helpers/docker-env.js'
import { startDockerSuite } from '../helpers/docker-suite.js'
import {
  ciFile,
  component,
  createGitlabProject,
  pipelineRecord,
  type GitlabProject,
  type PipelineRun,
} from '../helpers/gitlab-ci-local.js'
import { git } from '../helpers/git-server.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { startProjectRegistry } from '../helpers/verdaccio.js'

const JOB = 'olympe-build-images'
const PIPELINE_MS = 180_000

let npmCache: string
let project: GitlabProject
let image: string
const pipelines = pipelineRecord()
const cleanup = useCleanup(120_000)
const { suite, npmRegistry } = useServers(
  { suite: startDockerSuite, npmRegistry: startProjectRegistry },
  cleanup,
  120_000,
)

beforeAll(async () => {
  npmCache = await cleanup.tempDir('olympe-npm-cache-')
  const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
  await dockerLogin(suite.registry, { env })
  const base = `${suite.registry.host}/${BASE_IMAGES.frontend}`
  await pushImage(BASE_IMAGES.frontend, base, { env })
  const inputs = {
    registry: suite.registry.host,
    'npm-registry': npmRegistry.url,
    images: 'frontend',
  }
  const ci = ciFile(['build'], [{ component: component('build-images'), inputs }])
  project = cleanup.track(
    'gitlab project',
    await createGitlabProject({
      '.gitlab-ci.yml': ci,
      'package.json': '{"name":"shop","version":"1.4.0","private":true}\n',
      'docker/frontend.Dockerfile': `FROM ${base}\nARG SOURCES_PATH\nCOPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html\n`,
      'dist/web/index.html': '<html>shop</html>\n',
      'dist/web/version.json': '{"version":"1.4.0"}\n',
    }),
  )
  image = `${suite.registry.host}/acme/shop/frontend`
}, 180_000)

/** A pipeline on the default branch, on a fresh engine: only the registry and the cache remain. */
async function pipeline(): Promise<PipelineRun> {
  await removeImages(`${suite.registry.host}/`)
  return pipelines.passing(project, {
    isolated: true,
    variables: {
      CI_REGISTRY: suite.registry.host,
      CI_REGISTRY_USER: suite.registry.user,
      CI_REGISTRY_PASSWORD: suite.registry.password,
      // Where the job runs, as a runner's CI_PROJECT_DIR is.
      CI_PROJECT_DIR: join(project.dir, '.gitlab-ci-local/builds', JOB),
    },
    env: { ...suite.env, npm_config_cache: npmCache },
    timeoutMs: PIPELINE_MS,
  })
}

/** A new commit, as the next pipeline builds. */
async function commit(message: string): Promise<void> {
  await git(
    [
      '-c',
      'user.name=T',
      '-c',
      'user.email=t@example.invalid',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      message,
    ],
    { cwd: project.dir },
  )
}

const log = (run: PipelineRun): string => run.jobLogs[JOB] ?? ''
const built = (run: PipelineRun): boolean => log(run).includes('$ docker buildx build')

describe("GitLab: reuse with the template's cache, nothing configured", () => {
  test(
    'a first pipeline builds and records the image in the job cache',
    async () => {
      const run = await pipeline()
      expect(built(run)).toBe(true)
      expect(log(run)).toMatch(
        /Recorded in the GitLab job cache \('\.olympe-reuse'\): the default branch built \S+\/acme\/shop\/frontend:main-[0-9a-f]{7} as sha256:[0-9a-f]{64}/,
      )
      const cached = join(
        project.dir,
        '.gitlab-ci-local/cache',
        `olympe-reuse-${JOB}`,
        '.olympe-reuse/records.json',
      )
      const records = JSON.parse(await readFile(cached, 'utf8')) as {
        records: { digest: string }[]
      }
      const tag = await suite.registry.manifest('acme/shop/frontend', 'main')
      expect(records.records.map((record) => record.digest)).toEqual([tag.digest])
    },
    PIPELINE_MS + 60_000,
  )

  test(
    'the next pipeline, nothing changed, restores the record and reuses the image',
    async () => {
      await commit('nothing changed')
      const before = await suite.registry.manifest('acme/shop/frontend', 'main')
      const run = await pipeline()
      expect(built(run)).toBe(false)
      expect(log(run)).toMatch(
        /frontend: 'main' \(built as main-[0-9a-f]{7}\) has the same fingerprint, and the GitLab job cache \('\.olympe-reuse'\) records that the default branch built it\./,
      )
      expect(run.dotenvReports[`${JOB}/olympe-build-images.env`]).toContain(
        `OLYMPE_BUILD_IMAGES_FRONTEND_DIGEST=${before.digest}`,
      )
    },
    PIPELINE_MS + 60_000,
  )

  test(
    "an image someone pushed to '<image>:main' with the fingerprint label is built, not reused",
    async () => {
      const { config } = await suite.registry.manifest('acme/shop/frontend', 'main')
      const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
      const labels = Object.entries(config.Labels ?? {}).flatMap(([n, v]) => [
        '--label',
        `${n}=${v}`,
      ])
      const base = `${suite.registry.host}/${BASE_IMAGES.frontend}`
      await docker(['build', '--quiet', ...labels, '--tag', `${image}:main`, '-'], {
        input: `FROM ${base}\nRUN mkdir -p /usr/share/nginx/html && echo foreign > /usr/share/nginx/html/index.html\n`,
        env,
      })
      await docker(['push', '--quiet', `${image}:main`], { env })
      const foreign = await suite.registry.manifest('acme/shop/frontend', 'main')
      await commit('nothing changed, again')
      const run = await pipeline()
      expect(built(run)).toBe(true)
      expect(log(run)).toContain(
        `has the same fingerprint, but no record in the GitLab job cache ('.olympe-reuse') that the default branch built ${foreign.digest} (never recorded, or evicted), so it is not trusted.`,
      )
      const after = await suite.registry.manifest('acme/shop/frontend', 'main')
      expect(after.digest).not.toBe(foreign.digest)
    },
    PIPELINE_MS + 60_000,
  )

  // Last on purpose: it reads what the three pipelines above printed.
  test('no job log holds the registry password', () => {
    expect(pipelines.runs).toHaveLength(3)
    expectNoSecrets(pipelines.logs(), [suite.registry.password])
  })
})
