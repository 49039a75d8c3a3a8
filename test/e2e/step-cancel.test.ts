// Every action handles SIGINT (the GitHub runner's cancel) and SIGTERM (GitLab's): the step ends
// with a message that says it was cancelled, and exit status 1. Here deploy, which starts no
// process and exits at once, saying how far the deployment got: not sent, sent with no answer
// yet, or accepted with its rollout watch cancelled; and the snapshot cancelled during its push.
// build-images (its builds and its Docker login) and snapshot's toolkit are tested in their
// hardening suites.
import { afterAll, describe, expect, test } from '@jest/globals'
import type { ChildProcess } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { deploys, rollout, startAppServer, version } from '../helpers/app-server.js'
import { useServers } from '../helpers/suite.js'
import { startCuttingProxy } from '../helpers/cutting-proxy.js'
import {
  DRAW_PASSWORD,
  PLATFORM_STATE,
  salesSnapshot,
  TOOLKIT_INPUTS,
} from '../helpers/fake-toolkit.js'
import { startGitServer } from '../helpers/git-server.js'
import { makeWorkspace, scratch } from '../helpers/git-snapshot.js'
import { runAsGithub, runCli, type RunOptions, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { until } from '../helpers/waiting.js'
import { faults, startWebhookServer } from '../helpers/webhook-server.js'

const TOKEN = 'Cancel-Token-5e1f9a7c'
const { webhook, registry, app } = useServers({
  webhook: () => startWebhookServer(faults.neverAnswer()),
  /** A registry that never answers: the image check waits on it. */
  registry: () => startWebhookServer(faults.neverAnswer(), '/v2/'),
  app: startAppServer,
})

const STOPPED =
  'it stopped the processes it had started and removed the files it had made for itself, then exited without finishing.'

/** Deploy on `platform`, cancelled with its signal once `ready` holds. */
async function cancelledDeploy(
  platform: 'github' | 'gitlab',
  inputs: Record<string, string>,
  ready: () => boolean,
): Promise<RunResult & { signal: NodeJS.Signals }> {
  const signal = platform === 'github' ? 'SIGINT' : 'SIGTERM'
  let step: ChildProcess | undefined
  const options: RunOptions = {
    inputs: {
      'webhook-url': webhook.url,
      'webhook-token': TOKEN,
      'frontend-image': 'registry.example.com/shop/frontend:1.4.0',
      'verify-images': 'false',
      ...inputs,
    },
    env: platform === 'gitlab' ? { GITLAB_CI: 'true' } : {},
    timeoutMs: 60_000,
    onSpawn: (child) => (step = child),
  }
  const running = platform === 'github' ? runAsGithub('deploy', options) : runCli('deploy', options)
  await until(ready)
  step?.kill(signal)
  return { ...(await running), signal }
}

function expectCancelled(platform: 'github' | 'gitlab', run: RunResult, said: string): void {
  expect(run.code).toBe(1)
  if (platform === 'github')
    expect(run.stdout).toContain(`::error title=olympe deploy cancelled::${said}`)
  else expect(run.stderr).toContain(`Error: ${said}`)
  expectNoSecrets({ stdout: run.stdout, stderr: run.stderr, ...run.files }, [TOKEN])
}

const PLATFORMS = ['github', 'gitlab'] as const

describe('a cancelled deploy says how far it got, and writes its outputs', () => {
  test.each(PLATFORMS)('on %s, during the image check: not sent', async (platform) => {
    registry.respondWith(faults.neverAnswer())
    webhook.respondWith(faults.neverAnswer())
    const run = await cancelledDeploy(
      platform,
      {
        'frontend-image': `127.0.0.1:${registry.port}/shop/frontend:1.4.0`,
        'verify-images': 'true',
      },
      () => registry.requests.length > 0,
    )
    expectCancelled(
      platform,
      run,
      `The step was cancelled (${run.signal}): ${STOPPED} The deployment request was not sent: nothing was deployed.`,
    )
    expect(webhook.requests).toHaveLength(0)
    expect(run.outputs).toMatchObject({ status: '', rollout: 'not-watched' })
  })

  test.each(PLATFORMS)(
    'on %s, during the POST: sent, no answer yet, the platform may carry it out',
    async (platform) => {
      webhook.respondWith(faults.neverAnswer())
      const run = await cancelledDeploy(platform, {}, () => webhook.requests.length > 0)
      expectCancelled(
        platform,
        run,
        `The step was cancelled (${run.signal}): ${STOPPED} The deployment request was sent and no answer had come: the platform may have received it and may carry it out. Check the platform's deployment history (or the app) before running this step again, so that it is not deployed twice.`,
      )
      expect(webhook.requests).toHaveLength(1)
      expect(run.outputs).toMatchObject({ status: '', rollout: 'not-watched' })
    },
  )

  test.each(PLATFORMS)(
    'on %s, during the rollout watch: accepted, the watch cancelled',
    async (platform) => {
      webhook.respondWith(deploys(app))
      app.play(rollout('1.3.0', () => version('1.3.0')))
      const polls = (): number =>
        app.requests.filter((request) => request.poll !== undefined).length
      const run = await cancelledDeploy(
        platform,
        {
          'app-url': app.url,
          'expected-version': '1.4.0',
          'poll-seconds': '1',
          'wait-minutes': '5',
        },
        () => polls() >= 2,
      )
      expectCancelled(
        platform,
        run,
        `The step was cancelled (${run.signal}): ${STOPPED} The webhook had accepted the deployment (HTTP 200), and the platform carries it out; the rollout watch was cancelled, so whether the new version serves was not checked: check the app.`,
      )
      expect(webhook.requests).toHaveLength(1)
      expect(run.outputs).toMatchObject({ status: '200', rollout: 'cancelled' })
    },
  )
})

/** The processes whose command line holds `text`, by pid (this test's own aside). */
async function processesWith(text: string): Promise<string[]> {
  const found: string[] = []
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    if (pid === String(process.pid)) continue
    const line = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
    if (line.includes(text)) found.push(`${pid}: ${line.replace(/\0/g, ' ')}`)
  }
  return found
}

describe('a snapshot cancelled during its push', () => {
  const GIT_TOKEN = 'ghs_cancelPushToken4b2d'
  afterAll(() => scratch.run())

  test.each(PLATFORMS)(
    'on %s: git is stopped, nothing reaches the branch, its folders are removed, and the step says to check the branch',
    async (platform) => {
      const server = scratch.track('git server', await startGitServer({ token: GIT_TOKEN }))
      // The push's upload is held: the remote never answers it, as a server that hangs.
      const proxy = scratch.track(
        'holding proxy',
        await startCuttingProxy(
          { host: '127.0.0.1', port: Number(new URL(server.baseUrl).port) },
          /^POST \/\S*git-receive-pack/m,
          { hold: true },
        ),
      )
      await server.createRepo('acme/held-cad')
      const before = await server.log('acme/held-cad', 'main')
      const workspace = await makeWorkspace([
        salesSnapshot(`http://${GIT_TOKEN}@${proxy.host}/acme/held-cad.git`),
      ])
      const temp = await scratch.tempDir('olympe-cancel-push-tmp-')
      const signal = platform === 'github' ? 'SIGINT' : 'SIGTERM'
      let step: ChildProcess | undefined
      const options: RunOptions = {
        cwd: workspace,
        inputs: TOOLKIT_INPUTS,
        env: {
          FAKE_PLATFORM_STATE: PLATFORM_STATE,
          TMPDIR: temp,
          ...(platform === 'gitlab'
            ? { GITLAB_CI: 'true', CI_PIPELINE_SOURCE: 'schedule', CI_PROJECT_DIR: workspace }
            : {}),
        },
        event: { name: 'schedule' },
        timeoutMs: 90_000,
        onSpawn: (child) => (step = child),
      }
      const running =
        platform === 'github' ? runAsGithub('snapshot', options) : runCli('snapshot', options)
      await until(() => proxy.cuts() > 0)
      const cancelled = Date.now()
      step?.kill(signal)
      const run = await running
      // Within the grace the tools get (3 s), not when git's helpers give up on the server.
      expect(Date.now() - cancelled).toBeLessThan(15_000)
      expect(run.code).toBe(1)
      const said = `No commit was pushed after the cancel; a push under way when it came may have reached its repository: check the branch before running the snapshot again.`
      if (platform === 'github')
        expect(run.stdout).toMatch(
          new RegExp(
            `::error title=olympe snapshot cancelled::The step was cancelled \\(${signal}\\): .*${said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
          ),
        )
      else expect(run.stderr).toContain(said)
      expect(await server.log('acme/held-cad', 'main')).toEqual(before)
      expect(server.forcePushes()).toBe(0)
      // No git left pushing, and nothing left of the step's clones and exports.
      expect(await processesWith(`${proxy.host}/acme/held-cad`)).toEqual([])
      expect(await readdir(temp)).toEqual([])
      expectNoSecrets({ stdout: run.stdout, stderr: run.stderr, ...run.files }, [
        GIT_TOKEN,
        Buffer.from(`${GIT_TOKEN}:`).toString('base64'),
        DRAW_PASSWORD,
      ])
    },
  )
})
