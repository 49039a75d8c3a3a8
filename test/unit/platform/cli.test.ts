import { describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { deployDefinition } from '../../../src/core/deploy/definition.js'
import { InputError } from '../../../src/core/shared/errors.js'
import { createCliRuntime } from '../../../src/platform/cli.js'
import { whichCi } from '../../../src/platform/context.js'
import { withCleanup } from '../../helpers/cleanup.js'
import { hostileCommands } from '../../helpers/runner-commands.js'
import { expectNoSecrets } from '../../helpers/secrets.js'

interface Captured {
  runtime: ReturnType<typeof createCliRuntime>
  stdout: () => string
  stderr: () => string
}

function capture(env: Record<string, string> = {}, argv: string[] = []): Captured {
  const out: string[] = []
  const err: string[] = []
  const runtime = createCliRuntime(
    deployDefinition,
    whichCi(env),
    env,
    argv,
    (text) => out.push(text),
    (text) => err.push(text),
  )
  return { runtime, stdout: () => out.join(''), stderr: () => err.join('') }
}

describe('the command-line runtime', () => {
  test('masks every leak form of a secret in child output', () => {
    const secret = 'Registry-Pass-2024'
    const { runtime, stdout } = capture()
    runtime.registerSecret(secret)
    for (const line of [
      `login: ${secret.toUpperCase()} / ${secret.toLowerCase()}`,
      `{"auths":{"r.io":{"auth":"${Buffer.from(`robot:${secret}`).toString('base64')}"}}}`,
      `Location: https://r.io/t?p=${encodeURIComponent(`${secret}&`)}`,
      Buffer.from(`ab${secret}cd`).toString('base64url'),
    ])
      runtime.logger.info(line)
    expect(stdout()).toContain('login: *** / ***')
    expectNoSecrets({ stdout: stdout() }, [secret])
  })

  test('inside a GitHub job, text that could be a workflow command is shown but not run', () => {
    const { runtime, stdout, stderr } = capture({ GITHUB_ACTIONS: 'true' })
    runtime.logger.info('tool says\n::set-output name=a::hostile-out')
    runtime.logger.warning('body:\n::error::hostile-warning')
    runtime.logger.warning('plain warning')
    expect(hostileCommands(stdout())).toEqual([])
    expect(stdout()).toContain('::set-output name=a::hostile-out')
    // One pause for both streams: a guarded warning goes to stdout, a plain one stays on stderr.
    expect(stdout()).toContain('Warning: body:\n::error::hostile-warning')
    expect(stderr()).toBe('Warning: plain warning\n')
  })

  test('elsewhere, output is left as printed', () => {
    const { runtime, stdout } = capture()
    runtime.logger.info('::error::plain')
    expect(stdout()).toBe('::error::plain\n')
  })

  test.each([
    [
      'in a missing folder',
      'reports/out.env',
      "The flag '--dotenv' names 'reports/out.env', in a folder that does not exist:",
    ],
    ['naming a folder', '.', "The flag '--dotenv' names '.', which is not a file path"],
    ['empty', '', "The flag '--dotenv' names '', which is not a file path"],
  ])('refuses a --dotenv path %s before anything runs', async (_name, path, message) => {
    await withCleanup(async (cleanup) => {
      const cwd = process.cwd()
      process.chdir(await cleanup.tempDir('olympe-cli-'))
      cleanup.add('working directory', () => process.chdir(cwd))
      expect(() => capture({}, ['--dotenv', path])).toThrow(InputError)
      expect(() => capture({}, ['--dotenv', path])).toThrow(message)
    })
  })

  test('refuses an --annotations path in a missing folder before anything runs', async () => {
    await withCleanup(async (cleanup) => {
      const cwd = process.cwd()
      process.chdir(await cleanup.tempDir('olympe-cli-'))
      cleanup.add('working directory', () => process.chdir(cwd))
      expect(() => capture({}, ['--annotations', 'reports/links.json'])).toThrow(
        "The flag '--annotations' names 'reports/links.json', in a folder that does not exist:",
      )
    })
  })

  test("--annotations: every summary's links in GitLab's annotations report, redacted", async () => {
    await withCleanup(async (cleanup) => {
      const file = join(await cleanup.tempDir('olympe-cli-'), 'annotations.json')
      const { runtime, stdout } = capture({ GITLAB_CI: 'true' }, ['--annotations', file])
      runtime.registerSecret('s3cret-tok3n')
      await runtime.reporter.summary({ heading: 'no links', rows: [['a', 'b']] })
      expect(existsSync(file)).toBe(false)
      await runtime.reporter.summary({
        heading: 'Olympe deployment requested',
        rows: [['Status', '200']],
        links: [
          { label: 'App', url: 'https://shop.example.com' },
          { label: 'frontend image r.io/f:1', url: 'https://r.io/v2/f/manifests/1?t=s3cret-tok3n' },
        ],
      })
      await runtime.reporter.summary({
        heading: 'Olympe rollout: live',
        rows: [],
        links: [{ label: 'App (live)', url: 'https://shop.example.com' }],
      })
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
        'Olympe deploy': [
          { external_link: { label: 'App', url: 'https://shop.example.com' } },
          {
            external_link: {
              label: 'frontend image r.io/f:1',
              url: 'https://r.io/v2/f/manifests/1?t=***',
            },
          },
          { external_link: { label: 'App (live)', url: 'https://shop.example.com' } },
        ],
      })
      expect(stdout()).toContain('  Link: App: https://shop.example.com\n')
    })
  })
})
