import { describe, expect, test } from '@jest/globals'
import { splitCommand, toolkitArgv } from '../../../../src/core/snapshot/command.js'

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
