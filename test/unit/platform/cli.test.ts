import { describe, expect, test } from '@jest/globals'
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
})
