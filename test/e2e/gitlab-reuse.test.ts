// Reuse on GitLab with nothing configured: the build-images template's job, under
// gitlab-ci-local with each job in a build folder of its own (as a runner's), keeps its records
// of what the default branch built in the `cache:` the template declares, and the next pipeline
// restores them. The package comes from a loopback npm registry by version; the images go to a
// registry with auth on the real engine. gitlab-ci-local gives every ref one cache, as GitLab
// gives every unprotected ref one, and says CI_COMMIT_REF_PROTECTED=false: each pipeline says
// whether its ref is protected. (GitLab's separation of protected refs' caches is GitLab's own,
// and cannot run here: the records are trusted only where it holds.)
import { beforeAll, describe, expect, test } from '@jest/globals'
import { generateKeyPairSync } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
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
import { expectNoSecrets, keySecrets } from '../helpers/secrets.js'
import { startProjectRegistry } from '../helpers/verdaccio.js'

const JOB = 'olympe-build-images'
const PIPELINE_MS = 180_000
const FINGERPRINT = 'io.olympe.deploy-actions.fingerprint'
/** An unencrypted PEM key, as openssl makes one: the SIGNING_KEY variable. */
const KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'sec1', format: 'pem' })
  .toString()

let npmCache: string
let project: GitlabProject
/** The frontend's base, in the suite's registry. */
let base: string
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
  base = `${suite.registry.host}/${BASE_IMAGES.frontend}`
  await pushImage(BASE_IMAGES.frontend, base, { env })
  project = await shopProject('acme/shop/frontend')
}, 180_000)

/**
 * A project whose template job builds the frontend as `<registry>/<name>`; `jobs`: lines of its
 * own after the include; its commit on `branch` (the default branch unless told).
 */
async function shopProject(
  name: string,
  options: { jobs?: string[]; inputs?: Record<string, string>; branch?: string } = {},
): Promise<GitlabProject> {
  const inputs = {
    registry: suite.registry.host,
    'npm-registry': npmRegistry.url,
    images: 'frontend',
    'frontend-image-name': name,
    ...options.inputs,
  }
  const ci = ciFile(['build'], [{ component: component('build-images'), inputs }], options.jobs)
  return cleanup.track(
    `gitlab project for ${name}`,
    await createGitlabProject(
      {
        '.gitlab-ci.yml': ci,
        'package.json': '{"name":"shop","version":"1.4.0","private":true}\n',
        'docker/frontend.Dockerfile': `FROM ${base}\nARG SOURCES_PATH\nCOPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html\n`,
        'dist/web/index.html': '<html>shop</html>\n',
        'dist/web/version.json': '{"version":"1.4.0"}\n',
      },
      options.branch ? { branch: options.branch } : {},
    ),
  )
}

/**
 * A pipeline of `target` (the suite's project unless told) on the branch it has checked out, on
 * a fresh engine: only the registry and the cache remain. `protectedRef`: what GitLab says of
 * the ref in CI_COMMIT_REF_PROTECTED (the default branch is protected unless told).
 */
async function pipeline(
  options: {
    target?: GitlabProject
    protectedRef?: boolean
    variables?: Record<string, string>
  } = {},
): Promise<PipelineRun> {
  const target = options.target ?? project
  await removeImages(`${suite.registry.host}/`)
  return pipelines.passing(target, {
    isolated: true,
    variables: {
      ...options.variables,
      CI_REGISTRY: suite.registry.host,
      CI_REGISTRY_USER: suite.registry.user,
      CI_REGISTRY_PASSWORD: suite.registry.password,
      CI_COMMIT_REF_PROTECTED: String(options.protectedRef ?? true),
      // Where the job runs, as a runner's CI_PROJECT_DIR is.
      CI_PROJECT_DIR: join(target.dir, '.gitlab-ci-local/builds', JOB),
    },
    env: { ...suite.env, npm_config_cache: npmCache },
    timeoutMs: PIPELINE_MS,
  })
}

/** git in `target` (the suite's project unless told), as a person who commits. */
const gitIn = (args: string[], target = project): Promise<string> =>
  git(['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], { cwd: target.dir })

/** A new commit, as the next pipeline builds. */
async function commit(message: string, target = project): Promise<void> {
  await gitIn(['commit', '-q', '--allow-empty', '-m', message], target)
}

/**
 * An image of someone else's under `<repository>:<tag>` that carries the labels of the image
 * there now, fingerprint included (anyone who can push can copy a label): its digest, and that
 * fingerprint.
 */
async function foreignImage(
  repository: string,
  tag: string,
): Promise<{ digest: string; fingerprint: string }> {
  const { config } = await suite.registry.manifest(repository, tag)
  const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
  const labels = Object.entries(config.Labels ?? {}).flatMap(([n, v]) => ['--label', `${n}=${v}`])
  const reference = `${suite.registry.host}/${repository}:${tag}`
  await docker(['build', '--quiet', ...labels, '--tag', reference, '-'], {
    input: `FROM ${base}\nRUN mkdir -p /usr/share/nginx/html && echo foreign > /usr/share/nginx/html/index.html\n`,
    env,
  })
  await docker(['push', '--quiet', reference], { env })
  const foreign = await suite.registry.manifest(repository, tag)
  return { digest: foreign.digest, fingerprint: config.Labels?.[FINGERPRINT] ?? '' }
}

/** The records file a job of anyone's could write, naming the foreign image. */
const plantedRecords = (foreign: { digest: string; fingerprint: string }): string =>
  `${JSON.stringify({ records: [{ ...foreign, image: 'planted' }] })}\n`

const log = (run: PipelineRun): string => run.jobLogs[JOB] ?? ''
const built = (run: PipelineRun): boolean => log(run).includes('$ docker buildx build')
/** The job log's lines that name `text`. */
const lines = (run: PipelineRun, text: string): string[] =>
  log(run)
    .split('\n')
    .filter((line) => line.includes(text))

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
      const foreign = await foreignImage('acme/shop/frontend', 'main')
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
})

describe('GitLab: the records only where no other ref can write them', () => {
  let widened: GitlabProject
  const untrusted =
    "Every image is built: the GitLab job cache ('.olympe-reuse') is trusted only on protected branches and tags, and 'feature-b' is not protected (CI_COMMIT_REF_PROTECTED is 'false'): GitLab gives the jobs of every unprotected ref one cache, which a pipeline of any branch or merge request can write. Protect the branch, or set 'signing-key' to have images reused on unprotected refs."

  test(
    "a record planted by an unprotected ref's job is not used by another unprotected ref's images job",
    async () => {
      // The template's job widened to every branch, as a team that builds its feature branches
      // too would write it.
      widened = await shopProject('acme/widened/frontend', {
        inputs: { branches: "'*'" },
        jobs: [`${JOB}:`, '  rules:', '    - if: $CI_COMMIT_BRANCH'],
        branch: 'feature-b',
      })
      const first = await pipeline({ target: widened, protectedRef: false })
      expect(built(first)).toBe(true)
      // Said once: the records are neither read nor written.
      expect(lines(first, 'GitLab job cache')).toEqual([untrusted])
      // Someone who may push a branch: an image of theirs under feature-b's moving tag with its
      // fingerprint, and a pipeline of their branch whose job of the same name writes the cache.
      const foreign = await foreignImage('acme/widened/frontend', 'feature-b')
      await gitIn(['checkout', '-q', '-b', 'feature-a'], widened)
      await writeFile(
        join(widened.dir, '.gitlab-ci.yml'),
        [
          'stages: [build]',
          `${JOB}:`,
          '  stage: build',
          '  cache:',
          `    key: olympe-reuse-$CI_JOB_NAME`,
          '    paths: [.olympe-reuse/]',
          '  script:',
          '    - mkdir -p .olympe-reuse',
          `    - printf '%s' '${plantedRecords(foreign).trim()}' > .olympe-reuse/records.json`,
          '',
        ].join('\n'),
      )
      await gitIn(['commit', '-q', '-am', 'a job that writes the cache'], widened)
      await pipeline({ target: widened, protectedRef: false })
      const cached = join(widened.dir, '.gitlab-ci-local/cache', `olympe-reuse-${JOB}`)
      expect(await readFile(join(cached, '.olympe-reuse/records.json'), 'utf8')).toBe(
        plantedRecords(foreign).trim(),
      )
      await gitIn(['checkout', '-q', 'feature-b'], widened)
      await commit('nothing changed', widened)
      const run = await pipeline({ target: widened, protectedRef: false })
      expect(built(run)).toBe(true)
      expect(lines(run, 'GitLab job cache')).toEqual([untrusted])
      const after = await suite.registry.manifest('acme/widened/frontend', 'feature-b')
      expect(after.digest).not.toBe(foreign.digest)
    },
    4 * PIPELINE_MS,
  )

  test(
    "on the unprotected ref, 'signing-key' brings reuse back: its signature proves the image",
    async () => {
      expect(widened).toBeDefined()
      const variables = { SIGNING_KEY: KEY }
      await commit('signed from now on', widened)
      const signed = await pipeline({ target: widened, protectedRef: false, variables })
      // The images there carry no signature yet: built once more, and signed.
      expect(built(signed)).toBe(true)
      expect(log(signed)).toMatch(/^frontend: signed sha256:[0-9a-f]{64} /m)
      expect(lines(signed, 'GitLab job cache')).toEqual([
        "Not recorded in the GitLab job cache ('.olympe-reuse'): it is trusted only on protected branches and tags, and 'feature-b' is not protected (CI_COMMIT_REF_PROTECTED is 'false'): GitLab gives the jobs of every unprotected ref one cache, which a pipeline of any branch or merge request can write. Protect the branch, or set 'signing-key' to have images reused on unprotected refs.",
      ])
      const before = await suite.registry.manifest('acme/widened/frontend', 'feature-b')
      await commit('nothing changed', widened)
      const run = await pipeline({ target: widened, protectedRef: false, variables })
      expect(built(run)).toBe(false)
      expect(log(run)).toMatch(
        /^frontend: 'feature-b' \(built as feature-b-[0-9a-f]{7}\) has the same fingerprint, and signed under the key of 'signing-key'/m,
      )
      const after = await suite.registry.manifest('acme/widened/frontend', 'feature-b')
      expect(after.digest).toBe(before.digest)
    },
    3 * PIPELINE_MS,
  )

  test(
    'a committed records file is not trusted',
    async () => {
      const committed = await shopProject('acme/committed/frontend')
      await pipeline({ target: committed })
      // An image of someone's under main's moving tag with its fingerprint, and a records file
      // naming it committed to git; the job cache is gone (expired, or another runner's).
      const foreign = await foreignImage('acme/committed/frontend', 'main')
      await mkdir(join(committed.dir, '.olympe-reuse'))
      await writeFile(join(committed.dir, '.olympe-reuse/records.json'), plantedRecords(foreign))
      await gitIn(['add', '.olympe-reuse/records.json'], committed)
      await commit('a records file', committed)
      await rm(join(committed.dir, '.gitlab-ci-local/cache'), { recursive: true, force: true })
      const run = await pipeline({ target: committed })
      expect(built(run)).toBe(true)
      expect(lines(run, 'GitLab job cache')).toEqual([
        "Every image is built: the GitLab job cache ('.olympe-reuse') is not trusted: '.olympe-reuse/records.json' came with the checkout (git tracks it), and a records file that anyone who can push a commit can write is never trusted. Remove it from git ('git rm -r --cached .olympe-reuse') and add '.olympe-reuse/' to .gitignore.",
      ])
      const after = await suite.registry.manifest('acme/committed/frontend', 'main')
      expect(after.digest).not.toBe(foreign.digest)
    },
    3 * PIPELINE_MS,
  )
})

// Last on purpose: it reads what the pipelines above printed.
test('no job log holds the registry password or the signing key', () => {
  expect(pipelines.runs).toHaveLength(10)
  expectNoSecrets(pipelines.logs(), [suite.registry.password, ...keySecrets(KEY)])
})
