// `olympe-deploy` itself, as a GitLab job or a person meets it: the commands, and what happens
// when none or an unknown one is given.
import { describe, expect, test } from '@jest/globals'
import { cp, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Cleanup } from '../helpers/cleanup.js'
import { useCleanup, useStarted } from '../helpers/suite.js'
import { NODE24 } from '../helpers/node-binaries.js'
import { CHECKED, fixture, ROOT } from '../helpers/run-action.js'
import { capture } from '../helpers/run-process.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { answer, startWebhookServer } from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

const BIN = join(ROOT, 'bin/olympe-deploy.js')
const env = { PATH: process.env.PATH ?? '' }

const olympeDeploy = (...args: string[]): ReturnType<typeof capture> =>
  capture(NODE24, [BIN, ...args], { env, cwd: ROOT })

const COMMAND_LINES = [
  "  snapshot      Exports the code as data of Olympe projects with the platform's toolkit and commits it to git.",
  '  build-images  Builds the frontend, backend and code-as-data images an Olympe project asks for',
  '  deploy        Assembles the Olympe deployment payload from image references, calls the deployment webhook and watches the rollout until the app serves the new version.',
  "Run 'olympe-deploy <command> --help' for a command's inputs.",
]

describe('olympe-deploy', () => {
  test('with no command: the commands, a line each, on stderr, and exit status 2', async () => {
    const run = await olympeDeploy()
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(/^Error: no command given\.\n\nUsage: olympe-deploy <command>/)
    for (const line of COMMAND_LINES) expect(run.stderr).toContain(line)
  })

  test('--help: the same list on stdout, and exit status 0', async () => {
    const run = await olympeDeploy('--help')
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
    for (const line of COMMAND_LINES) expect(run.stdout).toContain(line)
    // Every exit code, so that a GitLab job's allow_failure can name the one it allows.
    expect(run.stdout).toContain(
      'Exit codes: 0 done; 1 failed; 2 the command line used wrongly; 80 deployed, but not shown live (a rollout that awaits a promotion, or that nothing shows to serve the new build).',
    )
  })

  test("<command> --help: that command's inputs, and nothing runs", async () => {
    const run = await olympeDeploy('deploy', '--help')
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
    expect(run.stdout).toMatch(/^Usage: olympe-deploy deploy \[--<input> <value>\]\.\.\./)
    expect(run.stdout).toContain('--webhook-url <value>')
    expect(run.stdout).not.toContain('Inputs\n')
  })

  test('an unknown command: not echoed, the list, and exit status 2', async () => {
    const run = await olympeDeploy('deplyo', '--dry-run')
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      'Error: unknown command (not shown: it may be a secret). The first argument must be one of: snapshot, build-images, deploy.',
    )
    expect(run.stderr).not.toContain('deplyo')
    for (const line of COMMAND_LINES) expect(run.stderr).toContain(line)
  })
})

describe('what a GitLab deploy job loads', () => {
  /** The chunk of dist/ whose text holds `marker`: where ncc put a lazily loaded library. */
  async function chunkHolding(marker: string): Promise<string> {
    const names = (await readdir(join(ROOT, 'dist'))).filter((name) =>
      /^\d+\.index\.js$/.test(name),
    )
    for (const name of names)
      if ((await readFile(join(ROOT, 'dist', name), 'utf8')).includes(marker)) return name
    throw new Error(`no chunk of dist/ holds '${marker}'`)
  }

  test('the bundle, and neither @actions/core nor @actions/exec', async () => {
    const cleanup = new Cleanup()
    try {
      const dir = await cleanup.tempDir('olympe-loads-')
      const log = join(dir, 'loaded.txt')
      const hooks = join(dir, 'hooks.mjs')
      // Every module Node loads, as its URL, in the order it loads them.
      await writeFile(
        hooks,
        `import { registerHooks } from 'node:module'\nimport { appendFileSync } from 'node:fs'\nregisterHooks({ load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context) } })\n`,
      )
      const run = await capture(
        NODE24,
        ['--import', hooks, BIN, 'deploy', '--dry-run', '--verify-images', 'false'],
        {
          env: {
            ...env,
            GITLAB_CI: 'true',
            INPUT_WEBHOOK_URL: 'https://hooks.example.com/deploy/Load-Test-Token-1',
            INPUT_WEBHOOK_TOKEN: 'Load-Test-Token-2',
            INPUT_FRONTEND_IMAGE: 'registry.example.com/shop/frontend:1.4.0',
          },
          cwd: ROOT,
        },
      )
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
      const loaded = (await readFile(log, 'utf8'))
        .split('\n')
        .filter((url) => url.includes('/dist/'))
        .map((url) => url.slice(url.lastIndexOf('/dist/') + 1))
      expect(loaded).toContain('dist/index.js')
      // @actions/core writes `::add-mask::` through setSecret; @actions/exec says how a tool failed.
      expect(loaded).not.toContain(`dist/${await chunkHolding('setSecret')}`)
      expect(loaded).not.toContain(`dist/${await chunkHolding('failed with exit code')}`)
    } finally {
      await cleanup.run()
    }
  })
})

describe("'check-only': a pipeline's first job", () => {
  const cleanup = useCleanup()
  const webhook = useStarted('webhook', () => startWebhookServer(answer(200)), cleanup)

  const gitlabJob = (inputs: Record<string, string>): Record<string, string> => ({
    ...env,
    GITLAB_CI: 'true',
    CI_PROJECT_PATH: 'acme/shop',
    CI_COMMIT_BRANCH: 'main',
    CI_DEFAULT_BRANCH: 'main',
    CI_COMMIT_SHA: '5e6f708192a3b4c5d6e7f8091a2b3c4d1a2b3c4d',
    ...inputs,
  })
  /** `olympe-deploy <action> --check-only` in a GitLab job with these variables, in `cwd`. */
  const checkOnly = (
    action: string,
    variables: Record<string, string>,
    cwd = ROOT,
  ): ReturnType<typeof capture> =>
    capture(NODE24, [BIN, action, '--check-only'], { env: gitlabJob(variables), cwd })

  test('valid deploy inputs: said so, and nothing is sent', async () => {
    const run = await checkOnly('deploy', {
      INPUT_WEBHOOK_URL: webhook.url,
      INPUT_WEBHOOK_TOKEN: 'Check-Only-Token-1',
      INPUT_FRONTEND_IMAGE: '127.0.0.1:1/shop/frontend:1.4.0',
    })
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
    expect(run.stdout).toContain(CHECKED)
    expect(webhook.requests).toHaveLength(0)
  })

  test('a missing secret: named, exit 1, and nothing is sent', async () => {
    const run = await checkOnly('deploy', {
      INPUT_WEBHOOK_URL: webhook.url,
      INPUT_WEBHOOK_TOKEN: '',
    })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(
      "Error: Invalid input 'webhook-token' (value hidden: secret): is required: set it from the secret the platform operator gave you (WEBHOOK_TOKEN).",
    )
    expect(webhook.requests).toHaveLength(0)
  })

  test('build-images: the inputs and the Dockerfiles checked, no build output needed, and no tool run', async () => {
    const shim = fixture('bad-inputs', 'shim')
    const dir = await cleanup.tempDir('olympe-check-only-')
    const shimLog = join(dir, 'calls.log')
    // The project as a first job sees it: its Dockerfiles, and none of the builds (dist/).
    await cp(fixture('olympe-project-template', 'docker'), join(dir, 'docker'), { recursive: true })
    const run = await checkOnly(
      'build-images',
      {
        PATH: `${shim}:${env.PATH}`,
        SHIM_LOG: shimLog,
        INPUT_REGISTRY: 'registry.example.com',
        INPUT_REGISTRY_USERNAME: 'ci',
        INPUT_REGISTRY_PASSWORD: 'Check-Only-Password-2',
      },
      dir,
    )
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
    expect(run.stdout).toContain(CHECKED)
    expect(await readFile(shimLog, 'utf8').catch(() => '')).toBe('')
    expectNoSecrets({ stdout: run.stdout }, ['Check-Only-Password-2'])
  })
})

describe("the README's first command, `npm run demo`", () => {
  test('a clean dry run: the payload, no warning, and the image check said to be off', async () => {
    const run = await capture('npm', ['run', '--silent', 'demo'], { env, cwd: ROOT })
    expect({ code: run.code, stderr: run.stderr.replace(/^npm warn .*\n/gm, '') }).toEqual({
      code: 0,
      stderr: '',
    })
    expectToSay(
      run.stdout,
      'Demo: the deploy action as a dry run; its example registry does not exist, so the image check is off (--verify-images false).',
      "The images were not checked in their registries ('verify-images: false').",
      'Dry run: this request would be sent, and nothing was.',
    )
    expect(run.stdout).not.toContain('Warning')
  })
})
