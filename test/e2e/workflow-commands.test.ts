import { describe, expect, test } from '@jest/globals'
import { rm } from 'node:fs/promises'
import {
  DRAW_PASSWORD,
  PLATFORM_STATE,
  salesSnapshot,
  TOOLKIT_INPUTS,
} from '../helpers/fake-toolkit.js'
import { type GitServer } from '../helpers/git-server.js'
import { gitServerForSuite, makeWorkspace } from '../helpers/git-snapshot.js'
import { runAsGithub, runCli, type RunResult } from '../helpers/run-action.js'
import { HOSTILE_LINES, hostileCommands, runnerCommands } from '../helpers/runner-commands.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { answer, sequence, startWebhookServer } from '../helpers/webhook-server.js'

/**
 * Text from outside (a tool's output, a response body) must not issue workflow
 * commands. The captured output is read as the runner reads it (test/helpers/runner-commands.ts,
 * honouring ::stop-commands::): no command may come from the hostile text, and the text must
 * still be shown.
 */
const TOKEN = 'ghs_workflowCommands7f3a9c1e'

let server: GitServer
gitServerForSuite(TOKEN, (started) => (server = started))

async function snapshotWith(
  run: (workspace: string, inputs: Record<string, string>) => Promise<RunResult>,
): Promise<RunResult> {
  const repo = `acme/commands-${Date.now()}-${Math.floor(Math.random() * 1e6)}`
  await server.createRepo(repo)
  const workspace = await makeWorkspace([salesSnapshot(server.urlFor(repo))])
  try {
    return await run(workspace, TOOLKIT_INPUTS)
  } finally {
    await rm(workspace, { recursive: true, force: true })
  }
}

const TOOLKIT_ENV = { FAKE_PLATFORM_STATE: PLATFORM_STATE, FAKE_TOOLKIT_PRINT_COMMANDS: '1' }

describe('a toolkit that prints workflow commands', () => {
  test('on GitHub: its lines are shown, none is run, and the step succeeds', async () => {
    const run = await snapshotWith((cwd, inputs) =>
      runAsGithub('snapshot', { cwd, inputs, env: TOOLKIT_ENV, event: { name: 'schedule' } }),
    )
    expect(run.code).toBe(0)
    // The runner reads commands on stderr too.
    expect(hostileCommands(`${run.stdout}\n${run.stderr}`)).toEqual([])
    for (const line of ['::set-output name=a::hostile-output', '::error::hostile-on-stderr'])
      expect(run.stdout).toContain(line)
    // The runner still reads ours: the pauses end, and the step's groups are opened.
    expect(runnerCommands(run.stdout).map((c) => c.command)).toContain('group')
    expect(run.outputs).not.toHaveProperty('a')
    expect(run.outputs.changed).toBe('true')
    expectNoSecrets({ stdout: run.stdout, stderr: run.stderr, ...run.files }, [
      TOKEN,
      DRAW_PASSWORD,
    ])
  })

  test('on the command line inside a GitHub job: the same', async () => {
    const run = await snapshotWith((cwd, inputs) =>
      runCli('snapshot', { cwd, inputs, env: { ...TOOLKIT_ENV, GITHUB_ACTIONS: 'true' } }),
    )
    expect(run.code).toBe(0)
    expect(hostileCommands(run.stdout)).toEqual([])
    expect(hostileCommands(run.stderr)).toEqual([])
    expect(run.stdout).toContain('::warning title=INJECTED::hostile-warning')
    expect(run.stdout).toContain('::error::hostile-on-stderr')
  })
})

describe('a webhook that answers with workflow commands', () => {
  const body = `rejected\n${HOSTILE_LINES.join('\n')}\n`
  test.each([
    ['a refusal', answer(400, body, { 'Content-Type': 'text/plain' })],
    [
      'a retry, then a refusal',
      sequence(answer(503, body, { 'Content-Type': 'text/plain' }), answer(422, body)),
    ],
    ['a 200 that is not a success', answer(200, { message: `nope\n${HOSTILE_LINES.join('\n')}` })],
  ])('%s: the body is shown, none of its lines is run', async (_name, responder) => {
    const webhook = await startWebhookServer(responder)
    try {
      const run = await runAsGithub('deploy', {
        inputs: {
          'webhook-url': webhook.url,
          'webhook-token': 'wh-token-commands-42',
          'frontend-image': '127.0.0.1:5000/shop/frontend:1',
          'allow-insecure-http': 'true',
          'timeout-seconds': '30',
        },
        env: { RUNNER_DEBUG: '1' },
      })
      expect(run.code).toBe(1)
      expect(webhook.requests.length).toBeGreaterThan(0)
      expect(hostileCommands(`${run.stdout}\n${run.stderr}`)).toEqual([])
      expect(run.stdout).toContain('hostile-output')
    } finally {
      await webhook.stop()
    }
  })
})
