import { beforeAll, describe, expect, test } from '@jest/globals'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { useCleanup } from '../helpers/suite.js'
import {
  DRAW_PASSWORD,
  DRAW_USERNAME,
  IDS,
  PLATFORM_STATE,
  TOOLKIT_COMMAND,
} from '../helpers/fake-toolkit.js'
import { readEnvFile, runLocalAction, type LocalActionRun } from '../helpers/local-action.js'
import { CHECKED, fixture, ROOT } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { answer, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

// GitHub's own debugging tool replaces @actions/core and @actions/github: it sees our outputs
// and our masking only because they go through those libraries.
const TOKEN = 'local-action-token-5f4e3d2c'
const HOOK_PATH = '/hooks/local-action-c0ffee'
const FRONTEND = 'registry.example.com/shop/frontend:main-1a2b3c4'

let webhook: WebhookServer
let workspace: string
const cleanup = useCleanup()
beforeAll(async () => {
  webhook = cleanup.track('webhook', await startWebhookServer(answer(200), HOOK_PATH))
  workspace = await cleanup.tempDir('olympe-local-action-ws-')
})

const visible = (run: LocalActionRun): Record<string, string> => ({
  stdout: run.stdout,
  stderr: run.stderr,
})

describe('the actions under @github/local-action', () => {
  const deployEnv = (): Record<string, string> => ({
    'INPUT_WEBHOOK-URL': webhook.url,
    'INPUT_WEBHOOK-TOKEN': TOKEN,
    'INPUT_FRONTEND-IMAGE': FRONTEND,
    // No registry holds FRONTEND: the image check is tested in deploy-verify-images.test.ts.
    'INPUT_VERIFY-IMAGES': 'false',
    GITHUB_WORKSPACE: workspace,
  })

  test('deploy: the call succeeds and its outputs are reported', async () => {
    webhook.respondWith(answer(200, { message: 'success' }))
    const run = await runLocalAction('deploy', deployEnv())
    expect(run.stdout).not.toContain('No outputs were set!')
    expect(run.outputs).toMatchObject({ status: '200', message: 'success' })
    expect(JSON.parse(run.outputs.payload ?? '')).toMatchObject({ frontend: { image: FRONTEND } })
    expect(webhook.requests).toHaveLength(1)
    expectNoSecrets(visible(run), [TOKEN, webhook.url, HOOK_PATH])
  }, 200_000)

  test('deploy: an HTTP 500 fails the step, with the status reported', async () => {
    webhook.respondWith(answer(500, { message: 'database unavailable' }))
    const run = await runLocalAction('deploy', deployEnv())
    expectToSay(run.stdout, 'The webhook answered HTTP 500', 'database unavailable')
    expect(run.outputs.status).toBe('500')
    expect(run.code).toBe(1)
    expectNoSecrets(visible(run), [TOKEN, webhook.url, HOOK_PATH])
  }, 200_000)

  test('snapshot: a dry run exports and reports, and never shows the password', async () => {
    const project = join(workspace, 'snapshot-project')
    await mkdir(join(project, 'res'), { recursive: true })
    const config = [
      { snapshooter: { name: 'sales', rootTags: [IDS.sales], outputDir: 'snapshot/sales' } },
    ]
    await writeFile(join(project, 'res/snapshot-config.json'), JSON.stringify(config))
    const run = await runLocalAction('snapshot', {
      'INPUT_TOOLKIT-COMMAND': TOOLKIT_COMMAND,
      'INPUT_DRAW-USERNAME': DRAW_USERNAME,
      'INPUT_DRAW-PASSWORD': DRAW_PASSWORD,
      'INPUT_DRY-RUN': 'true',
      GITHUB_WORKSPACE: project,
      FAKE_PLATFORM_STATE: PLATFORM_STATE,
      FAKE_TOOLKIT_ECHO_SECRETS: '1',
    })
    expect(run.outputs).toEqual({ changed: 'false', commits: '[]' })
    expect(run.stdout).toContain("Export 'sales'")
    expectNoSecrets(visible(run), [DRAW_PASSWORD])
  }, 200_000)

  test('build-images: a feature branch skips, with its outputs reported', async () => {
    const run = await runLocalAction('build-images', {
      'INPUT_REGISTRY-USERNAME': 'ci-bot',
      'INPUT_REGISTRY-PASSWORD': 'registry-password-9a8b7c',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_REF: 'refs/heads/feature/login',
      GITHUB_REPOSITORY: 'acme/shop',
      GITHUB_SHA: '8f3e2a41c9d07b5e6a1f2c3d4e5f60718293a4b5',
      GITHUB_EVENT_PATH: fixture('ci-env', 'github_push_master.json'),
      GITHUB_WORKSPACE: workspace,
    })
    expect(run.outputs).toMatchObject({ skipped: 'true', 'frontend-image': '', images: '[]' })
    expect(run.stdout).toContain(
      "Skipped, nothing is built: branch 'feature/login' is not one of the branches to build ('master')",
    )
    expectNoSecrets(visible(run), ['registry-password-9a8b7c'])
  }, 200_000)
})

describe('the example env files of examples/local-action/, as CONTRIBUTING.md runs them', () => {
  test.each([
    ['deploy', 'Dry run: this request would be sent, and nothing was.'],
    ['build-images', CHECKED],
    ['snapshot', CHECKED],
  ] as const)(
    '%s: runs clean',
    async (action, said) => {
      const env = await readEnvFile(join(ROOT, 'examples/local-action', `${action}.env`))
      const run = await runLocalAction(action, env)
      expect(run.code).toBe(0)
      expect(run.stdout).toContain(said)
      expect(run.stdout).not.toMatch(/::(error|warning)/)
      expectNoSecrets(visible(run), [env['INPUT_WEBHOOK-TOKEN'] ?? 'demo-token-123456'])
    },
    200_000,
  )
})
