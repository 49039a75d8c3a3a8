// docs/gitlab-on-premise.md's first pipeline, run as the guide sets it up: gitlab-ci-local runs
// gitlab/pipeline.yml on the official template, as a runner's unprivileged user that cannot reach
// any Docker socket, with `olympe-deploy` on its PATH as the job image has it; the images built
// with Buildah (`builder: auto`) from Docker Hub's bases in a mirror (`registry-mirrors`); every
// npm package from one registry the npmrc names; the images pushed to the project's registry with
// GitLab's job token; the deploy to a loopback webhook, and the app watched until it is `live`.
// Each line the guide quotes under "What the first pipeline prints" must be in its job's log.
import { beforeAll, expect, test } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { chmod, cp, mkdir, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { pushImage, startRegistry } from '../helpers/docker-env.js'
import {
  ciFile,
  component,
  createGitlabProject,
  jobState,
  removeFileVariables,
  type GitlabProject,
} from '../helpers/gitlab-ci-local.js'
import { listenOnLoopback } from '../helpers/loopback.js'
import { buildahStore, giveTo, rootlessUser, type RootlessUser } from '../helpers/rootless.js'
import { ROOT, SYSTEM_PATH } from '../helpers/run-action.js'
import { capture, type Captured } from '../helpers/run-process.js'
import { expectNoSecrets, GITLAB_LOG } from '../helpers/secrets.js'
import { useCleanup, useServers } from '../helpers/suite.js'
import { ensureTemplateBaseImages, TEMPLATE_BASE_IMAGES } from '../helpers/template-base-images.js'
import { startTemplateRegistry, TEMPLATE_FIXTURE } from '../helpers/template-project.js'
import { answer, startWebhookServer } from '../helpers/webhook-server.js'

const WEBHOOK_TOKEN = 'onprem-webhook-token-4d2b9e'
const HOOK_PATH = '/hooks/7c1e3a5b9d0f-onprem'
const JOB_TOKEN = 'onprem-job-token-7f3a9c1e5b'
/** The template's version (its package.json), and the one the app serves before the call. */
const VERSIONS = { built: '2.15.0', before: '2.14.0' }
// On two shared cores the whole pipeline took 11 s; gitlab-ci-local is stopped at PIPELINE_MS.
const PIPELINE_MS = 300_000
const JSON_TYPE = { 'Content-Type': 'application/json' }
/** The files of the release the app serves before the call, by path. */
const PREVIOUS_RELEASE: Record<string, string> = {
  '/version.json': JSON.stringify({ version: VERSIONS.before }),
  '/index.html': `<html><script src="main.js?v=${VERSIONS.before}"></script></html>`,
  '/main.js': 'console.log("the previous release")',
}

/** A file's text, or undefined when there is none. */
function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** The guide's quoted lines, by job: the `text` block after each **`<job>`** of its section. */
function quotedLines(): Record<string, string[]> {
  const text = readFileSync(join(ROOT, 'docs/gitlab-on-premise.md'), 'utf8')
  const start = text.indexOf('\n## 6. What the first pipeline prints\n')
  const section = text.slice(start, text.indexOf('\n## ', start + 1))
  const quoted: Record<string, string[]> = {}
  for (const [, job = '', block = ''] of section.matchAll(
    /\*\*`([\w-]+)`\*\*\n\n```text\n([\s\S]*?)```/g,
  ))
    quoted[job] = block.split('\n').filter((line) => line !== '')
  return quoted
}

/**
 * A quoted line as a pattern of this run: the guide's example addresses stand for this run's,
 * its commit for any, `sha256:…` for any digest, and `…` for anything else.
 */
function linePattern(line: string, run: { registry: string; app: string }): RegExp {
  const escaped = line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const pattern = escaped
    .replaceAll('registry\\.internal', run.registry.replace(/[.]/g, '\\.'))
    .replaceAll('https://shop\\.example\\.com', run.app.replace(/[.]/g, '\\.'))
    .replaceAll('1a2b3c4', '[0-9a-f]{7}')
    .replaceAll('sha256:…', 'sha256:[0-9a-f]{64}')
    .replaceAll('…', '.+')
  return new RegExp(`^${pattern}$`, 'm')
}

const cleanup = useCleanup(120_000)
const servers = useServers(
  {
    npm: startTemplateRegistry,
    // The project's container registry, with GitLab's job token as the login.
    registry: () => startRegistry({ user: 'gitlab-ci-token', password: JOB_TOKEN }),
    // The instance's copy of Docker Hub, read anonymously.
    mirror: () => startRegistry({ user: 'unused', password: 'unused-password', anonymous: true }),
    webhook: () => startWebhookServer(undefined, HOOK_PATH),
  },
  cleanup,
  120_000,
)
const { npm, registry, mirror, webhook } = servers
let user: RootlessUser
let app: { url: string; deployed: boolean }
let project: GitlabProject
let run: Captured
const jobLogs: Record<string, string> = {}

beforeAll(async () => {
  user = await rootlessUser(cleanup)
  await ensureTemplateBaseImages()
  for (const base of Object.values(TEMPLATE_BASE_IMAGES))
    await pushImage(base, `${mirror.host}/dockerhub/${base}`)
  // The app as Olympe's nginx serves it: the previous release until the webhook accepts the
  // deployment, then this build's files, as the build job left them in dist/web.
  app = { url: '', deployed: false }
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').replace(/\?.*$/, '')
    if (path === '/OlympeServer/status')
      return response.writeHead(200, JSON_TYPE).end('{"status":"running"}')
    const file = app.deployed
      ? readIfThere(join(project.dir, '.gitlab-ci-local/artifacts/olympe-build/dist/web', path))
      : PREVIOUS_RELEASE[path]
    if (file === undefined) return response.writeHead(404).end('not found')
    response.writeHead(200, { 'Cache-Control': 'no-cache' }).end(file)
  })
  const listening = await listenOnLoopback(server)
  cleanup.add('app', () => listening.stop())
  app.url = `http://127.0.0.1:${listening.port}`
  webhook.respondWith((request, index, response) => {
    app.deployed = true
    return answer(200)(request, index, response)
  })

  // What the runner's job image gives the user: olympe-deploy on the PATH; and gitlab-ci-local.
  const bin = join(user.runtime.root, 'bin-path')
  await mkdir(bin)
  const cli = join(user.runtime.root, 'bin/olympe-deploy.js')
  await writeFile(
    join(bin, 'olympe-deploy'),
    `#!/bin/sh\nexec ${user.runtime.node} ${cli} "$@"\n`,
    {
      mode: 0o755,
    },
  )
  const gitlabCiLocal = join(user.runtime.root, 'gitlab-ci-local')
  await cp(join(ROOT, 'node_modules/gitlab-ci-local'), gitlabCiLocal, { recursive: true })

  // Steps 2 to 4 of the guide: the include and its inputs, the variables, the npmrc.
  const ci = ciFile(
    ['build', 'deploy'],
    [
      {
        component: component('pipeline'),
        inputs: {
          'registry-mirrors': `"docker.io=${mirror.host}/dockerhub"`,
          npmrc: '$OLYMPE_NPMRC',
          'app-url': '$APP_URL',
          // The rollout's first polls come sooner than by default; the lines are the same.
          'poll-seconds': '2',
        },
      },
    ],
  )
  project = cleanup.track(
    'template project',
    await createGitlabProject(
      { '.gitlab-ci.yml': ci },
      { defaultBranch: 'master', copyFrom: { '.': TEMPLATE_FIXTURE } },
    ),
  )
  const home = await cleanup.tempDir('olympe-onprem-home-')
  const store = await buildahStore(user, join(home, 'buildah'))
  const host = new URL(npm.url).host
  const npmrc = `@olympeio:registry=${npm.url}\n//${host}/:_authToken=${npm.token}\nregistry=${npm.url}\n`
  const variablesFile = join(home, 'variables.yml')
  await writeFile(
    variablesFile,
    stringify({ OLYMPE_NPMRC: { type: 'file', values: { '*': npmrc } } }),
  )
  // gitlab-ci-local writes the File variable to /tmp and leaves it: it holds the npm token.
  cleanup.add('npmrc File variable', () => removeFileVariables(npm.token))
  await chmod(home, 0o755)
  await giveTo(user, project.dir, home, project.npmCache)
  const variables: Record<string, string> = {
    GITLAB_CI: 'true',
    // GitLab protects a project's default branch unless told otherwise; gitlab-ci-local says 'false'.
    CI_COMMIT_REF_PROTECTED: 'true',
    CI_PROJECT_DIR: project.dir,
    CI_REGISTRY: registry.host,
    CI_REGISTRY_USER: registry.user,
    CI_REGISTRY_PASSWORD: registry.password,
    WEBHOOK_URL: webhook.url,
    WEBHOOK_TOKEN,
    APP_URL: app.url,
  }
  const args = [
    join(gitlabCiLocal, 'dist/index.js'),
    '--force-shell-executor',
    '--no-color',
    '--max-job-name-padding',
    '0',
    '--variables-file',
    variablesFile,
    ...Object.entries(variables).flatMap(([name, value]) => ['--variable', `${name}=${value}`]),
    '--ignore-predefined-vars',
    Object.keys(variables).join(','),
  ]
  run = await capture(user.runtime.node, args, {
    uid: user.uid,
    gid: user.gid,
    cwd: project.dir,
    timeoutMs: PIPELINE_MS,
    env: {
      PATH: `${bin}:${SYSTEM_PATH}`,
      HOME: home,
      LANG: 'C.UTF-8',
      npm_config_cache: project.npmCache,
      ...store,
    },
  })
  for (const job of ['olympe-check', 'olympe-build', 'olympe-images', 'olympe-deploy'])
    jobLogs[job] = readFileSync(join(project.dir, '.gitlab-ci-local/output', `${job}.log`), 'utf8')
}, PIPELINE_MS + 180_000)

test('the pipeline passes, as a user without Docker, and deploys once to a live app', () => {
  expect({ code: run.code, tail: run.code === 0 ? '' : run.stdout.slice(-3000) }).toEqual({
    code: 0,
    tail: '',
  })
  for (const job of ['olympe-check', 'olympe-build', 'olympe-images', 'olympe-deploy'])
    expect({
      job,
      state: jobState({ ...run, output: run.stdout, jobLogs, dotenvReports: {} }, job),
    }).toEqual({
      job,
      state: 'PASS',
    })
  expect(webhook.requests).toHaveLength(1)
  expect(webhook.requests[0]?.headers.authorization).toBe(`Bearer ${WEBHOOK_TOKEN}`)
})

test("each line the guide quotes is in its job's log", () => {
  const quoted = quotedLines()
  expect(Object.keys(quoted)).toEqual([
    'olympe-check',
    'olympe-build',
    'olympe-images',
    'olympe-deploy',
  ])
  for (const [job, lines] of Object.entries(quoted))
    for (const line of lines)
      expect({
        job,
        line,
        found: linePattern(line, { registry: registry.host, app: app.url }).test(
          jobLogs[job] ?? '',
        ),
      }).toEqual({
        job,
        line,
        found: true,
      })
})

test('no log holds the job token, the npm token or the webhook secrets', () => {
  const logs: Record<string, string> = { [`${GITLAB_LOG} output`]: run.stdout + run.stderr }
  for (const [job, log] of Object.entries(jobLogs)) logs[`${GITLAB_LOG} ${job}.log`] = log
  expectNoSecrets(logs, [JOB_TOKEN, WEBHOOK_TOKEN, webhook.url, HOOK_PATH, ...npm.secrets])
})
