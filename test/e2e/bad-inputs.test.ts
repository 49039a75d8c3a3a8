import { afterAll, beforeAll, describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parse } from 'yaml'
import { fixture, runAsGithub, type ActionId } from '../helpers/run-action.js'
import { answer, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js'

/**
 * The malformed-input corpus (test/fixtures/bad-inputs/<action>.yml). Every case runs the built
 * bundle as the runner runs it and must exit non-zero before any side effect: no webhook request,
 * and no call to docker, git or the toolkit (stand-ins on PATH record any call), with a message
 * that names the input or the JSON path.
 */
interface BadInput {
  name: string
  inputs: Record<string, string>
  files?: Record<string, string>
  event?: { name: string; ref?: string }
  expect: string
}

const ACTIONS: ActionId[] = ['deploy', 'build-images', 'snapshot']
const SHIM = fixture('bad-inputs', 'shim')
const results = { cases: 0, passed: 0 }

let webhook: WebhookServer
let workRoot = ''
beforeAll(async () => {
  webhook = await startWebhookServer(answer(200))
  workRoot = await mkdtemp(join(tmpdir(), 'olympe-bad-'))
})
afterAll(async () => {
  await webhook.stop()
  await rm(workRoot, { recursive: true, force: true })
  // The suite's own tally, for the CI log.
  console.log(`malformed inputs: ${results.cases} cases, ${results.passed} passed`)
})

/** Valid inputs each case starts from, so that the case's own input is the only thing wrong. */
function baseInputs(action: ActionId): Record<string, string> {
  if (action === 'deploy') {
    return {
      'webhook-url': webhook.url,
      'webhook-token': 'corpus-token-1234',
      'frontend-image': 'reg.example.com/shop/frontend:1',
    }
  }
  if (action === 'build-images')
    return {
      registry: '127.0.0.1:5999',
      'registry-username': 'ci',
      'registry-password': 'corpus-pass-1234',
    }
  return {
    config: 'res/snapshot-config.json',
    'toolkit-command': 'olympe snapshot',
    'draw-password': 'corpus-draw-1234',
  }
}

const VALID_SNAPSHOT_CONFIG = JSON.stringify([
  {
    snapshooter: {
      name: 'projects',
      rootTags: ['01850a59bb68c324907a'],
      outputDir: 'snapshot/projects',
    },
  },
])

async function workspaceFor(
  action: ActionId,
  index: number,
  files: Record<string, string> = {},
): Promise<string> {
  const dir = join(workRoot, `${action}-${index}`)
  await mkdir(dir, { recursive: true })
  const defaults: Record<string, string> =
    action === 'snapshot' ? { 'res/snapshot-config.json': VALID_SNAPSHOT_CONFIG } : {}
  for (const [path, content] of Object.entries({ ...defaults, ...files })) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), content)
  }
  return dir
}

for (const action of ACTIONS) {
  const corpus = fixture('bad-inputs', `${action}.yml`)
  const cases = existsSync(corpus) ? (parse(await readFile(corpus, 'utf8')) as BadInput[]) : []

  describe(`malformed ${action} inputs`, () => {
    test.each(cases.map((c, index) => ({ ...c, index })))('$name', async (badInput) => {
      results.cases++
      webhook.requests.length = 0
      const cwd = await workspaceFor(action, badInput.index, badInput.files)
      const shimLog = join(cwd, 'side-effects.log')
      const run = await runAsGithub(action, {
        cwd,
        inputs: { ...baseInputs(action), ...badInput.inputs },
        event: badInput.event ?? { name: 'push', ref: 'refs/heads/main' },
        env: { PATH: `${SHIM}:${process.env.PATH ?? ''}`, SHIM_LOG: shimLog },
      })
      expect(run.code).not.toBe(0)
      expect(run.stdout).toContain('::error title=')
      expect(run.stdout).toContain(badInput.expect)
      expect(webhook.requests).toHaveLength(0)
      expect(existsSync(shimLog) ? await readFile(shimLog, 'utf8') : '').toBe('')
      results.passed++
    })
  })
}

test('the corpus holds at least 100 cases', async () => {
  let total = 0
  for (const action of ACTIONS) {
    const corpus = fixture('bad-inputs', `${action}.yml`)
    if (existsSync(corpus)) total += (parse(await readFile(corpus, 'utf8')) as unknown[]).length
  }
  expect(total).toBeGreaterThanOrEqual(100)
})
