import { describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { lstat, readdir, readFile, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { deployDefinition } from '../../../src/core/deploy/definition.js'
import { InputError } from '../../../src/core/shared/errors.js'
import { createCliRuntime } from '../../../src/platform/plain-runtime.js'
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

  test('a line that would open a GitLab section or move the cursor is shown escaped', () => {
    const { runtime, stdout, stderr } = capture({ GITLAB_CI: 'true' })
    runtime.logger.info('step 1\r\u001b[0Ksection_start:1:forged\r\u001b[0KFAKE\n\tnext')
    runtime.logger.warning('bad\u001b[2Kline')
    expect(stdout()).toBe('step 1\\x0d\\x1b[0Ksection_start:1:forged\\x0d\\x1b[0KFAKE\n\tnext\n')
    expect(stderr()).toBe('Warning: bad\\x1b[2Kline\n')
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

  // Old runs wrote through the link: a link committed as olympe-deploy.env, the name the GitLab
  // templates use, overwrote whatever file it pointed to that the job could write.
  test('a --dotenv path that is a symbolic link: the link is replaced, its target untouched', async () => {
    await withCleanup(async (cleanup) => {
      const outside = await cleanup.tempDir('olympe-outside-')
      const target = join(outside, 'precious.txt')
      await writeFile(target, 'keep me\n')
      const then = new Date('2020-01-02T03:04:05Z')
      await utimes(target, then, then)
      const folder = await cleanup.tempDir('olympe-job-')
      const dotenv = join(folder, 'olympe-deploy.env')
      await symlink(target, dotenv)
      const { runtime } = capture({ GITLAB_CI: 'true' }, ['--dotenv', dotenv])
      runtime.reporter.setOutput('status', '200')
      runtime.reporter.setOutput('dry-run', 'true')
      expect(await readFile(target, 'utf8')).toBe('keep me\n')
      expect((await stat(target)).mtime).toEqual(then)
      const written = await lstat(dotenv)
      expect(written.isFile()).toBe(true)
      expect(written.mode & 0o777).toBe(0o600)
      expect(await readFile(dotenv, 'utf8')).toBe(
        'OLYMPE_DEPLOY_STATUS=200\nOLYMPE_DEPLOY_DRY_RUN=true\n',
      )
      // No temporary file is left beside it.
      expect(await readdir(folder)).toEqual(['olympe-deploy.env'])
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
