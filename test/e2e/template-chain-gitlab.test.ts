// The official project template adopted on GitLab, end to end: gitlab-ci-local runs
// gitlab/pipeline.yml, included as a catalog component, in a project made from the template on
// its `master` branch (the default branch, as GitLab would know it). The @olympeio packages come
// from Olympe's registry (a verdaccio that wants a token), through the `npmrc` input and a CI/CD
// variable of type File; the same registry serves the public packages and olympe-deploy-actions.
// The images go to a registry with a password on the real Docker engine, and the deploy job calls
// a loopback webhook in its GitLab environment.
// One whole pipeline only (master, no lock file, as the template comes). The other variants go
// the cheaper ways: which jobs run on which default branch is gitlab-ci-local's list, without
// running them; the build job alone on `main` with a committed lock file (npm ci); and
// gitlab/snapshot.yml's install of the project's toolkit. The install lines themselves are
// checked statically in test/unit/gitlab/templates.test.ts and workflows.test.ts.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { deploys, rollout, startAppServer, version } from '../helpers/app-server.js'
import { deployedTo, type DeployRule } from '../helpers/deploy-rules.js'
import { useCleanup, useServers } from '../helpers/suite.js'
import { startDockerSuite } from '../helpers/docker-suite.js'
import {
  DRAW_PASSWORD,
  DRAW_USERNAME,
  IDS,
  PLATFORM_STATE,
  salesSnapshot,
} from '../helpers/fake-toolkit.js'
import { startGitServer } from '../helpers/git-server.js'
import {
  ciFile,
  component,
  createGitlabProject,
  jobState,
  listEnvironments,
  listJobs,
  logsOf,
  outcome,
  PROJECT_PATH,
  removeFileVariables,
  runPipeline,
  type GitlabProject,
  type PipelineOptions,
  type PipelineRun,
} from '../helpers/gitlab-ci-local.js'
import { CHECKED, ROOT } from '../helpers/run-action.js'
import { run as runProcess } from '../helpers/run-process.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { ensureTemplateBaseImages } from '../helpers/template-base-images.js'
import {
  BACKEND_FILES,
  BACKENDS,
  backendCode,
  installedDraw,
  npmInstalls,
  npmLogs,
  ociLabels,
  webRootOwners,
} from '../helpers/template-chain.js'
import {
  STAND_IN_VERSIONS,
  startTemplateRegistry,
  TEMPLATE_FIXTURE,
  templateLockFile,
} from '../helpers/template-project.js'
import { publishProject } from '../helpers/verdaccio.js'
import { startWebhookServer } from '../helpers/webhook-server.js'

const WEBHOOK_TOKEN = 'gl-template-token-7b3d9f1e'
const HOOK_PATH = '/hooks/4f6a8c0e2b1d-template'
const GIT_TOKEN = 'glpat-templateSnapshot5c7e'
const APP_URL = 'https://shop.example.test/'
const NO_LOCK_FILE = 'No package-lock.json committed, so npm install'
// On two cores shared with other suites, the whole pipeline took 11 s and one job 2 to 7 s; the
// limits leave room for a much slower machine. gitlab-ci-local is stopped at them, and each test
// is bounded by them plus the time of its own checks (listing jobs, reading the registry).
const PIPELINE_MS = 180_000
const JOB_MS = 90_000
const CHECKS_MS = 60_000

let lockFile: string
let scratch: string
let templateIgnore: string
const runs: PipelineRun[] = []
const caches: string[] = []
// The servers, the File variables gitlab-ci-local leaves in /tmp, the scratch folder (variables
// files), each run's npm cache, then each project; the images go with the registry's own folder.
const cleanup = useCleanup(120_000)
const servers = useServers(
  {
    registry: startTemplateRegistry,
    docker: startDockerSuite,
    webhook: () => startWebhookServer(undefined, HOOK_PATH),
    gitServer: () => startGitServer({ token: GIT_TOKEN }),
    app: startAppServer,
  },
  cleanup,
  120_000,
)
const { registry, docker, webhook, gitServer } = servers
/** The production app, whose version.json follows the webhook's POST. */
const app = servers.app

beforeAll(async () => {
  // The copies of the npmrc file (token included) gitlab-ci-local writes to /tmp and leaves.
  cleanup.add('npmrc File variables', () => removeFileVariables(registry.token))
  scratch = await cleanup.tempDir('olympe-template-gitlab-')
  // The jobs' `npx olympe-deploy-actions@<version>` finds it in the same registry.
  await publishProject(registry.verdaccio, registry.token)
  await ensureTemplateBaseImages()
  lockFile = await templateLockFile(registry)
  templateIgnore = await readFile(join(TEMPLATE_FIXTURE, '.gitignore'), 'utf8')
}, 180_000)

/**
 * The template as a GitLab project whose default branch is `defaultBranch` (master unless told),
 * with its CI file, committed on `branch` (the default branch unless told).
 */
async function templateProject(
  ci: string,
  options: {
    defaultBranch?: string
    branch?: string
    lock?: boolean
    /** More files of the team's, by path. */
    files?: Record<string, string>
  } = {},
): Promise<GitlabProject> {
  const ignore = options.lock
    ? templateIgnore.replace(/^package-lock\.json\n/m, '')
    : templateIgnore
  const files: Record<string, string> = {
    ...options.files,
    '.gitlab-ci.yml': ci,
    '.gitignore': ignore,
  }
  if (options.lock) files['package-lock.json'] = lockFile
  const project = await createGitlabProject(files, {
    defaultBranch: options.defaultBranch ?? 'master',
    branch: options.branch,
    copyFrom: { '.': TEMPLATE_FIXTURE },
  })
  return cleanup.track(`gitlab project ${project.dir}`, project)
}

/** The template with pipeline.yml on the suite's registry, its npmrc a File variable. */
const npmrcProject = (options?: Parameters<typeof templateProject>[1]): Promise<GitlabProject> =>
  templateProject(pipelineCi({ registry: docker.registry.host, npmrc: '$OLYMPE_NPMRC' }), options)

/**
 * The images job read draw_version from package-lock.json, and labelled both images with it.
 * Returns the images' labels.
 */
async function expectDrawFromLock(
  project: GitlabProject,
  result: PipelineRun,
): Promise<Record<string, Record<string, string>>> {
  expect(printed(result.jobLogs['olympe-images'])).toContain(
    `draw_version ${STAND_IN_VERSIONS.draw} (from '${LOCK_ENTRY}' in package-lock.json)`,
  )
  const labels = await labelsOf(project, ['frontend', 'backend'])
  for (const kind of ['frontend', 'backend'])
    expect({ kind, draw: labels[kind]?.draw_version }).toEqual({
      kind,
      draw: STAND_IN_VERSIONS.draw,
    })
  return labels
}

/** What a team puts in the File variable: Olympe's registry for @olympeio, and the token. */
function npmrcFile(): string {
  const host = new URL(registry.url).host
  return `@olympeio:registry=${registry.url}\n//${host}/:_authToken=${registry.token}\n`
}

/** The project's CI/CD variables file, outside the project; OLYMPE_NPMRC of type File. */
async function variablesFile(type: 'file' | 'variable' = 'file'): Promise<string> {
  const file = join(scratch, `variables-${type}.yml`)
  const entry = type === 'file' ? { type, values: { '*': npmrcFile() } } : npmrcFile()
  await writeFile(file, stringify({ OLYMPE_NPMRC: entry }))
  return file
}

async function pipeline(
  project: GitlabProject,
  options: PipelineOptions = {},
): Promise<PipelineRun> {
  webhook.respondWith(deploys(app))
  const npmCache = await cleanup.tempDir('olympe-template-gitlab-npm-')
  caches.push(npmCache)
  const result = await runPipeline(project, {
    variablesFile: await variablesFile(),
    ...options,
    variables: {
      WEBHOOK_URL: webhook.url,
      WEBHOOK_TOKEN,
      CI_REGISTRY_USER: docker.registry.user,
      CI_REGISTRY_PASSWORD: docker.registry.password,
      ...options.variables,
    },
    env: {
      ...docker.env,
      npm_config_cache: npmCache,
      // The runner's own npm configuration: the public registry, which the same verdaccio plays.
      npm_config_registry: registry.url,
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      ...options.env,
    },
    timeoutMs: options.timeoutMs ?? PIPELINE_MS,
  })
  runs.push(result)
  return result
}

const lastCache = (): string => caches.at(-1) ?? ''

/** What a job printed, without the `$ command` lines its log shows before each command. */
const printed = (log = ''): string =>
  log
    .split('\n')
    .filter((line) => !line.startsWith('$ '))
    .join('\n')

function pipelineCi(inputs: Record<string, string | boolean | string[]>): string {
  const written = Object.entries(inputs).map(
    ([name, value]) => [name, JSON.stringify(value)] as const,
  )
  return ciFile(
    ['build', 'deploy'],
    [{ component: component('pipeline'), inputs: Object.fromEntries(written) }],
  )
}

async function headOf(project: GitlabProject): Promise<string> {
  return (await runProcess('git', ['rev-parse', 'HEAD'], { cwd: project.dir })).stdout.trim()
}

describe('gitlab/pipeline.yml on the template, on master', () => {
  test(
    'installs through the npmrc file, builds, pushes three images and deploys in its environment',
    async () => {
      const project = await templateProject(
        pipelineCi({
          registry: docker.registry.host,
          codeasdata: true,
          npmrc: '$OLYMPE_NPMRC',
          'environment-url': APP_URL,
        }),
      )
      expect(await listEnvironments(project, { variablesFile: await variablesFile() })).toEqual({
        'olympe-deploy': 'production',
      })
      const result = await pipeline(project)

      expect(outcome(result)).toEqual({ code: 0, tail: '' })
      expect(Object.keys(result.jobLogs).sort()).toEqual([
        'olympe-build',
        'olympe-check',
        'olympe-codeasdata-image',
        'olympe-deploy',
        'olympe-images',
      ])
      // The first job found the inputs of both actions valid, with the File variable and a
      // registry that wants a password.
      expect(
        printed(result.jobLogs['olympe-check'])
          .split('\n')
          .filter((line) => line === CHECKED),
      ).toHaveLength(2)
      expect(printed(result.jobLogs['olympe-build'])).toContain(NO_LOCK_FILE)
      expect(await npmInstalls(lastCache())).toEqual(['install'])
      expect(result.output).toContain(
        `olympe-deploy environment: { name: production, url: ${APP_URL} }`,
      )

      const sha = await headOf(project)
      const tag = `master-${sha.slice(0, 7)}`
      const references: Record<string, string> = {}
      for (const kind of ['frontend', 'backend', 'codeasdata']) {
        const name = `${PROJECT_PATH}/${kind}`
        // The run's tag, and the branch's moving tag.
        expect({ kind, tags: (await docker.registry.tags(name)).sort() }).toEqual({
          kind,
          tags: ['master', tag].sort(),
        })
        const { config } = await docker.registry.manifest(name, tag)
        // Draw's version (2.15.3), not the app's (2.15.0) that dist/web/version.json holds.
        expect({ kind, draw: config.Labels?.draw_version }).toEqual({
          kind,
          draw: STAND_IN_VERSIONS.draw,
        })
        expect(ociLabels(config.Labels)).toEqual({
          // The app's own version (the template's package.json), which dist/web/version.json serves.
          'org.opencontainers.image.version': '2.15.0',
          'org.opencontainers.image.source': `https://gitlab.example.com/${PROJECT_PATH}`,
          'org.opencontainers.image.revision': sha,
          // The app's own version, which the template's webpack build writes there.
        })
        expect(config.Labels?.['olympe.test.flavour']).toBe('onbuild')
        references[kind] = `${docker.registry.host}/${name}:${tag}`
      }
      const owners = await webRootOwners(references.frontend ?? '')
      expect(Object.keys(owners)).toEqual(['101:0'])
      expect(owners['101:0']).toBeGreaterThanOrEqual(10)

      expect(webhook.requests).toHaveLength(1)
      expect(webhook.requests[0]?.headers.authorization).toBe(`Bearer ${WEBHOOK_TOKEN}`)
      expect(JSON.parse(webhook.requests[0]?.body ?? '')).toEqual({
        frontend: { image: references.frontend },
        backends: { images: [references.backend], deployRules: [{ source: '.*', target: '.*' }] },
        codeAsData: { image: references.codeasdata, updateMode: 'manual' },
        noDowntime: { promotionMode: 'manual' },
      })
    },
    PIPELINE_MS + CHECKS_MS,
  )

  test(
    'an npmrc variable that is not of type File stops the build, without printing it',
    async () => {
      const project = await npmrcProject()
      const result = await pipeline(project, {
        variablesFile: await variablesFile('variable'),
        jobs: ['olympe-build'],
        timeoutMs: JOB_MS,
      })

      expect(result.code).not.toBe(0)
      expect(printed(result.jobLogs['olympe-build'])).toContain(
        'The npmrc input is not the path of a file: give a CI/CD variable of type File, such as npmrc: $OLYMPE_NPMRC (its value is not printed).',
      )
      expect(await npmInstalls(lastCache())).toEqual([])
      expectNoSecrets(logsOf([result]), registry.secrets)
    },
    JOB_MS + CHECKS_MS,
  )
})

/** The image's labels in the registry, by kind, for the run's tag. */
async function labelsOf(
  project: GitlabProject,
  kinds: string[],
): Promise<Record<string, Record<string, string>>> {
  const tag = `master-${(await headOf(project)).slice(0, 7)}`
  const labels: Record<string, Record<string, string>> = {}
  for (const kind of kinds)
    labels[kind] =
      (await docker.registry.manifest(`${PROJECT_PATH}/${kind}`, tag)).config.Labels ?? {}
  return labels
}

const LOCK_ENTRY = 'packages["node_modules/@olympeio/draw"].version'

describe('on a real runner: each job gets only the artifacts of the jobs it needs', () => {
  test(
    'examples/gitlab/.gitlab-ci.yml as shipped, no lock file: draw_version from the lock file the build handed over; the deploy watches APP_URL until live',
    async () => {
      const example = await readFile(join(ROOT, 'examples/gitlab/.gitlab-ci.yml'), 'utf8')
      // The published form `<group>/olympe-deploy-actions/<name>@<version>` becomes this commit's.
      const local = example.replace(
        /<group>\/olympe-deploy-actions\/([a-z-]+)@[0-9.]+/g,
        `${PROJECT_PATH}/$1@$CI_COMMIT_SHA`,
      )
      expect(local).not.toBe(example)
      const project = await templateProject(local)
      // The app served the template's previous release, then this build's version.
      app.play(rollout('2.14.9', () => version('2.15.0')))
      const result = await pipeline(project, {
        isolated: true,
        // The variables the example says to set, with GitLab's own registry ones.
        variables: {
          APP_URL: app.url,
          CI_REGISTRY: docker.registry.host,
        },
      })

      expect(outcome(result)).toEqual({ code: 0, tail: '' })
      for (const job of ['olympe-check', 'olympe-build', 'olympe-images', 'olympe-deploy'])
        expect({ job, state: jobState(result, job) }).toEqual({ job, state: 'PASS' })
      // The images job had no node_modules: Draw's version came from the lock file npm install
      // wrote in the build job, which handed it over with dist/.
      const labels = await expectDrawFromLock(project, result)
      const served = JSON.parse(
        labels.frontend?.['io.olympe.deploy-actions.served-files'] ?? '{}',
      ) as Record<string, string>
      expect(Object.keys(served)).toEqual(['index.html', 'main.js', 'version.json'])
      // The deploy job read the version to expect from the frontend image's label, with the
      // registry login the pipeline passes, and watched the app until it served it.
      const deploy = printed(result.jobLogs['olympe-deploy'])
      expect(deploy).toContain(
        `Expected version: 2.15.0 (from the org.opencontainers.image.version label of '${docker.registry.host}/${PROJECT_PATH}/frontend:master-`,
      )
      expect(deploy).toContain(`The app at ${app.url} serves 2.15.0: live`)
      expect(Object.values(result.dotenvReports).join('')).toContain('OLYMPE_DEPLOY_ROLLOUT=live\n')
      // The environment's link is the app: app-url without its credentials, from the dotenv report.
      expect(Object.values(result.dotenvReports).join('')).toContain(
        `OLYMPE_DEPLOY_URL=${app.url}\n`,
      )
    },
    PIPELINE_MS + CHECKS_MS,
  )

  test(
    'a committed lock file: the images job reads draw_version from it',
    async () => {
      const project = await npmrcProject({ lock: true })
      const result = await pipeline(project, {
        isolated: true,
        jobs: ['olympe-build', 'olympe-images'],
        timeoutMs: PIPELINE_MS,
      })

      expect(outcome(result)).toEqual({ code: 0, tail: '' })
      expect(await npmInstalls(lastCache())).toEqual(['ci'])
      await expectDrawFromLock(project, result)
    },
    PIPELINE_MS + CHECKS_MS,
  )
})

describe('any default branch, with or without a lock file', () => {
  const ON_THE_DEFAULT_BRANCH: [string, string][] = [
    ['olympe-check', 'on_success'],
    ['olympe-build', 'on_success'],
    ['olympe-images', 'on_success'],
    ['olympe-codeasdata-image', 'manual'],
    ['olympe-deploy', 'on_success'],
  ]
  // Listed, not run: the rules compare the branch with CI_DEFAULT_BRANCH, whatever its name.
  test.each<[string, string, [string, string][]]>([
    ['master', 'master', ON_THE_DEFAULT_BRANCH],
    ['main', 'main', ON_THE_DEFAULT_BRANCH],
    ['master', 'feature/x', [['olympe-build', 'on_success']]],
    ['main', 'master', [['olympe-build', 'on_success']]],
  ])(
    'default branch %s, a push to %s: the jobs gitlab-ci-local would run',
    async (defaultBranch, branch, expected) => {
      const project = await npmrcProject({ defaultBranch, branch })
      const jobs = await listJobs(project, { variablesFile: await variablesFile() })
      expect(jobs.map((job) => [job.name, job.when])).toEqual(expected)
    },
  )

  // The whole pipeline above is master without a lock file; this is the other pair.
  test(
    'the build job on main with a committed lock file: npm ci through the npmrc file',
    async () => {
      const project = await npmrcProject({ defaultBranch: 'main', lock: true })
      const result = await pipeline(project, { jobs: ['olympe-build'], timeoutMs: JOB_MS })

      expect(outcome(result)).toEqual({ code: 0, tail: '' })
      expect(await npmInstalls(lastCache())).toEqual(['ci'])
      expect(await installedDraw(project)).toBe(STAND_IN_VERSIONS.draw)
      const log = printed(result.jobLogs['olympe-build'])
      expect(log).not.toContain(NO_LOCK_FILE)
      expect(log).toContain('Not asked (codeasdata is false).')
    },
    JOB_MS + CHECKS_MS,
  )
})

// Several backends with different code bases (BACKENDS: two share backend.Dockerfile, one has its
// own): with `backend-legs`, GitLab's `parallel: matrix` makes one job per backend, each on a
// runner of its own, and each image job hands its images over as a file, which the deploy job
// sends in one request. gitlab-ci-local runs the matrix as GitLab does, each job in a folder of
// its own with the artifacts of the jobs before it (isolated).
describe('several backends, each built by a job of its own (backend-legs)', () => {
  const LEGS = BACKENDS.map((backend) => backend.name)
  const fanOutProject = (legs: string[]): Promise<GitlabProject> =>
    templateProject(
      pipelineCi({
        registry: docker.registry.host,
        npmrc: '$OLYMPE_NPMRC',
        backends: JSON.stringify(BACKENDS),
        'backend-legs': legs,
      }),
      { files: BACKEND_FILES },
    )
  const legJob = (name: string): string => `olympe-backend: [${name}]`

  test('gitlab-ci-local makes one backend job per name of backend-legs, and none without', async () => {
    const listed = async (legs: string[]): Promise<[string, string][]> => {
      const project = await fanOutProject(legs)
      const jobs = await listJobs(project, { variablesFile: await variablesFile() })
      return jobs.map((job) => [job.name, job.stage])
    }
    const around = (legs: [string, string][]): [string, string][] => [
      ['olympe-check', '.pre'],
      ['olympe-build', 'build'],
      ['olympe-images', 'build'],
      ...legs,
      ['olympe-codeasdata-image', 'build'],
      ['olympe-deploy', 'deploy'],
    ]
    expect(await listed(LEGS)).toEqual(around(LEGS.map((name) => [legJob(name), 'build'])))
    expect(await listed([])).toEqual(around([]))
  })

  test(
    'each backend is built and pushed by its own job, the frontend by the images job, and one POST deploys them all, each backend its own image',
    async () => {
      const project = await fanOutProject(LEGS)
      const result = await pipeline(project, { isolated: true })

      expect(outcome(result)).toEqual({ code: 0, tail: '' })
      const jobs = ['olympe-check', 'olympe-build', 'olympe-images', ...LEGS.map(legJob)]
      for (const job of jobs)
        expect({ job, state: jobState(result, job) }).toEqual({ job, state: 'PASS' })
      expect(printed(result.jobLogs['olympe-images'])).toContain(
        'The backends are built each in a job of its own (olympe-backend), this job builds the frontend.',
      )
      const tag = `master-${(await headOf(project)).slice(0, 7)}`
      const reference = (image: string): string =>
        `${docker.registry.host}/${PROJECT_PATH}/${image}:${tag}`
      // Each job handed over its own images, build-images' `images` output, as a file of its
      // artifacts (gitlab-ci-local names a job's folder by an encoding of its name).
      const handedOver: Record<string, unknown> = {}
      const artifacts = join(project.dir, '.gitlab-ci-local/artifacts')
      for (const job of await readdir(artifacts)) {
        const folder = join(artifacts, job, 'olympe-images')
        for (const file of existsSync(folder) ? await readdir(folder) : [])
          handedOver[file] = JSON.parse(await readFile(join(folder, file), 'utf8'))
      }
      const digest = expect.stringMatching(/^sha256:[0-9a-f]{64}$/)
      expect(handedOver).toEqual({
        'frontend.json': [
          expect.objectContaining({ kind: 'frontend', reference: reference('frontend'), digest }),
        ],
        ...Object.fromEntries(
          LEGS.map((name) => [
            `backend-${name}.json`,
            [
              expect.objectContaining({
                kind: 'backend',
                name,
                reference: reference(`backend-${name}`),
                digest,
              }),
            ],
          ]),
        ),
      })
      // Each backend's image holds its own code: the services theirs, api the template's build.
      const code = await backendCode(LEGS.map((name) => reference(`backend-${name}`)))
      expect(code).toEqual([
        expect.stringContaining('Olympe project (node)'),
        BACKEND_FILES['services/worker/main.js']?.trim(),
        BACKEND_FILES['services/admin/main.js']?.trim(),
      ])

      const deployLog = printed(result.jobLogs['olympe-deploy'])
      // A failed deploy shows the end of its log.
      const deployState = jobState(result, 'olympe-deploy')
      expect(deployState === 'PASS' ? deployState : deployLog.slice(-2000)).toBe('PASS')
      expect(deployLog).toContain(
        'The images of backend-admin backend-api backend-worker frontend are deployed.',
      )
      expect(webhook.requests).toHaveLength(1)
      const payload = JSON.parse(webhook.requests[0]?.body ?? '') as Record<string, unknown>
      // Each image sent by the digest its job pushed and handed over.
      const sent = (file: string): string => {
        const [image] = handedOver[file] as { reference: string; digest: string }[]
        return `${image?.reference ?? ''}@${image?.digest ?? ''}`
      }
      expect(payload.frontend).toEqual({ image: sent('frontend.json') })
      const backends = payload.backends as { images: string[] }
      expect([...backends.images].sort()).toEqual(
        LEGS.map((name) => sent(`backend-${name}.json`)).sort(),
      )
      // The rules give each backend exactly its own image, and a name outside the list nothing.
      const { deployRules, images: sentImages } = payload.backends as {
        deployRules: DeployRule[]
        images: string[]
      }
      expect(deployedTo(deployRules, sentImages, [...LEGS, 'api2', 'billing'])).toEqual({
        ...Object.fromEntries(LEGS.map((name) => [name, [sent(`backend-${name}.json`)]])),
        api2: [],
        billing: [],
      })
    },
    PIPELINE_MS + CHECKS_MS,
  )

  test(
    'backend-legs that leave a backend out stop the pipeline in the check job: nothing built, nothing sent',
    async () => {
      const project = await fanOutProject(['api', 'worker'])
      const result = await pipeline(project, { isolated: true })

      expect(result.code).not.toBe(0)
      expect(Object.keys(result.jobLogs)).toEqual(['olympe-check'])
      expect(printed(result.jobLogs['olympe-check'])).toContain(
        "Invalid input 'backend-legs' ([api, worker]): it must name every backend of 'backends' once ('api', 'worker', 'admin'). Missing: 'admin'. Set it to [api, worker, admin], or leave it empty to build every backend in olympe-images.",
      )
      expect(webhook.requests).toHaveLength(0)
    },
    PIPELINE_MS + CHECKS_MS,
  )
})

// The template as it comes (no lock file): npm install, through the npmrc file.
test(
  'gitlab/snapshot.yml installs the toolkit from the registry and snapshots with it',
  async () => {
    const repo = 'acme/template-cad'
    await gitServer.createRepo(repo)
    const config = join(scratch, 'snapshot-config.json')
    await writeFile(
      config,
      JSON.stringify([salesSnapshot(gitServer.urlFor(repo), 'Snapshot {folder}')]),
    )
    const ci = ciFile(
      ['build'],
      [
        {
          component: component('snapshot'),
          inputs: {
            config: '$SNAPSHOT_CONFIG',
            'draw-username': DRAW_USERNAME,
            npmrc: '$OLYMPE_NPMRC',
          },
        },
      ],
    )
    const project = await templateProject(ci)
    const result = await pipeline(project, {
      variables: { CI_PIPELINE_SOURCE: 'schedule', SNAPSHOT_CONFIG: config, DRAW_PASSWORD },
      env: { FAKE_PLATFORM_STATE: PLATFORM_STATE },
      timeoutMs: JOB_MS,
    })

    expect(outcome(result)).toEqual({ code: 0, tail: '' })
    expect(Object.keys(result.jobLogs)).toEqual(['olympe-snapshot'])
    expect(printed(result.jobLogs['olympe-snapshot'])).toContain(NO_LOCK_FILE)
    expect(await npmInstalls(lastCache())).toEqual(['install'])
    // `npx olympe snapshot` ran the toolkit that came from Olympe's registry.
    const [tip] = await gitServer.log(repo, 'main')
    expect(tip?.subject).toBe('Snapshot snapshot/sales')
    const files = Object.keys(await gitServer.files(repo, 'main', 'snapshot'))
    expect(files).toContain(`snapshot/sales/${IDS.sales}/${IDS.sales}.json`)
  },
  JOB_MS + CHECKS_MS,
)

// Last on purpose: it reads what every run above printed.
test('no job log or npm log holds the npm token, a password or the webhook secrets', async () => {
  expect(runs.length).toBeGreaterThanOrEqual(4)
  const captured: Record<string, string> = {
    ...logsOf(runs),
    'docker argv': (await docker.spy.commands()).join('\n'),
  }
  for (const [index, cache] of caches.entries())
    for (const [name, text] of Object.entries(await npmLogs(cache)))
      captured[`cache ${index} ${name}`] = text
  expectNoSecrets(captured, [
    ...registry.secrets,
    docker.registry.password,
    WEBHOOK_TOKEN,
    webhook.url,
    HOOK_PATH,
    GIT_TOKEN,
    DRAW_PASSWORD,
  ])
})
