// Several backends of the official project template, each with a code base of its own, built by
// one build-images step into an image of its own: `api` and `worker` from the template's
// backend.Dockerfile, `jobs` from a Dockerfile of its own. With Docker (as root, on the engine)
// and with Buildah (as the unprivileged user, no Docker), against the suite's registry with its
// password; the bases come from the registry (`registry-mirrors`, Docker Hub's images under
// `dockerhub/`), and the GitHub runs get the Actions cache service (emulated on loopback), which
// keeps the records of what the default branch built: reuse needs them. The runs build on one
// another: built, reused, one rebuilt, one alone (a matrix leg), one failed beside two reused.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { chmod, cp, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { startActionsCacheServer } from '../helpers/actions-cache-server.js'
import { docker, dockerLogin, dockerRun, pushImage } from '../helpers/docker-env.js'
import { startDockerSuite } from '../helpers/docker-suite.js'
import { buildahStore, giveTo, rootlessUser, type RootlessUser } from '../helpers/rootless.js'
import { CHECKED, runAsGithub, runOutcome, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { useCleanup, useServers } from '../helpers/suite.js'
import { ensureTemplateBaseImages } from '../helpers/template-base-images.js'
import {
  createTemplateProject,
  installAndBuild,
  outcomes,
  startTemplateRegistry,
  type TemplateProject,
} from '../helpers/template-project.js'

const RUN_MS = 600_000
const BACKEND_LABEL = 'io.olympe.deploy-actions.backend'
const FINGERPRINT = 'io.olympe.deploy-actions.fingerprint'
const NAMES = ['api', 'worker', 'jobs'] as const
type Name = (typeof NAMES)[number]
const IDS = NAMES.map((name) => `backend:${name}`)
/** Where each backend's image holds its build output: the template's path, or jobs' own. */
const APP_DIR: Record<Name, string> = {
  api: '/home/node/app',
  worker: '/home/node/app',
  jobs: '/srv/jobs',
}
/** jobs' own Dockerfile: the template's backend base, its output elsewhere. */
const JOBS_DOCKERFILE = 'FROM olympeio/backend-base:24-latest\nCOPY $SOURCES_PATH /srv/jobs\n'
const BACKENDS = JSON.stringify([
  { name: 'api', sources: 'dist/api' },
  { name: 'worker', sources: 'dist/worker' },
  { name: 'jobs', sources: 'dist/jobs', dockerfile: 'docker/jobs.Dockerfile' },
])

let user: RootlessUser
let project: TemplateProject
let jobTemp: string
let store: Record<string, string>
let commits = 0
const cleanup = useCleanup(120_000)
const { npm, suite, cache } = useServers(
  { npm: startTemplateRegistry, suite: startDockerSuite, cache: startActionsCacheServer },
  cleanup,
  120_000,
)
/** The registry's login, for the docker that pulls what the step pushed. */
const pullEnv = (): NodeJS.ProcessEnv => ({ ...process.env, DOCKER_CONFIG: suite.dockerConfig })

beforeAll(async () => {
  user = await rootlessUser(cleanup)
  await dockerLogin(suite.registry, { env: pullEnv() })
  const flavours = await ensureTemplateBaseImages()
  for (const base of Object.values(flavours.onbuild))
    await pushImage(base, `${suite.registry.host}/dockerhub/${base}`, { env: pullEnv() })
  project = cleanup.track(
    'template project',
    await createTemplateProject({
      appVersion: '1.4.0',
      files: { '.npmrc': npm.npmrc('env'), 'docker/jobs.Dockerfile': JOBS_DOCKERFILE },
    }),
  )
  expect(outcomes(await installAndBuild(project, npm.token))).toEqual(
    ['npm install', 'npm run build:draw', 'npm run build:node', 'npx olympe buildCodeAsData'].map(
      (step) => ({ step, code: 0, tail: '' }),
    ),
  )
  // Each backend's build output: the template's, and a file that says whose it is.
  for (const name of NAMES) {
    await cp(join(project.dir, 'dist/node'), join(project.dir, `dist/${name}`), { recursive: true })
    await writeService(name, 0)
  }
  jobTemp = await cleanup.tempDir('olympe-backends-job-')
  store = await buildahStore(user, await cleanup.tempDir('olympe-backends-store-'))
  await chmod(dirname(project.dir), 0o755)
  await giveTo(user, project.dir, jobTemp)
}, 300_000)

/** `dist/<name>/service.json`, which only that backend's image holds, at its `version`. */
async function writeService(name: Name, version: number): Promise<void> {
  await writeFile(join(project.dir, `dist/${name}/service.json`), service(name, version))
}
const service = (name: Name, version: number): string =>
  `${JSON.stringify({ backend: name, version })}\n`

/** A commit of its own for each run: its tag. */
function nextCommit(): { sha: string; tag: string } {
  commits++
  const sha = createHash('sha1').update(`backends commit ${commits}`).digest('hex')
  return { sha, tag: `main-${sha.slice(0, 7)}` }
}

type Builder = 'docker' | 'buildah'
/** How each builder's failure is said: BuildKit's exit status, or the RUN step's own. */
const FAILED: Record<Builder, string> = {
  docker: 'docker buildx build exited with 1',
  buildah: 'buildah bud exited with 3',
}

/** build-images on GitHub's runner: Docker as root, Buildah as the user; pushes to main. */
async function buildImages(
  builder: Builder,
  repository: string,
  commit: { sha: string },
  extra: Record<string, string> = {},
): Promise<RunResult> {
  await suite.spy.reset()
  const env = {
    ...cache.env,
    GITHUB_SHA: commit.sha,
    GITHUB_REPOSITORY: repository,
    GITHUB_RUN_ID: String(commits),
  }
  const result = await runAsGithub('build-images', {
    cwd: project.dir,
    inputs: {
      ...suite.pushInputs,
      'registry-mirrors': `docker.io=${suite.registry.host}/dockerhub`,
      builder,
      images: 'backend',
      backends: BACKENDS,
      ...extra,
    },
    env:
      builder === 'docker' ? { ...suite.env, ...env } : { ...store, ...env, RUNNER_TEMP: jobTemp },
    event: { name: 'push', payload: { repository: { default_branch: 'main' } } },
    timeoutMs: RUN_MS,
    ...(builder === 'buildah' ? { user } : {}),
  })
  expectNoSecrets(await suite.seenIn(result), [suite.registry.password, npm.token])
  return result
}

/** The backends this run built (not reused), by the lines each build says when it is done. */
const built = (result: RunResult): string[] =>
  [...result.stdout.matchAll(/^\[(backend:[a-z0-9-]+)\] built /gm)].map((match) => match[1] ?? '')

/** Each backend's image in the registry under `tag`, pulled: its digest and its service.json. */
async function images(
  repository: string,
  tag: string,
): Promise<Record<Name, { digest: string; service: string; label?: string }>> {
  const found = {} as Record<Name, { digest: string; service: string; label?: string }>
  for (const name of NAMES) {
    const manifest = await suite.registry.manifest(`${repository}/backend-${name}`, tag)
    const image = `${suite.registry.host}/${repository}/backend-${name}:${tag}`
    await docker(['pull', '--quiet', image], { env: pullEnv() })
    found[name] = {
      digest: manifest.digest,
      service: await dockerRun(image, ['cat', `${APP_DIR[name]}/service.json`]),
      label: manifest.config.Labels?.[BACKEND_LABEL],
    }
  }
  return found
}

describe.each<Builder>(['docker', 'buildah'])('three backends built with %s', (builder) => {
  let repository: string
  /** What the registry held after the last run. */
  let last: Record<Name, { digest: string; service: string; label?: string }>

  /** build-images with `builder` on the next commit, plus `extra`, which succeeds. */
  async function buildNext(
    extra: Record<string, string> = {},
  ): Promise<{ commit: { sha: string; tag: string }; result: RunResult }> {
    const commit = nextCommit()
    const result = await buildImages(builder, repository, commit, extra)
    expect(runOutcome(result)).toEqual({ code: 0, tail: '' })
    return { commit, result }
  }

  beforeAll(async () => {
    repository = suite.uniqueRepository(`backends-${builder}`)
    // Each builder starts from the same sources: the other's runs changed some.
    for (const name of NAMES) await writeService(name, 0)
  })

  test(
    'the first run builds each backend from its own sources into its own image, side by side',
    async () => {
      const { commit, result } = await buildNext()
      expect(built(result).sort()).toEqual([...IDS].sort())
      const references = NAMES.map(
        (name) => `${suite.registry.host}/${repository}/backend-${name}:${commit.tag}`,
      )
      expect(result.outputs['backend-images']?.split('\n')).toEqual(references)
      expect(result.outputs['backend-image']).toBe('')
      expect(result.outputs.matrix).toBe(JSON.stringify(IDS))
      const listed = JSON.parse(result.outputs.images ?? '') as Array<Record<string, unknown>>
      expect(listed.map(({ kind, name, reference }) => ({ kind, name, reference }))).toEqual(
        NAMES.map((name, index) => ({ kind: 'backend', name, reference: references[index] })),
      )
      last = await images(repository, commit.tag)
      for (const name of NAMES) {
        expect({ name, ...last[name] }).toEqual({
          name,
          digest: listed[NAMES.indexOf(name)]?.digest,
          service: service(name, 0),
          label: name,
        })
      }
      // api and worker: the same Dockerfile and the same bundle, each image its own.
      expect(new Set(NAMES.map((name) => last[name].digest)).size).toBe(3)
      const fingerprints = await Promise.all(
        NAMES.map(
          async (name) =>
            (await suite.registry.manifest(`${repository}/backend-${name}`, commit.tag)).config
              .Labels?.[FINGERPRINT],
        ),
      )
      expect(new Set(fingerprints).size).toBe(3)
    },
    RUN_MS,
  )

  test(
    'a second run with nothing changed reuses all three: nothing built or pushed',
    async () => {
      const { commit, result } = await buildNext()
      expect(built(result)).toEqual([])
      expect(result.stdout).toContain(
        'Nothing to build: no image changed since it was last pushed.',
      )
      expect(JSON.parse(result.outputs.reused ?? '')).toEqual(IDS)
      const now = await images(repository, commit.tag)
      for (const name of NAMES) expect(now[name].digest).toBe(last[name].digest)
    },
    RUN_MS,
  )

  test(
    "one backend's file changed: that backend alone is built, the other two reused",
    async () => {
      await writeService('worker', commits)
      const { commit, result } = await buildNext()
      expect(built(result)).toEqual(['backend:worker'])
      expect(JSON.parse(result.outputs.reused ?? '')).toEqual(['backend:api', 'backend:jobs'])
      const now = await images(repository, commit.tag)
      expect(now.worker.service).toBe(service('worker', commits - 1))
      expect(now.worker.digest).not.toBe(last.worker.digest)
      expect(now.api).toEqual(last.api)
      expect(now.jobs).toEqual(last.jobs)
      last = now
    },
    RUN_MS,
  )

  test(
    "'images: backend:jobs' builds that backend alone, as a matrix leg does",
    async () => {
      await writeService('jobs', commits)
      await writeService('api', commits)
      const { commit, result } = await buildNext({ images: 'backend:jobs' })
      // api changed too, but is not this leg's: neither built nor tagged.
      expect(built(result)).toEqual(['backend:jobs'])
      expect(result.outputs.matrix).toBe('["backend:jobs"]')
      expect(result.outputs['backend-images']).toBe(
        `${suite.registry.host}/${repository}/backend-jobs:${commit.tag}`,
      )
      const listed = JSON.parse(result.outputs.images ?? '') as Array<{ name?: string }>
      expect(listed.map((image) => image.name)).toEqual(['jobs'])
      expect(await suite.registry.tags(`${repository}/backend-api`)).not.toContain(commit.tag)
      const image = `${suite.registry.host}/${repository}/backend-jobs:${commit.tag}`
      await docker(['pull', '--quiet', image], { env: pullEnv() })
      expect(await dockerRun(image, ['cat', '/srv/jobs/service.json'])).toBe(
        service('jobs', commits - 1),
      )
    },
    RUN_MS,
  )

  test(
    'a backend whose build fails is named, and the others are reported as they are',
    async () => {
      // api back to what its image holds, worker as built: both unchanged; jobs' build fails.
      await writeService('api', 0)
      const dockerfile = join(project.dir, 'docker/jobs.Dockerfile')
      await writeFile(dockerfile, `${JOBS_DOCKERFILE}RUN exit 3\n`)
      try {
        const commit = nextCommit()
        const result = await buildImages(builder, repository, commit)
        expect(result.code).toBe(1)
        expect(built(result)).toEqual([])
        const failure = /^::error[^:]*::(.*)$/m.exec(result.stdout)?.[1]?.split('%0A') ?? []
        expect(failure[0]).toBe(
          `Building the backend 'jobs' image failed: ${FAILED[builder]}. Last lines of its output:`,
        )
        expect(failure.slice(-3)).toEqual([
          'The other images:',
          `- backend:api: unchanged, given this run's tags (${last.api.digest})`,
          `- backend:worker: unchanged, given this run's tags (${last.worker.digest})`,
        ])
        expect(await suite.registry.tags(`${repository}/backend-jobs`)).not.toContain(commit.tag)
        expect(
          (await suite.registry.manifest(`${repository}/backend-api`, commit.tag)).digest,
        ).toBe(last.api.digest)
      } finally {
        await writeFile(dockerfile, JOBS_DOCKERFILE)
      }
    },
    RUN_MS,
  )
})

test(
  "a backend's sources folder missing: refused at run, naming it, before anything is pushed",
  async () => {
    const repository = suite.uniqueRepository('missing')
    const result = await buildImages('docker', repository, nextCommit(), {
      backends: JSON.stringify([
        { name: 'api', sources: 'dist/api' },
        { name: 'mail', sources: 'dist/mail' },
      ]),
    })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      `::error title=olympe build-images failed::The pre-flight checks failed, so no image was built:%0A- The backend 'mail' sources folder 'dist/mail' does not exist (looked for '${join(project.dir, 'dist/mail')}'). Expected the project's built backend 'mail'. Run 'npm run build:node' before this step, or set its 'sources' in 'backends' to the folder your build writes.`,
    )
    // The engine asked and the login (a mirror is on the registry's host): nothing built.
    expect(await suite.spy.subcommands()).toEqual(['version', 'login'])
    expect((await suite.registry.catalog()).filter((name) => name.startsWith(repository))).toEqual(
      [],
    )
  },
  RUN_MS,
)

test(
  "'check-only' gives a fan-out's matrix: the images a run would build, one leg each",
  async () => {
    const result = await buildImages('docker', suite.uniqueRepository('plan'), nextCommit(), {
      images: 'frontend,backend',
      codeasdata: 'true',
      'check-only': 'true',
    })
    expect(runOutcome(result)).toEqual({ code: 0, tail: '' })
    expect(result.stdout).toContain(CHECKED)
    expect(result.outputs).toEqual({
      matrix: '["frontend","backend:api","backend:worker","backend:jobs","codeasdata"]',
      skipped: 'false',
    })
    expect(await suite.spy.commands()).toEqual([])
  },
  RUN_MS,
)
