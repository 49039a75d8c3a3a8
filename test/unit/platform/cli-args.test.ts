import { describe, expect, test } from '@jest/globals'
import { deployDefinition } from '../../../src/core/deploy/definition.js'
import { InputError } from '../../../src/core/shared/errors.js'
import { parseCliArgs, usage } from '../../../src/platform/cli-args.js'
import { inputsFromEnv } from '../../../src/platform/runtime.js'

describe('command-line flags', () => {
  test.each<[string, string[], Record<string, string>]>([
    ['--name value', ['--frontend-image', 'r.io/f:1'], { 'frontend-image': 'r.io/f:1' }],
    ['--name=value', ['--frontend-image=r.io/f:1'], { 'frontend-image': 'r.io/f:1' }],
    ['a bare boolean flag', ['--dry-run'], { 'dry-run': 'true' }],
    [
      'a boolean flag with a value',
      ['--dry-run', 'false', '--force-sync'],
      { 'dry-run': 'false', 'force-sync': 'true' },
    ],
    [
      'a value starting with dashes',
      ['--deploy-rules', '- source: a\n  target: b'],
      { 'deploy-rules': '- source: a\n  target: b' },
    ],
  ])('%s', (_name, argv, expected) => {
    expect(parseCliArgs(deployDefinition, argv).given).toEqual(expected)
  })

  test('options are not inputs', () => {
    expect(parseCliArgs(deployDefinition, ['--dotenv', 'out.env', '--debug']).options).toEqual({
      dotenv: 'out.env',
      help: false,
      debug: true,
    })
  })

  test('the inputs given as flags are noted, for the warning about what they hold', () => {
    expect(
      parseCliArgs(deployDefinition, ['--webhook-token', 'x', '--app-url=https://a.example']).flags,
    ).toEqual(['webhook-token', 'app-url'])
  })

  const EXPECTED =
    'Expected one of: --webhook-url, --webhook-token, --allow-insecure-http, --frontend-image, --backend-images, --codeasdata-image, --built-images, --verify-images, --verify-signatures, --require-provenance, --pin-digests, --registry, --registry-username, --registry-password, --registry-mirrors, --deploy-rules, --codeasdata-update-mode, --promotion-mode, --skip-update-versions, --force-sync, --payload-file, --timeout-seconds, --app-url, --preview-url, --expected-version, --wait-minutes, --poll-seconds, --require-evidence, --dry-run, --check-only, --dotenv, --annotations, --help, --debug.'
  test.each([
    [['--frontend'], `Unknown flag '--frontend' for 'deploy'. Did you mean '--frontend-image'?`],
    [
      ['--webhook-tokn=s3cret-tok3n'],
      `Unknown flag '--webhook-tokn' (its value is not shown) for 'deploy'. Did you mean '--webhook-token'?`,
    ],
    [
      ['--webhook-tokn', 's3cret-tok3n'],
      `Unknown flag '--webhook-tokn' for 'deploy'. Did you mean '--webhook-token'?`,
    ],
    [
      ['--WEBHOOK_TOKEN=s3cret-tok3n'],
      `Unknown flag '--WEBHOOK_TOKEN' (its value is not shown) for 'deploy'. Did you mean '--webhook-token'? Flags are lower-case, with hyphens.`,
    ],
    [
      ['--Webhook-Token', 's3cret-tok3n'],
      `Unknown flag '--Webhook-Token' for 'deploy'. Did you mean '--webhook-token'? Flags are lower-case, with hyphens.`,
    ],
    [
      ['--webhook_url=https://hooks.example.com/s3cret'],
      `Unknown flag '--webhook_url' (its value is not shown) for 'deploy'. Did you mean '--webhook-url'? Flags are lower-case, with hyphens.`,
    ],
    [['-x'], `Unknown flag '-x' for 'deploy'.`],
    [
      ['frontend-image'],
      `Unexpected argument 1 after 'deploy' (not shown: it may be a secret). Every input is given as '--<input> <value>' or '--<input>=<value>'.`,
    ],
    [
      ['--dry-run', 's3cret-tok3n'],
      `Unexpected argument 2 after 'deploy' (not shown: it may be a secret). It follows '--dry-run', a true/false flag, which takes 'true', 'false' or nothing after it.`,
    ],
    [
      ['--dry-run', 'true', 's3cret-tok3n'],
      `Unexpected argument 3 after 'deploy' (not shown: it may be a secret). Every input is given`,
    ],
    [['-Xs3cret-tok3n'], `Unexpected argument 1 after 'deploy' (not shown: it may be a secret).`],
    [['--s3cret:tok3n'], `Unexpected argument 1 after 'deploy' (not shown: it may be a secret).`],
    [
      [`--${'a'.repeat(41)}`],
      `Unexpected argument 1 after 'deploy' (not shown: it may be a secret).`,
    ],
    [['--timeout-seconds'], "The flag '--timeout-seconds' needs a value"],
  ])('%j is refused', (argv, message) => {
    expect(() => parseCliArgs(deployDefinition, argv)).toThrow(InputError)
    expect(() => parseCliArgs(deployDefinition, argv)).toThrow(message)
    if (!message.includes('needs a value'))
      expect(() => parseCliArgs(deployDefinition, argv)).toThrow(EXPECTED)
  })

  test.each([
    ['--webhook-tokn=s3cret-tok3n'],
    ['--WEBHOOK-TOKEN=s3cret-tok3n'],
    ['--webhook_token=s3cret-tok3n'],
    ['s3cret-tok3n'],
    ['--dry-run', 's3cret-tok3n'],
    ['--force-sync=true', '-s3cret-tok3n'],
  ])('never repeats what follows a flag name, nor a stray argument: %j', (...argv) => {
    let message = ''
    try {
      parseCliArgs(deployDefinition, argv)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).not.toBe('')
    expect(message).not.toContain('s3cret')
  })

  test('usage lists every input', () => {
    const text = usage(deployDefinition)
    for (const name of Object.keys(deployDefinition.inputs)) expect(text).toContain(`--${name}`)
  })
})

describe('INPUT_ environment variables', () => {
  test.each([
    ['the runner’s hyphenated form', { 'INPUT_FRONTEND-IMAGE': 'r.io/f:1' }],
    ['the shell and GitLab underscored form', { INPUT_FRONTEND_IMAGE: 'r.io/f:1' }],
  ])('%s', (_name, env) => {
    expect(inputsFromEnv(deployDefinition, env)).toEqual({ 'frontend-image': 'r.io/f:1' })
  })
})
