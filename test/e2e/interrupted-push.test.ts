import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals'
import {
  DRAW_PASSWORD,
  PLATFORM_STATE,
  salesSnapshot,
  TOOLKIT_INPUTS,
} from '../helpers/fake-toolkit.js'
import { useCleanup } from '../helpers/suite.js'
import { startCuttingProxy, type CuttingProxy } from '../helpers/cutting-proxy.js'
import { SAMPLE_PROJECT, SHA, startDockerSuite, type DockerSuite } from '../helpers/docker-suite.js'
import { startGitServer, type GitServer } from '../helpers/git-server.js'
import { makeWorkspace, scratch } from '../helpers/git-snapshot.js'
import { runAsGithub, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'

// docker retries a cut upload with back-off before it gives up: tens of seconds on an idle
// machine, several times that on a busy one.
jest.setTimeout(240_000)

/**
 * A registry that refuses the push, a registry and a git remote that go away in the middle of
 * one: each fails clearly, reports nothing as pushed that the remote does not hold, leaks nothing.
 */
const captured = (run: RunResult): Record<string, string> => ({
  stdout: run.stdout,
  stderr: run.stderr,
  ...run.files,
})
const portOf = (host: string): number => Number(host.split(':')[1])

describe('build-images when the registry refuses or drops the push', () => {
  let suite: DockerSuite
  let proxy: CuttingProxy
  const cleanup = useCleanup()
  beforeAll(async () => {
    suite = cleanup.track('docker suite', await startDockerSuite())
    proxy = cleanup.track(
      'cutting proxy',
      await startCuttingProxy(
        { host: '127.0.0.1', port: portOf(suite.registry.host) },
        /^(PATCH|PUT) \/v2\/\S*\/blobs\/uploads\//m,
      ),
    )
  }, 60_000)

  const build = (registry: string, repository: string, credentials: boolean): Promise<RunResult> =>
    runAsGithub('build-images', {
      cwd: SAMPLE_PROJECT,
      inputs: {
        registry,
        ...(credentials
          ? {
              'registry-username': suite.registry.user,
              'registry-password': suite.registry.password,
            }
          : {}),
      },
      env: { ...suite.env, GITHUB_SHA: SHA, GITHUB_REPOSITORY: repository },
      event: { name: 'push', payload: { repository: { default_branch: 'main' } } },
    })

  /** Whatever the step reports as pushed must be in the registry, under that digest. */
  async function expectReportedImagesPushed(run: RunResult, repository: string): Promise<void> {
    for (const kind of ['frontend', 'backend', 'codeasdata']) {
      const digest = run.outputs[`${kind}-digest`] ?? ''
      if (digest === '') continue
      const manifest = await suite.registry.manifest(`${repository}/${kind}`, 'main-1a2b3c4')
      expect(manifest.digest).toBe(digest)
    }
  }

  test('without credentials the push is refused: a clear failure, nothing reported as pushed', async () => {
    const repository = suite.uniqueRepository('refused')
    const run = await build(suite.registry.host, repository, false)
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/::error title=olympe build-images failed::.*push/i)
    expect(run.stdout).toMatch(/no basic auth credentials|unauthorized|authentication required/i)
    expect(await suite.registry.catalog()).not.toContain(`${repository}/frontend`)
    await expectReportedImagesPushed(run, repository)
  })

  test('a connection cut in the middle of the upload: a clear failure, nothing half-recorded', async () => {
    const repository = suite.uniqueRepository('cut')
    const run = await build(proxy.host, repository, true)
    expect(proxy.cuts()).toBeGreaterThan(0)
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/::error title=olympe build-images failed::.*push/i)
    await expectReportedImagesPushed(run, repository)
    expectNoSecrets(await suite.seenIn(run), [suite.registry.password])
  })
})

describe('snapshot when the git remote goes away in the middle of the push', () => {
  const TOKEN = 'ghs_cutPushToken7d3e9a1c'
  let server: GitServer
  let proxy: CuttingProxy
  // The workspaces of makeWorkspace are the suite's scratch: the servers go with them.
  beforeAll(async () => {
    server = scratch.track('git server', await startGitServer({ token: TOKEN }))
    proxy = scratch.track(
      'cutting proxy',
      await startCuttingProxy(
        { host: '127.0.0.1', port: portOf(new URL(server.baseUrl).host) },
        /^POST \/\S*git-receive-pack/m,
      ),
    )
  })
  afterAll(() => scratch.run())

  test('a clear failure; no commit is reported that the remote does not hold', async () => {
    await server.createRepo('acme/cut-cad')
    const before = await server.log('acme/cut-cad', 'main')
    const workspace = await makeWorkspace([
      salesSnapshot(`http://${TOKEN}@${proxy.host}/acme/cut-cad.git`),
    ])
    const run = await runAsGithub('snapshot', {
      cwd: workspace,
      inputs: TOOLKIT_INPUTS,
      env: { FAKE_PLATFORM_STATE: PLATFORM_STATE },
      event: { name: 'schedule' },
    })
    expect(proxy.cuts()).toBeGreaterThan(0)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error title=olympe snapshot failed::')
    expect(await server.log('acme/cut-cad', 'main')).toEqual(before)
    expect(run.outputs.changed ?? 'false').toBe('false')
    const reported = JSON.parse(run.outputs.commits ?? '[]') as Array<{ sha?: string }>
    expect(reported.filter((commit) => commit.sha)).toEqual([])
    expect(server.forcePushes()).toBe(0)
    expectNoSecrets(captured(run), [
      TOKEN,
      Buffer.from(`${TOKEN}:`).toString('base64'),
      DRAW_PASSWORD,
    ])
  })
})
