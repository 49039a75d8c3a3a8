// gitlab/deploy.yml and gitlab/snapshot.yml as a consumer includes them, run by gitlab-ci-local:
// the job fetches the packed package by version from a loopback npm registry and deploys to a
// loopback webhook; the rules keep merge requests, other branches and schedules from deploying.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  rollout,
  startAppServer,
  version as serving,
  type AppServer,
} from '../helpers/app-server.js'
import { useCleanup } from '../helpers/suite.js'
import {
  component,
  createGitlabProject,
  jobState,
  listJobs,
  logsOf,
  outcome,
  previewPipeline,
  runPipeline,
  type GitlabProject,
  type PipelineOptions,
  type PipelineRun,
} from '../helpers/gitlab-ci-local.js'
import {
  dockerLogin,
  ensureBaseImages,
  ensureDockerDaemon,
  pushImage,
  removeImages,
  startRegistry,
  type Registry,
} from '../helpers/docker-env.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { publishProject, startVerdaccio, type Verdaccio } from '../helpers/verdaccio.js'
import { answer, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

const TOKEN = 'gl-webhook-token-3f8a1c'
const HOOK_PATH = '/hooks/9d2e4f6a8b1c-deploy-key'
const FRONTEND = '127.0.0.1:5000/acme/shop/frontend:main-1a2b3c4'
const BACKEND = '127.0.0.1:5000/acme/shop/backend:main-1a2b3c4'
const CODEASDATA = '127.0.0.1:5000/acme/shop/codeasdata:main-1a2b3c4'

let registry: Verdaccio
let webhook: WebhookServer
/** The deployed app, whose version.json follows the webhook's POST. */
let app: AppServer
const APP_USER = 'preview-bot'
const APP_PASSWORD = `app-pw-${Date.now().toString(36)}`
let npmCache: string
let version: string
/** A private image registry holding one pushed frontend image, for the image check. */
let images: Registry
let pushedFrontend = ''
let pushedDigest = ''
let dockerConfig = ''
const IMAGES_PASSWORD = `img-pw-${Date.now().toString(36)}`
const runs: PipelineRun[] = []
// The servers, the folders, the pushed image and every project: undone after the suite, even
// when beforeAll stopped halfway.
const cleanup = useCleanup()

beforeAll(async () => {
  registry = cleanup.track('verdaccio', await startVerdaccio())
  ;({ version } = await publishProject(registry))
  // Only the operator's address deploys; any other path is unknown to the platform.
  webhook = cleanup.track(
    'webhook',
    await startWebhookServer(
      (request, index, res) =>
        (request.path === HOOK_PATH ? answer(200) : answer(404, { message: 'no such hook' }))(
          request,
          index,
          res,
        ),
      HOOK_PATH,
    ),
  )
  app = cleanup.track('app', await startAppServer())
  npmCache = await cleanup.tempDir('olympe-npm-cache-')
  await ensureDockerDaemon()
  const base = await ensureBaseImages()
  images = cleanup.track(
    'image registry',
    await startRegistry({ user: 'gitlab-ci-token', password: IMAGES_PASSWORD }),
  )
  cleanup.add('pushed images', () => removeImages(`${images.host}/`))
  dockerConfig = await cleanup.tempDir('olympe-docker-config-')
  const env = { ...process.env, DOCKER_CONFIG: dockerConfig }
  await dockerLogin(images, { env })
  pushedFrontend = `${images.host}/acme/shop/frontend:main-1a2b3c4`
  pushedDigest = await pushImage(base.frontend, pushedFrontend, { env })
}, 120_000)

function ciFile(includes: string): string {
  return `stages: [build, deploy]\ninclude:\n${includes}`
}

/** The template with these inputs; the images of these tests are in no registry unless a test says. */
function deployInclude(inputs: Record<string, string | number>): string {
  const given = { 'npm-registry': registry.url, 'verify-images': 'false', ...inputs }
  const lines = Object.entries(given).map(
    ([name, value]) => `      ${name}: ${JSON.stringify(value)}`,
  )
  return [`  - component: ${component('deploy')}`, '    inputs:', ...lines, ''].join('\n')
}

async function project(
  files: Record<string, string>,
  options: { branch?: string } = {},
): Promise<GitlabProject> {
  const created = await createGitlabProject(files, options)
  return cleanup.track(`GitLab project ${created.dir}`, created)
}

async function pipeline(
  target: GitlabProject,
  options: PipelineOptions = {},
): Promise<PipelineRun> {
  webhook.requests.length = 0
  const run = await runPipeline(target, {
    ...options,
    variables: { WEBHOOK_URL: webhook.url, WEBHOOK_TOKEN: TOKEN, ...options.variables },
    // npm's http log lines show where the package came from; a fresh cache makes it fetch.
    env: { npm_config_cache: npmCache, npm_config_loglevel: 'http', ...options.env },
  })
  runs.push(run)
  return run
}

describe('gitlab/deploy.yml run by gitlab-ci-local', () => {
  test('fetches the package by version from the registry input and sends the payload', async () => {
    const target = await project({
      '.gitlab-ci.yml': ciFile(
        deployInclude({
          'frontend-image': FRONTEND,
          'backend-images': BACKEND,
          'codeasdata-image': CODEASDATA,
          'codeasdata-update-mode': 'auto',
        }),
      ),
    })
    const run = await pipeline(target)

    expect(outcome(run)).toEqual({ code: 0, tail: '' })
    const log = run.jobLogs['olympe-deploy'] ?? ''
    expect(log).toContain(
      `olympe-deploy ${version} runs as: npx --yes olympe-deploy-actions@${version}\n`,
    )
    expect(log).toMatch(new RegExp(`GET 200 ${registry.url}olympe-deploy-actions`))
    // Collapsible sections, which gitlab-ci-local shows as `<name>_started` … `<name> took`.
    expect(log).toMatch(/olympe_\d+_webhook_call_started[\s\S]*olympe_\d+_webhook_call took/)
    expect(webhook.requests).toHaveLength(1)
    const [request] = webhook.requests
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`)
    expect(JSON.parse(request?.body ?? '')).toEqual({
      frontend: { image: FRONTEND },
      backends: { images: [BACKEND], deployRules: [{ source: '.*', target: '.*' }] },
      codeAsData: { image: CODEASDATA, updateMode: 'auto' },
      noDowntime: { promotionMode: 'manual' },
    })
  })

  test('takes the images from the dotenv report of an earlier job by default', async () => {
    const imagesJob = [
      'images:',
      '  stage: build',
      '  script:',
      `    - echo "OLYMPE_BUILD_IMAGES_FRONTEND_IMAGE=${FRONTEND}" > images.env`,
      `    - echo "OLYMPE_BUILD_IMAGES_BACKEND_IMAGE=${BACKEND}" >> images.env`,
      '  artifacts: { reports: { dotenv: images.env } }',
      '',
    ].join('\n')
    const target = await project({
      '.gitlab-ci.yml': ciFile(deployInclude({})) + imagesJob,
    })
    const run = await pipeline(target)

    expect(outcome(run)).toEqual({ code: 0, tail: '' })
    expect(webhook.requests).toHaveLength(1)
    const payload = JSON.parse(webhook.requests[0]?.body ?? '') as Record<string, unknown>
    expect(payload.frontend).toEqual({ image: FRONTEND })
    expect(payload.backends).toEqual({
      images: [BACKEND],
      deployRules: [{ source: '.*', target: '.*' }],
    })
    // No code-as-data image was handed over, so none is deployed.
    expect(payload.codeAsData).toEqual({ updateMode: 'manual' })
  })

  test('a merge request pipeline deploys nothing', async () => {
    const target = await project({
      '.gitlab-ci.yml': ciFile(deployInclude({ 'frontend-image': FRONTEND })),
    })
    const mergeRequest: PipelineOptions = {
      variables: { CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_IID: '7' },
      unset: ['CI_COMMIT_BRANCH'],
    }
    expect(await listJobs(target, mergeRequest)).toEqual([])
    const run = await pipeline(target, mergeRequest)

    expect(outcome(run)).toEqual({ code: 0, tail: '' })
    expect(run.jobLogs['olympe-deploy']).toBeUndefined()
    expect(webhook.requests).toHaveLength(0)
  })

  test('a branch other than the default one deploys nothing', async () => {
    const target = await project(
      { '.gitlab-ci.yml': ciFile(deployInclude({ 'frontend-image': FRONTEND })) },
      { branch: 'feature/login' },
    )
    const run = await pipeline(target)

    expect(outcome(run)).toEqual({ code: 0, tail: '' })
    expect(run.jobLogs['olympe-deploy']).toBeUndefined()
    expect(webhook.requests).toHaveLength(0)
  })

  test('a scheduled pipeline snapshots and deploys nothing; a push deploys and never snapshots', async () => {
    const target = await project({
      '.gitlab-ci.yml': ciFile(
        `${deployInclude({ 'frontend-image': FRONTEND })}  - component: ${component('snapshot')}\n`,
      ),
    })
    const scheduled = await listJobs(target, { variables: { CI_PIPELINE_SOURCE: 'schedule' } })
    expect(scheduled.map((job) => job.name)).toEqual(['olympe-snapshot'])
    const pushed = await listJobs(target, { variables: { CI_PIPELINE_SOURCE: 'push' } })
    expect(pushed.map((job) => job.name)).toEqual(['olympe-deploy'])
  })

  test('a failing webhook fails the job with the status, and still leaks nothing', async () => {
    const target = await project({
      '.gitlab-ci.yml': ciFile(deployInclude({ 'frontend-image': FRONTEND })),
    })
    const run = await pipeline(target, {
      variables: { WEBHOOK_URL: webhook.url.replace(HOOK_PATH, '/hooks/unknown') },
    })

    // Exit code 1, which the job's allow_failure does not list (see jobState).
    expect(jobState(run, 'olympe-deploy')).toBe('FAIL')
    expect(run.jobLogs['olympe-deploy']).toMatch(/404/)
  })

  test('watches the rollout: the environment links the app without its credentials, the job page links the app and the image', async () => {
    const basic = `Basic ${Buffer.from(`${APP_USER}:${APP_PASSWORD}`).toString('base64')}`
    const script = rollout('1.3.0', (request) =>
      serving((request.afterDeployMs ?? 0) >= 1500 ? '1.4.0' : '1.3.0'),
    )
    app.play((request) =>
      request.headers.authorization === basic ? script(request) : { status: 401 },
    )
    webhook.respondWith((request, index, res) => {
      if (request.path === HOOK_PATH) app.deployed()
      void (request.path === HOOK_PATH ? answer(200) : answer(404))(request, index, res)
    })
    // The protected app's address is a masked CI/CD variable, never an input.
    const target = await project({
      '.gitlab-ci.yml': ciFile(
        deployInclude({
          'frontend-image': FRONTEND,
          'app-url': '$PREVIEW_APP_URL',
          'expected-version': '1.4.0',
          'promotion-mode': 'auto',
          // Number inputs: GitLab wants numbers, not strings.
          'poll-seconds': 1,
          'wait-minutes': 0.5,
        }),
      ),
    })
    const variables = {
      PREVIEW_APP_URL: app.url.replace('//', `//${APP_USER}:${APP_PASSWORD}@`),
      // The project's own registry, where FRONTEND is: its page is the image's link.
      CI_REGISTRY: '127.0.0.1:5000',
    }
    const run = await pipeline(target, { variables })

    expect(outcome(run)).toEqual({ code: 0, tail: '' })
    expect(webhook.requests).toHaveLength(1)
    const log = run.jobLogs['olympe-deploy'] ?? ''
    expect(log).toContain(`The app at ${app.url} serves 1.4.0: live`)
    expect(log).toMatch(/olympe_\d+_rollout_started[\s\S]*olympe_\d+_rollout took/)
    // GitLab reads the environment's url from the job's own dotenv report when the job ends.
    const preview = await previewPipeline(target, { variables })
    expect((preview['olympe-deploy'] as { environment?: unknown }).environment).toEqual({
      name: 'production',
      url: '$OLYMPE_DEPLOY_URL',
    })
    const dotenv = Object.values(run.dotenvReports).join('')
    expectToSay(
      dotenv,
      `OLYMPE_DEPLOY_URL=${app.url}\n`,
      'OLYMPE_DEPLOY_ROLLOUT=live\n',
      'OLYMPE_DEPLOY_LIVE_VERSION=1.4.0\n',
    )
    // The annotations report, where the job wrote it.
    const report = await findFile(target.dir, 'olympe-deploy-annotations.json')
    expect(JSON.parse(report)).toEqual({
      'Olympe deploy': [
        {
          external_link: {
            label: `frontend image ${FRONTEND}`,
            url: 'https://gitlab.example.com/acme/shop/container_registry',
          },
        },
        { external_link: { label: 'App (live)', url: app.url } },
      ],
    })
    expect(app.requests.every((request) => request.headers.authorization === basic)).toBe(true)
  })

  describe('not live: the job passes with warnings, the pipeline goes on', () => {
    // A job of the next stage shows whether the pipeline went on.
    const NEXT_JOB = 'after-deploy:\n  stage: .post\n  script: [echo the pipeline went on]\n'
    const watched = (inputs: Record<string, string | number>): string =>
      ciFile(
        deployInclude({
          'frontend-image': FRONTEND,
          'app-url': app.url,
          'poll-seconds': 1,
          'wait-minutes': 0.1,
          ...inputs,
        }),
      ) + NEXT_JOB
    const deployed = (): void => {
      webhook.respondWith((request, index, res) => {
        if (request.path === HOOK_PATH) app.deployed()
        void (request.path === HOOK_PATH ? answer(200) : answer(404))(request, index, res)
      })
    }

    test.each<[string, Record<string, string>, string, string]>([
      [
        'awaiting-promotion',
        { 'promotion-mode': 'manual', 'expected-version': '1.4.0' },
        'Not live: awaiting promotion',
        "The app at APP did not serve this build within 'wait-minutes' (6 s), and the promotion mode is manual: the app still serves the build before this deployment (last seen: version 1.3.0, status HTTP 200). The new version may be waiting for someone to promote it on the platform, or the rollout may never have reached the app; without 'preview-url'",
      ],
      [
        'unverified',
        { 'promotion-mode': 'auto' },
        'Not verified: the expected version is unknown',
        "Not verified: the app at APP answers with a healthy status (last seen: version 1.3.0, status HTTP 200), but the version this deployment brings is unknown (the labels of '127.0.0.1:5000/acme/shop/frontend:main-1a2b3c4' could not be read: the registry was not asked ('verify-images: false'))",
      ],
    ])('%s: exit code 80, allowed', async (outcome, inputs, headline, message) => {
      app.play(rollout('1.3.0', () => serving('1.3.0')))
      deployed()
      const target = await project({ '.gitlab-ci.yml': watched(inputs) })
      const run = await pipeline(target)

      expect(jobState(run, 'olympe-deploy')).toBe('WARN')
      expect(jobState(run, 'after-deploy')).toBe('PASS')
      expect(run.code).toBe(0)
      const log = run.jobLogs['olympe-deploy'] ?? ''
      expectToSay(
        log,
        `Warning: ${message.replace('APP', app.url)}`,
        `${headline}: exit code 80, which the GitLab templates allow (allow_failure: exit_codes), so that the job passes with warnings.`,
      )
      expect(Object.values(run.dotenvReports).join('')).toContain(
        `OLYMPE_DEPLOY_ROLLOUT=${outcome}\n`,
      )
    })

    test('timed out: exit code 1, which is not allowed: the job fails', async () => {
      app.play(rollout('1.3.0', () => serving('1.3.0')))
      deployed()
      const target = await project({
        '.gitlab-ci.yml': watched({ 'promotion-mode': 'auto', 'expected-version': '1.4.0' }),
      })
      const run = await pipeline(target)

      expect(jobState(run, 'olympe-deploy')).toBe('FAIL')
      expect(run.jobLogs['olympe-deploy']).toContain(
        `Error: The app at ${app.url} did not serve 1.4.0 within 'wait-minutes' (6 s)`,
      )
      // The job's state, not gitlab-ci-local's exit code: see jobState.
    })
  })

  describe('the image check, with the GitLab registry login the template passes by default', () => {
    /** GitLab's predefined registry variables, as a job on the project's registry has them. */
    const gitlabRegistry = (): Record<string, string> => ({
      CI_REGISTRY: images.host,
      CI_REGISTRY_USER: images.user,
      CI_REGISTRY_PASSWORD: images.password,
    })

    test('a pushed image is found, with its digest, and deployed', async () => {
      const target = await project({
        '.gitlab-ci.yml': ciFile(
          deployInclude({ 'frontend-image': pushedFrontend, 'verify-images': 'auto' }),
        ),
      })
      const run = await pipeline(target, { variables: gitlabRegistry() })

      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      const log = run.jobLogs['olympe-deploy'] ?? ''
      expectToSay(
        log,
        `Registry '${images.host}': asked with the login from 'registry-username' and 'registry-password'.`,
        `frontend ${pushedFrontend}: found, ${pushedDigest}`,
      )
      expect(webhook.requests).toHaveLength(1)
    })

    test('a tag that was never pushed fails the job, and nothing is sent', async () => {
      const missing = `${images.host}/acme/shop/frontend:1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d`
      const target = await project({
        '.gitlab-ci.yml': ciFile(
          deployInclude({ 'frontend-image': missing, 'verify-images': 'auto' }),
        ),
      })
      const run = await pipeline(target, { variables: gitlabRegistry() })

      expect(jobState(run, 'olympe-deploy')).toBe('FAIL')
      expect(run.jobLogs['olympe-deploy']).toContain(
        `The frontend image '${missing}' does not exist in registry '${images.host}' (HTTP 404, MANIFEST_UNKNOWN)`,
      )
      expect(webhook.requests).toHaveLength(0)
    })
  })

  // Last on purpose: it reads what every run above printed.
  test('no job log or output holds a secret', () => {
    expect(runs.length).toBeGreaterThanOrEqual(6)
    const logs = logsOf(runs)
    // The deploy job's dotenv report is among them, with its payload.
    expect(
      Object.entries(logs).some(
        ([name, text]) => /dotenv report/.test(name) && text.includes('OLYMPE_DEPLOY_'),
      ),
    ).toBe(true)
    expectNoSecrets(logs, [
      TOKEN,
      webhook.url,
      HOOK_PATH,
      IMAGES_PASSWORD,
      Buffer.from(`gitlab-ci-token:${IMAGES_PASSWORD}`).toString('base64'),
      APP_PASSWORD,
      APP_USER,
    ])
  })
})

/** The one file of that name the jobs wrote in the project (node_modules left out). */
async function findFile(dir: string, name: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  const found = entries.filter(
    (entry) => entry.isFile() && entry.name === name && !entry.parentPath.includes('node_modules'),
  )
  if (found.length !== 1) throw new Error(`${found.length} files named ${name} in ${dir}`)
  const [file] = found
  return readFile(join(file?.parentPath ?? '', name), 'utf8')
}
