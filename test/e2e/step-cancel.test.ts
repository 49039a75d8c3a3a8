// Every action handles SIGINT (the GitHub runner's cancel) and SIGTERM (GitLab's): the step ends
// with a message that says it was cancelled, and exit status 1. Here deploy, which starts no
// process: it exits at once, while its request is unanswered. build-images (its builds and its
// Docker login) and snapshot (the toolkit) are tested in their hardening suites.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals'
import type { ChildProcess } from 'node:child_process'
import { Cleanup } from '../helpers/cleanup.js'
import { runAsGithub, runCli, type RunOptions } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { faults, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js'

const TOKEN = 'Cancel-Token-5e1f9a7c'
const cleanup = new Cleanup()
let webhook: WebhookServer

beforeAll(async () => {
  webhook = cleanup.track('webhook', await startWebhookServer(faults.neverAnswer()))
})
afterAll(() => cleanup.run())

// Old runs died of the signal: no message, no exit status.
describe('a cancelled deploy', () => {
  test.each<['github' | 'gitlab', NodeJS.Signals]>([
    ['github', 'SIGINT'],
    ['gitlab', 'SIGTERM'],
  ])('on %s, %s ends the step at once, saying it was cancelled', async (platform, signal) => {
    webhook.respondWith(faults.neverAnswer())
    let step: ChildProcess | undefined
    const options: RunOptions = {
      inputs: {
        'webhook-url': webhook.url,
        'webhook-token': TOKEN,
        'frontend-image': 'registry.example.com/shop/frontend:1.4.0',
        'verify-images': 'false',
      },
      env: platform === 'gitlab' ? { GITLAB_CI: 'true' } : {},
      timeoutMs: 60_000,
      onSpawn: (child) => (step = child),
    }
    const running =
      platform === 'github' ? runAsGithub('deploy', options) : runCli('deploy', options)
    for (let tries = 0; webhook.requests.length === 0 && tries < 1000; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20))
    expect(webhook.requests).toHaveLength(1)
    step?.kill(signal)
    const result = await running
    expect(result.code).toBe(1)
    const message = `The step was cancelled (${signal}): it stopped the processes it had started and removed the files it had made for itself, then exited without finishing. If the deployment request had been sent, the platform may still carry it out: check the app before deploying again.`
    if (platform === 'github')
      expect(result.stdout).toContain(`::error title=olympe deploy cancelled::${message}`)
    else expect(result.stderr).toContain(`Error: ${message}`)
    expectNoSecrets({ stdout: result.stdout, stderr: result.stderr, ...result.files }, [TOKEN])
  })
})
