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

  test('secret inputs given as flags are noted', () => {
    expect(parseCliArgs(deployDefinition, ['--webhook-token', 'x']).secretFlags).toEqual([
      'webhook-token',
    ])
  })

  test.each([
    [['--frontend'], "Unknown argument '--frontend'"],
    [['frontend-image'], "Unknown argument 'frontend-image'"],
    [['--timeout-seconds'], "The flag '--timeout-seconds' needs a value"],
  ])('%j is refused', (argv, message) => {
    expect(() => parseCliArgs(deployDefinition, argv)).toThrow(InputError)
    expect(() => parseCliArgs(deployDefinition, argv)).toThrow(message)
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
