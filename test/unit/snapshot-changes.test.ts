import { describe, expect, test } from '@jest/globals'
import { withDefaults } from '../../src/core/definition.js'
import { countChanges, listChanges, parseNameStatus } from '../../src/core/snapshot/changes.js'
import { splitCommand, toolkitArgv } from '../../src/core/snapshot/command.js'
import { snapshotDefinition, type SnapshotInputName } from '../../src/core/snapshot/definition.js'
import { parseSnapshotInputs } from '../../src/core/snapshot/inputs.js'
import { normalizeOutputDir, overlaps } from '../../src/core/snapshot/paths.js'

describe('change detection', () => {
  test('name-status -z: added, modified, type change, deleted; paths with spaces and tabs', () => {
    const output = 'A\0out/a b.json\0M\0out/m.json\0T\0out/link\0D\0out/gone\t.json\0'
    const changes = parseNameStatus(output)
    expect(changes).toEqual([
      { kind: 'added', path: 'out/a b.json' },
      { kind: 'modified', path: 'out/m.json' },
      { kind: 'modified', path: 'out/link' },
      { kind: 'deleted', path: 'out/gone\t.json' },
    ])
    expect(countChanges(changes)).toEqual({ files: 4, added: 1, modified: 2, deleted: 1 })
  })

  test('nothing staged is no change', () => {
    expect(parseNameStatus('')).toEqual([])
  })

  test('an unknown status is a bug, not a silent skip', () => {
    expect(() => parseNameStatus('R100\0a\0')).toThrow("unexpected git status 'R100'")
  })

  test('long lists are cut', () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ kind: 'added' as const, path: `f${i}` }))
    const lines = listChanges(many)
    expect(lines).toHaveLength(51)
    expect(lines.at(-1)).toBe('  … and 10 more')
  })

  test.each<[string, string, string, boolean]>([
    ['same folder', 'snapshot/a', 'snapshot/a', true],
    ['nested', 'snapshot', 'snapshot/a', true],
    ['siblings', 'snapshot/a', 'snapshot/ab', false],
  ])('overlap: %s', (_name, a, b, expected) => {
    expect(overlaps(a, b)).toBe(expected)
    expect(overlaps(b, a)).toBe(expected)
  })

  test('outputDir normal form', () => {
    expect(normalizeOutputDir('./snapshot\\sales//x/')).toBe('snapshot/sales/x')
  })
})

describe('toolkit command', () => {
  test.each<[string, string[]]>([
    ['npx olympe snapshot', ['npx', 'olympe', 'snapshot']],
    [
      '  node  "/path with space/olympe.js"   snapshot ',
      ['node', '/path with space/olympe.js', 'snapshot'],
    ],
    ["sh -c 'echo $HOME'", ['sh', '-c', 'echo $HOME']],
    ['a\\ b "c\\"d" \'\'', ['a b', 'c"d', '']],
  ])('%j', (line, argv) => {
    expect(splitCommand(line)).toEqual(argv)
  })

  test.each([
    ['', 'is empty'],
    ['npx "olympe', 'unclosed " quote'],
  ])('refuses %j', (line, problem) => {
    expect(splitCommand(line)).toEqual({ problem: expect.stringContaining(problem) as unknown })
  })

  test.each<[string[], string[]]>([
    [
      ['npx', 'olympe', 'snapshot'],
      ['npx', '--prefix', '/ws', '--no', 'olympe', 'snapshot'],
    ],
    [
      ['/usr/bin/npx', '--yes', 'olympe'],
      ['/usr/bin/npx', '--prefix', '/ws', '--yes', 'olympe'],
    ],
    [
      ['npx', '--prefix=/p', 'olympe'],
      ['npx', '--no', '--prefix=/p', 'olympe'],
    ],
    [
      ['node', 'olympe.js', 'snapshot'],
      ['node', 'olympe.js', 'snapshot'],
    ],
    [
      ['npx-like', 'x'],
      ['npx-like', 'x'],
    ],
  ])('npx finds the project toolkit and never downloads: %j', (argv, expected) => {
    expect(toolkitArgv(argv, '/ws')).toEqual(expected)
  })
})

describe('snapshot inputs', () => {
  const parse = (
    given: Partial<Record<SnapshotInputName, string>>,
  ): ReturnType<typeof parseSnapshotInputs> =>
    parseSnapshotInputs(withDefaults(snapshotDefinition, given))

  test('defaults', () => {
    expect(parse({})).toEqual({
      config: 'res/snapshot-config.json',
      toolkitCommand: ['npx', 'olympe', 'snapshot'],
      pushAttempts: 3,
      dryRun: false,
    })
  })

  test.each<[Partial<Record<SnapshotInputName, string>>, string]>([
    [
      { 'orchestrator-port': '0' },
      "Invalid input 'orchestrator-port' '0': expected a port number from 1 to 65535",
    ],
    [{ 'orchestrator-host': 'https://orch.example.com' }, 'expected a host name without a scheme'],
    [
      { 'git-user-email': 'not an email' },
      "Invalid input 'git-user-email' 'not an email': expected an e-mail address",
    ],
    [{ 'git-user-name': 'Bot <x>' }, "cannot hold '<'"],
    [{ 'push-attempts': '0' }, 'expected a whole number from 1 to 10'],
    [{ 'toolkit-command': 'npx "olympe' }, 'has an unclosed " quote'],
    [{ 'dry-run': 'yes' }, "expected 'true' or 'false'"],
  ])('%j', (given, message) => {
    expect(() => parse(given)).toThrow(message)
  })

  test('the password is never quoted in a message', () => {
    expect(() => parse({ 'draw-password': 'hunter2', 'push-attempts': 'x' })).not.toThrow('hunter2')
  })
})
