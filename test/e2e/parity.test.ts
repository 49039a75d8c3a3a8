// Parity between the two CIs: each scenario's inputs go once through the GitHub path (the
// bundle run as the runner runs it, action.yml defaults applied) and once through the GitLab
// path (gitlab/deploy.yml included with the same inputs, run by gitlab-ci-local, the package
// fetched by version). The webhook must receive byte-identical payloads.
import type { InputSpec } from '../../src/core/definition.js'
import { deployDefinition } from '../../src/core/deploy/definition.js'
import { beforeAll, describe, expect, test } from '@jest/globals'
import { useCleanup, useServers } from '../helpers/suite.js'
import {
  component,
  createGitlabProject,
  logsOf,
  outcome,
  runPipeline,
  type PipelineRun,
} from '../helpers/gitlab-ci-local.js'
import { runAsGithub } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { startProjectRegistry } from '../helpers/verdaccio.js'
import { startWebhookServer } from '../helpers/webhook-server.js'

const TOKEN = 'parity-token-0e9d8c7b'
const HOOK_PATH = '/hooks/1a2b3c4d5e6f-parity'
const REGISTRY = 'registry.example.com/acme/shop'
const BASE_PAYLOAD = JSON.stringify({
  frontend: {},
  backends: { images: [], deployRules: [{ source: 'api', target: 'api-.*' }] },
  codeAsData: { updateMode: 'auto' },
  noDowntime: { promotionMode: 'auto' },
  skipUpdateVersions: true,
})

/** Inputs as a user writes them in `with:` (GitHub) and in `inputs:` (GitLab). */
/** Each scenario: its name, the inputs, and a piece of JSON its payload must hold (so a path
 * that ignored an input could not pass by agreeing with the other). */
const SCENARIOS: [string, Record<string, string>, string][] = [
  [
    'frontend and one backend',
    {
      'frontend-image': `${REGISTRY}/frontend:main-1a2b3c4`,
      'backend-images': `${REGISTRY}/backend:main-1a2b3c4`,
    },
    '"images":["registry.example.com/acme/shop/backend:main-1a2b3c4"]',
  ],
  [
    'backends one per line, YAML deploy rules with a look-ahead, code as data applied automatically',
    {
      'frontend-image': `${REGISTRY}/frontend:main-2b3c4d5`,
      'backend-images': `${REGISTRY}/api:main-2b3c4d5\n${REGISTRY}/worker:main-2b3c4d5`,
      'codeasdata-image': `${REGISTRY}/codeasdata:main-2b3c4d5`,
      'deploy-rules': '- source: api\n  target: ^(?!worker).*\n- source: worker\n  target: worker',
      'codeasdata-update-mode': 'auto',
    },
    '"target":"^(?!worker).*"',
  ],
  [
    'comma-separated backends, JSON rules, promotion auto, force sync, skip updates',
    {
      'frontend-image': `${REGISTRY}/frontend@sha256:${'a'.repeat(64)}`,
      'backend-images': `${REGISTRY}/api:1.4.0, ${REGISTRY}/jobs:1.4.0`,
      'deploy-rules': '[{"source": ".*", "target": ".*"}]',
      'promotion-mode': 'auto',
      'force-sync': 'true',
      'skip-update-versions': 'true',
    },
    '"extraArgs":["--force-sync"]',
  ],
  [
    'a base payload file, completed by the inputs',
    {
      'payload-file': 'deploy/base-payload.json',
      'frontend-image': `${REGISTRY}/frontend:main-3c4d5e6`,
      'backend-images': `${REGISTRY}/api:main-3c4d5e6`,
    },
    '"target":"api-.*"',
  ],
  [
    'frontend and code as data only, update mode given explicitly',
    {
      'frontend-image': `${REGISTRY}/frontend:main-4d5e6f7`,
      'codeasdata-image': `${REGISTRY}/codeasdata:main-4d5e6f7`,
      'codeasdata-update-mode': 'manual',
    },
    '"codeAsData":{"image":"registry.example.com/acme/shop/codeasdata:main-4d5e6f7"',
  ],
]

let npmCache: string
const runs: PipelineRun[] = []
const githubLogs: Record<string, string> = {}
const cleanup = useCleanup()
const { registry, webhook } = useServers(
  { registry: startProjectRegistry, webhook: () => startWebhookServer(undefined, HOOK_PATH) },
  cleanup,
  60_000,
)
beforeAll(async () => {
  npmCache = await cleanup.tempDir('olympe-npm-cache-')
})

/** GitLab inputs are typed: `force-sync: true` is a YAML boolean there, a string on GitHub. */
function gitlabValue(name: string, value: string): string {
  const type = (deployDefinition.inputs as Record<string, InputSpec | undefined>)[name]?.type
  return type === 'boolean' || type === 'number' ? value : JSON.stringify(value)
}

function gitlabCi(inputs: Record<string, string>): string {
  const lines = Object.entries({ 'npm-registry': registry.url, ...inputs }).map(
    ([name, value]) => `      ${name}: ${gitlabValue(name, value)}`,
  )
  return ['include:', `  - component: ${component('deploy')}`, '    inputs:', ...lines, ''].join(
    '\n',
  )
}

/** One request's body and the headers that matter, for an exact comparison. */
function received(): { body: string; authorization?: string; contentType?: string } {
  expect(webhook.requests).toHaveLength(1)
  const request = webhook.requests[0]
  webhook.requests.length = 0
  return {
    body: request?.body ?? '',
    authorization: request?.headers.authorization,
    contentType: request?.headers['content-type'],
  }
}

describe('the same deploy scenarios through GitHub and GitLab', () => {
  test.each(SCENARIOS)('%s: byte-identical webhook payloads', async (name, scenario, mustHold) => {
    // The payload is the point, and registry.example.com holds no image: no image check.
    const inputs = { ...scenario, 'verify-images': 'false' }
    const project = cleanup.track(
      `GitLab project for ${name}`,
      await createGitlabProject({
        '.gitlab-ci.yml': gitlabCi(inputs),
        'deploy/base-payload.json': BASE_PAYLOAD,
      }),
    )
    webhook.requests.length = 0

    const github = await runAsGithub('deploy', {
      cwd: project.dir,
      inputs: { 'webhook-url': webhook.url, 'webhook-token': TOKEN, ...inputs },
    })
    githubLogs[`${name} (GitHub)`] = github.stdout + github.stderr
    expect(github.code).toBe(0)
    const viaGithub = received()

    const gitlab = await runPipeline(project, {
      variables: { WEBHOOK_URL: webhook.url, WEBHOOK_TOKEN: TOKEN },
      env: { npm_config_cache: npmCache },
    })
    runs.push(gitlab)
    expect(outcome(gitlab)).toEqual({ code: 0, tail: '' })
    const viaGitlab = received()

    expect(viaGitlab).toEqual(viaGithub)
    expect(viaGithub.body).toContain(mustHold)
    expect(viaGithub.authorization).toBe(`Bearer ${TOKEN}`)
  })

  test('neither path printed a secret', () => {
    expect(runs).toHaveLength(SCENARIOS.length)
    expectNoSecrets({ ...githubLogs, ...logsOf(runs) }, [TOKEN, webhook.url, HOOK_PATH])
  })
})
