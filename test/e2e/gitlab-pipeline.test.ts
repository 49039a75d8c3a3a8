// gitlab/pipeline.yml end to end, as a consumer includes it: gitlab-ci-local checks the inputs,
// builds a sample project (npm ci, build:draw, build:node, buildCodeAsData when asked), builds and
// pushes its images on the real Docker engine to a private registry, and deploys them to a
// loopback webhook through the dotenv hand-over. The package comes from a loopback npm registry
// by version. Merge requests and other branches build the project only.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { connect, createServer, type Socket } from 'node:net'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { filesUnder } from '../helpers/file-tree.js'
import { CHECKED } from '../helpers/run-action.js'
import { useCleanup, useServers, useStarted } from '../helpers/suite.js'
import { startDockerSuite } from '../helpers/docker-suite.js'
import {
  ciFile,
  component,
  jobState,
  listJobs,
  outcome,
  pipelineRecord,
  removeFileVariables,
  sampleOlympeProject,
  type GitlabProject,
  type PipelineRun,
} from '../helpers/gitlab-ci-local.js'
import { run as runProcess } from '../helpers/run-process.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { publishPackage, startProjectRegistry, startVerdaccio } from '../helpers/verdaccio.js'
import { faults, startWebhookServer } from '../helpers/webhook-server.js'

const TOKEN = 'gl-pipeline-token-58c2e1'
const HOOK_PATH = '/hooks/b7c6d5e4f3a2-deploy-key'
// On two cores shared with other suites, a whole pipeline took 13 to 16 s; the limits leave room
// for a much slower machine. gitlab-ci-local is stopped at PIPELINE_MS; a test also lists jobs
// and reads the registry.
const PIPELINE_MS = 180_000
const TEST_MS = PIPELINE_MS + 60_000

let npmCache: string
const pipelines = pipelineRecord()
// The servers, the npm cache, then each project; pushed images go with the registry's folder.
const cleanup = useCleanup(120_000)
const { docker, npmRegistry, webhook } = useServers(
  {
    docker: startDockerSuite,
    npmRegistry: startProjectRegistry,
    webhook: () => startWebhookServer(undefined, HOOK_PATH),
  },
  cleanup,
  120_000,
)
beforeAll(async () => {
  npmCache = await cleanup.tempDir('olympe-npm-cache-')
})

async function sampleProject(codeasdata: boolean): Promise<GitlabProject> {
  const inputs = {
    registry: docker.registry.host,
    'npm-registry': npmRegistry.url,
    codeasdata: String(codeasdata),
  }
  const ci = ciFile(['build', 'deploy'], [{ component: component('pipeline'), inputs }])
  return cleanup.track('sample project', await sampleOlympeProject(ci))
}

interface PipelineCase {
  manual?: string[]
  dockerHost?: string
  /** More CI/CD variables: the pipeline source of a merge request… */
  variables?: Record<string, string>
  /** Predefined variables to remove (CI_COMMIT_BRANCH in a merge request pipeline). */
  unset?: string[]
  /** CI/CD variables the team forgot to set. */
  missing?: string[]
}

async function pipeline(project: GitlabProject, options: PipelineCase = {}): Promise<PipelineRun> {
  webhook.requests.length = 0
  const given: Record<string, string> = {
    WEBHOOK_URL: webhook.url,
    WEBHOOK_TOKEN: TOKEN,
    // GitLab's own registry and its credentials, which the templates use by default: the
    // image jobs to push, the deploy job to check the images.
    CI_REGISTRY: docker.registry.host,
    CI_REGISTRY_USER: docker.registry.user,
    CI_REGISTRY_PASSWORD: docker.registry.password,
    ...(options.dockerHost ? { DOCKER_HOST: options.dockerHost } : {}),
    ...options.variables,
  }
  const missing = new Set(options.missing)
  const variables = Object.fromEntries(Object.entries(given).filter(([name]) => !missing.has(name)))
  return pipelines.run(project, {
    manual: options.manual,
    variables,
    unset: options.unset,
    env: { ...docker.env, npm_config_cache: npmCache },
    timeoutMs: PIPELINE_MS,
  })
}

const BUILD_ONLY = (what: string): string =>
  `Images and deploy run only on the default branch 'main': this pipeline is for ${what}, so only the project is built.`

/** What a job printed, without the `$ command` lines gitlab-ci-local shows before each command. */
const printed = (run: PipelineRun, job: string): string[] =>
  (run.jobLogs[job] ?? '').split('\n').filter((line) => !line.startsWith('$ '))

/** The files a job kept as artifacts (gitlab-ci-local's copy of them), relative paths. */
function artifactsOf(project: GitlabProject, job: string): Promise<string[]> {
  return filesUnder(join(project.dir, '.gitlab-ci-local/artifacts', job))
}

interface DockerProxy {
  dockerHost: string
  connections(): number
  stop(): Promise<void>
}

/**
 * The engine on a TCP address, as a Docker-in-Docker service offers it (`tcp://docker:2375`):
 * a loopback port relayed to the local socket, counting who comes through.
 */
async function startDockerProxy(socketPath = '/var/run/docker.sock'): Promise<DockerProxy> {
  let connections = 0
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    connections++
    const engine = connect(socketPath)
    for (const socket of [client, engine]) {
      sockets.add(socket)
      socket.on('error', () => {
        client.destroy()
        engine.destroy()
      })
      socket.on('close', () => sockets.delete(socket))
    }
    client.pipe(engine).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    dockerHost: `tcp://127.0.0.1:${port}`,
    connections: () => connections,
    stop: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

const sentPayload = (): Record<string, unknown> => {
  expect(webhook.requests).toHaveLength(1)
  return JSON.parse(webhook.requests[0]?.body ?? '') as Record<string, unknown>
}

/** What one job pushed, from the `[kind] $ docker push <reference>` lines of its log. */
/** The branch's moving tag, which every push also gives each image (see build-images). */
const MOVING_TAG = 'main'

/** The references a job pushed, but the moving tags. */
function pushedBy(run: PipelineRun, job: string): string[] {
  const log = run.jobLogs[job] ?? ''
  return [...log.matchAll(/\] \$ docker push (\S+)/g)]
    .map((match) => match[1] ?? '')
    .filter((reference) => !reference.endsWith(`:${MOVING_TAG}`))
    .sort()
}

/** The digest one job reported for an image kind (`[kind] pushed, digest sha256:…`). */
function digestFrom(run: PipelineRun, job: string, kind: string): string | undefined {
  const log = run.jobLogs[job] ?? ''
  return new RegExp(`\\[${kind}\\] pushed, digest (sha256:[0-9a-f]{64})`).exec(log)?.[1]
}

/** The digest the registry holds now for an image reference. */
async function registryDigest(reference: string): Promise<string> {
  const [, name = '', tag = ''] = /^[^/]+\/(.+):([^:]+)$/.exec(reference) ?? []
  return (await docker.registry.manifest(name, tag)).digest
}

/** What the deploy job's image check said: each reference it found, with its digest. */
function checkedBy(run: PipelineRun): { login: boolean; found: Record<string, string> } {
  const log = run.jobLogs['olympe-deploy'] ?? ''
  const found = [...log.matchAll(/^[a-z-]+ (\S+): found, (sha256:[0-9a-f]{64})$/gm)]
  return {
    login: log.includes(
      `Registry '${docker.registry.host}': asked with the login from 'registry-username' and 'registry-password'.`,
    ),
    found: Object.fromEntries(found.map((match) => [match[1] ?? '', match[2] ?? ''])),
  }
}

async function pushedReference(kind: string): Promise<string> {
  const name = `acme/shop/${kind}`
  const tags = (await docker.registry.tags(name)).filter((tag) => tag !== MOVING_TAG)
  expect(tags).toHaveLength(1)
  return `${docker.registry.host}/${name}:${tags[0] ?? ''}`
}

describe('gitlab/pipeline.yml run by gitlab-ci-local on the real Docker engine', () => {
  const proxy = useStarted('docker proxy', () => startDockerProxy(), cleanup)

  test(
    'codeasdata true: the code-as-data job runs on its own, and all three images are deployed',
    async () => {
      const project = await sampleProject(true)
      expect((await listJobs(project)).map((job) => [job.name, job.when])).toEqual([
        ['olympe-check', 'on_success'],
        ['olympe-build', 'on_success'],
        ['olympe-images', 'on_success'],
        ['olympe-codeasdata-image', 'on_success'],
        ['olympe-deploy', 'on_success'],
      ])
      // DOCKER_HOST as a Docker-in-Docker service sets it: the engine is reached through it.
      const run = await pipeline(project, { dockerHost: proxy.dockerHost })

      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      // The check passed for both actions, so the rest ran.
      expect(printed(run, 'olympe-check').filter((line) => line === CHECKED)).toHaveLength(2)
      expect(run.jobLogs['olympe-build']).toContain('fake toolkit: buildCodeAsData')
      // The build output the image jobs read, and no note: this is the default branch.
      const kept = await artifactsOf(project, 'olympe-build')
      expect(kept).toEqual(
        expect.arrayContaining([
          'dist/codeAsData/import_order.json',
          'dist/node/main.js',
          'dist/web/index.html',
        ]),
      )
      // And the lock file npm installed from, where the images job reads Draw's version.
      expect(kept.filter((file) => !file.startsWith('dist/'))).toEqual(['package-lock.json'])
      // The build job built the code as data: its image job does not build it again.
      expect(run.jobLogs['olympe-codeasdata-image']).not.toContain('fake toolkit')
      expect(proxy.connections()).toBeGreaterThan(0)
      const [frontend = '', backend = '', codeasdata = ''] = await Promise.all(
        ['frontend', 'backend', 'codeasdata'].map(pushedReference),
      )
      expect(pushedBy(run, 'olympe-images')).toEqual([backend, frontend])
      expect(pushedBy(run, 'olympe-codeasdata-image')).toEqual([codeasdata])
      const payload = sentPayload()
      expect(payload.frontend).toEqual({ image: frontend })
      expect(payload.backends).toEqual({
        images: [backend],
        deployRules: [{ source: '.*', target: '.*' }],
      })
      expect(payload.codeAsData).toEqual({ image: codeasdata, updateMode: 'manual' })
      // The deploy job checked each image with the registry login the pipeline passes it.
      expect(checkedBy(run)).toEqual({
        login: true,
        found: {
          [frontend]: digestFrom(run, 'olympe-images', 'frontend'),
          [backend]: digestFrom(run, 'olympe-images', 'backend'),
          [codeasdata]: digestFrom(run, 'olympe-codeasdata-image', 'codeasdata'),
        },
      })
    },
    TEST_MS,
  )

  test(
    'codeasdata false: two images pushed and deployed, the code-as-data image a manual job that blocks nothing',
    async () => {
      const project = await sampleProject(false)
      expect(await listJobs(project)).toEqual([
        { name: 'olympe-check', stage: '.pre', when: 'on_success', allowFailure: false },
        { name: 'olympe-build', stage: 'build', when: 'on_success', allowFailure: false },
        { name: 'olympe-images', stage: 'build', when: 'on_success', allowFailure: false },
        { name: 'olympe-codeasdata-image', stage: 'build', when: 'manual', allowFailure: true },
        // Exit code 80 (not live: awaiting a promotion, or unverified) passes with warnings.
        {
          name: 'olympe-deploy',
          stage: 'deploy',
          when: 'on_success',
          allowFailure: { exit_codes: [80] },
        },
      ])
      const before = await docker.registry.tags('acme/shop/codeasdata')
      const run = await pipeline(project)

      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      expect(run.jobLogs['olympe-build']).toContain('Not asked (codeasdata is false).')
      expect(run.jobLogs['olympe-codeasdata-image']).toBeUndefined()
      expect(await docker.registry.tags('acme/shop/codeasdata')).toEqual(before)
      const pushed = pushedBy(run, 'olympe-images')
      expect(pushed).toHaveLength(2)
      expect(pushed.map((reference) => reference.replace(/:[^:/]+$/, ''))).toEqual([
        `${docker.registry.host}/acme/shop/backend`,
        `${docker.registry.host}/acme/shop/frontend`,
      ])
      const payload = sentPayload()
      expect(payload.frontend).toEqual({ image: pushed[1] })
      expect(payload.codeAsData).toEqual({ updateMode: 'manual' })
    },
    TEST_MS,
  )

  test(
    'the manual code-as-data job pushes its image only: the deployed tags keep their digests',
    async () => {
      const project = await sampleProject(false)
      const run = await pipeline(project, { manual: ['olympe-codeasdata-image'] })

      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      expect(run.jobLogs['olympe-codeasdata-image']).toContain('fake toolkit: buildCodeAsData')
      const [backend = '', frontend = ''] = pushedBy(run, 'olympe-images')
      const codeasdata = pushedBy(run, 'olympe-codeasdata-image')
      expect(codeasdata).toEqual([expect.stringMatching(/\/acme\/shop\/codeasdata:/)])
      // The frontend and backend tags still hold the images job's builds, not new ones.
      for (const [kind, reference] of [
        ['frontend', frontend],
        ['backend', backend],
      ] as const) {
        const digest = digestFrom(run, 'olympe-images', kind)
        expect(digest).toMatch(/^sha256:/)
        expect({ kind, digest: await registryDigest(reference) }).toEqual({ kind, digest })
      }
      const payload = sentPayload()
      expect(payload.frontend).toEqual({ image: frontend })
      expect(payload.backends).toMatchObject({ images: [backend] })
      expect(payload.codeAsData).toEqual({ image: codeasdata[0], updateMode: 'manual' })
    },
    TEST_MS,
  )

  test(
    'a missing WEBHOOK_TOKEN fails the check job, which names it; nothing is built or pushed',
    async () => {
      const project = await sampleProject(false)
      const before = {
        docker: (await docker.spy.commands()).length,
        frontend: await docker.registry.tags('acme/shop/frontend'),
      }
      const run = await pipeline(project, { missing: ['WEBHOOK_TOKEN'] })

      expect(run.code).not.toBe(0)
      expect(Object.keys(run.jobLogs)).toEqual(['olympe-check'])
      // build-images' inputs are fine; deploy's are not, and the job says what to do.
      expect(printed(run, 'olympe-check')).toEqual(
        expect.arrayContaining([
          CHECKED,
          "Error: Invalid input 'webhook-token' (value hidden: secret): is required: set it from the secret the platform operator gave you (WEBHOOK_TOKEN).",
          'A check above failed, so the images and deploy jobs do not run: set what it names (a CI/CD variable or an input of the pipeline), then run the pipeline again.',
        ]),
      )
      expect((await docker.spy.commands()).length).toBe(before.docker)
      expect(await docker.registry.tags('acme/shop/frontend')).toEqual(before.frontend)
      expect(webhook.requests).toHaveLength(0)
    },
    TEST_MS,
  )

  test(
    'a merge request pipeline builds the project only, says why, and keeps that line only',
    async () => {
      const project = await sampleProject(true)
      const mergeRequest = {
        variables: { CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_IID: '12' },
        unset: ['CI_COMMIT_BRANCH'],
      }
      expect((await listJobs(project, mergeRequest)).map((job) => job.name)).toEqual([
        'olympe-build',
      ])
      const before = (await docker.spy.commands()).length
      const run = await pipeline(project, mergeRequest)

      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      expect(Object.keys(run.jobLogs)).toEqual(['olympe-build'])
      expect(printed(run, 'olympe-build')).toContain(BUILD_ONLY('a merge request'))
      expect(run.jobLogs['olympe-build']).toContain('fake toolkit: buildCodeAsData')
      // Nothing reads the build output there: the one line is all that is kept.
      expect(await artifactsOf(project, 'olympe-build')).toEqual(['olympe-build-only.txt'])
      const note = join(
        project.dir,
        '.gitlab-ci-local/artifacts/olympe-build/olympe-build-only.txt',
      )
      expect(await readFile(note, 'utf8')).toBe(`${BUILD_ONLY('a merge request')}\n`)
      expect((await docker.spy.commands()).length).toBe(before)
      expect(webhook.requests).toHaveLength(0)
    },
    TEST_MS,
  )

  test(
    'a push to another branch builds the project only, and says why',
    async () => {
      const project = await sampleProject(false)
      await runProcess('git', ['checkout', '-q', '-b', 'feature/login'], { cwd: project.dir })
      const before = (await docker.spy.commands()).length
      const run = await pipeline(project)

      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      expect(Object.keys(run.jobLogs)).toEqual(['olympe-build'])
      expect(printed(run, 'olympe-build')).toContain(BUILD_ONLY("the branch 'feature/login'"))
      expect(await artifactsOf(project, 'olympe-build')).toEqual(['olympe-build-only.txt'])
      expect((await docker.spy.commands()).length).toBe(before)
      expect(webhook.requests).toHaveLength(0)
    },
    TEST_MS,
  )

  test(
    'build-images.yml and deploy.yml included separately hand the images over by dotenv',
    async () => {
      const ci = ciFile(
        ['build', 'images', 'deploy'],
        [
          {
            component: component('build-images'),
            inputs: {
              stage: 'images',
              registry: docker.registry.host,
              'npm-registry': npmRegistry.url,
              'tag-template': '"{branch}-{run-id}"',
            },
          },
          { component: component('deploy'), inputs: { 'npm-registry': npmRegistry.url } },
        ],
        // The project's own build job, as a team that does not use pipeline.yml writes it.
        [
          'build:',
          '  stage: build',
          '  script: [npm ci, npm run build:draw, npm run build:node]',
          '  artifacts: { paths: [dist/] }',
        ],
      )
      const project = cleanup.track('sample project', await sampleOlympeProject(ci))
      const run = await pipeline(project)

      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      expect(Object.keys(run.jobLogs).sort()).toEqual([
        'build',
        'olympe-build-images',
        'olympe-deploy',
      ])
      const payload = sentPayload()
      const frontend = (payload.frontend as { image: string }).image
      expect(frontend).toMatch(new RegExp(`^${docker.registry.host}/acme/shop/frontend:main-\\d+$`))
      expect(run.jobLogs['olympe-build-images']).toContain(frontend)
      expect(payload.codeAsData).toEqual({ updateMode: 'manual' })
      expect(checkedBy(run)).toMatchObject({
        login: true,
        found: { [frontend]: expect.stringMatching(/^sha256:/) },
      })
    },
    TEST_MS,
  )

  describe('the build job installs through the registry the npmrc names, and says when npm cannot reach it', () => {
    /** A public package the project needs, which only the instance's own registry serves. */
    const PROBE = { name: 'olympe-offline-probe', version: '1.0.0' }
    const npmrcs = useCleanup()
    const servers = useServers(
      {
        npm: async () => {
          const registry = await startVerdaccio()
          await publishPackage(registry, {
            'package.json': JSON.stringify({ ...PROBE, main: 'index.js' }),
            'index.js': 'export default 1\n',
          })
          return registry
        },
        // A registry host that takes the connection and never answers, as one behind a firewall
        // that drops the replies, or a proxy that waits on an address it cannot reach.
        silent: () => startWebhookServer(faults.neverAnswer(), '/'),
      },
      npmrcs,
      60_000,
    )

    /** The sample project with a dependency from the registry (so no lock file), and its npmrc. */
    async function offlineProject(
      registryUrl: string,
      inputs: Record<string, string> = {},
    ): Promise<{ project: GitlabProject; variablesFile: string }> {
      const ci = ciFile(
        ['build', 'deploy'],
        [{ component: component('pipeline'), inputs: { npmrc: '$OLYMPE_NPMRC', ...inputs } }],
      )
      const project = cleanup.track(
        'offline project',
        await sampleOlympeProject(ci, { registryDependencies: { [PROBE.name]: PROBE.version } }),
      )
      // The instance's own registry, which serves the public packages too: the npmrc names it.
      const marker = `olympe-offline-${Date.now()}`
      const folder = await npmrcs.tempDir('olympe-offline-npmrc-')
      const variablesFile = join(folder, 'variables.yml')
      const npmrc = `# ${marker}\nregistry=${registryUrl}\n`
      await writeFile(
        variablesFile,
        stringify({ OLYMPE_NPMRC: { type: 'file', values: { '*': npmrc } } }),
      )
      npmrcs.add('npmrc File variables', () => removeFileVariables(marker))
      return { project, variablesFile }
    }

    /** The build job alone, as its pipeline runs it on the default branch. */
    const buildJob = (project: GitlabProject, variablesFile: string): Promise<PipelineRun> =>
      pipelines.run(project, { jobs: ['olympe-build'], variablesFile, timeoutMs: PIPELINE_MS })

    const unreachable = (registry: string, asked: string): string =>
      `npm could not reach ${registry} (it asked for ${asked}; npm's words above). Where the runners have no Internet access, the npmrc input must name a registry that serves the public packages too (registry=https://<your registry>/), beside Olympe's (@olympeio:registry=...). This job gives npm 20 s per request and 1 retry: the CI/CD variables npm_config_fetch_timeout (in ms) and npm_config_fetch_retries change that.`

    test(
      'install-command runs in its section, through the registry of the npmrc',
      async () => {
        const { project, variablesFile } = await offlineProject(servers.npm.url, {
          'install-command': '"npm install --no-audit --no-fund"',
        })
        const run = await buildJob(project, variablesFile)

        expect(outcome(run)).toEqual({ code: 0, tail: '' })
        const log = run.jobLogs['olympe-build'] ?? ''
        // The given command, not the default one (which says why it runs npm install), between
        // the section's markers.
        expect(log).not.toContain('No package-lock.json committed')
        // (gitlab-ci-local writes the section markers as `<name>_started` and `<name> took <time>`.)
        const install = log.slice(log.indexOf('olympe_npm_install_started'))
        expect(install).toMatch(
          /^olympe_npm_install_started\n[^]*\nolympe_npm_install took \d+m?s\n/,
        )
        const installed = join(project.dir, 'node_modules', PROBE.name, 'package.json')
        expect(JSON.parse(await readFile(installed, 'utf8'))).toMatchObject(PROBE)
        expect(existsSync(join(project.dir, 'dist/web/index.html'))).toBe(true)
      },
      TEST_MS,
    )

    test(
      'that registry down: the job fails, naming the registry npm tried',
      async () => {
        const { project, variablesFile } = await offlineProject(servers.npm.url)
        await servers.npm.stop()
        const run = await buildJob(project, variablesFile)

        // Failed on its own, well before gitlab-ci-local's bound (PIPELINE_MS).
        expect(run.code).toBe(1)
        expect(jobState(run, 'olympe-build')).toBe('FAIL')
        expect(printed(run, 'olympe-build')).toContain(
          unreachable(servers.npm.url, `${servers.npm.url}${PROBE.name}`),
        )
        expect(run.jobLogs['olympe-build']).toContain('ECONNREFUSED')
      },
      TEST_MS,
    )

    test(
      "a registry that never answers: the job fails within npm's bounds, naming it",
      async () => {
        const registry = servers.silent.url
        const { project, variablesFile } = await offlineProject(registry)
        const run = await buildJob(project, variablesFile)

        expect(run.code).toBe(1)
        expect(jobState(run, 'olympe-build')).toBe('FAIL')
        expect(printed(run, 'olympe-build')).toContain(
          unreachable(registry, `${registry}${PROBE.name}`),
        )
        // npm asked, waited for an answer, and asked once more.
        expect(servers.silent.requests.map((request) => request.path)).toEqual([
          `/${PROBE.name}`,
          `/${PROBE.name}`,
        ])
      },
      TEST_MS,
    )
  })

  // Last on purpose: it reads what every run above printed.
  test('no job log holds the registry password or the webhook secrets', async () => {
    expect(pipelines.runs.length).toBeGreaterThanOrEqual(3)
    expectNoSecrets(
      { ...pipelines.logs(), 'docker argv': (await docker.spy.commands()).join('\n') },
      [docker.registry.password, TOKEN, webhook.url, HOOK_PATH],
    )
  })
})
