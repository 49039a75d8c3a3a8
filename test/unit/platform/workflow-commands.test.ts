import { describe, expect, test } from '@jest/globals'
import { couldBeCommand, guardCommands } from '../../../src/platform/workflow-commands.js'
import { HOSTILE_LINES, hostileCommands, runnerCommands } from '../../helpers/runner-commands.js'

describe('the runner model the tests rely on', () => {
  test('sees every hostile line as a command when nothing guards it', () => {
    for (const line of HOSTILE_LINES.filter((l) => !l.includes('hostile-token')))
      expect([line, hostileCommands(`info\n${line}\n`)]).toEqual([line, [expect.anything()]])
  })

  test('honours stop-commands until its token', () => {
    const seen = runnerCommands('::stop-commands::t1\n::error::a\n::T1::\n::error::b\n')
    expect(seen).toEqual([{ command: 'error', properties: '', data: 'b' }])
  })
})

describe('guardCommands', () => {
  test.each([
    ['one hostile line', '::error::hostile-error'],
    ['hostile lines after a first harmless one', `line one\n${HOSTILE_LINES.join('\n')}`],
    ['a line break as a lone carriage return', 'progress\r::set-output name=x::hostile-cr'],
    ['a CRLF line break', 'progress\r\n::warning::hostile-crlf'],
    ['a pause with its own token inside', '::stop-commands::abc\n::abc::\n::error::hostile-after'],
    ['a zero-width space before the colons', '\u200b::error::hostile'],
    ['a non-breaking space before the colons', '\u00a0::error::hostile'],
    ['a next-line character before the colons', '\u0085::error::hostile'],
    ['the legacy form inside a line', 'downloading ##[warning]hostile'],
  ])('%s: the runner sees no command, and the text is still shown', (_name, text) => {
    const guarded = guardCommands(text)
    expect(hostileCommands(`${guarded}\n::notice::ours\n`)).toEqual([])
    // Ours still works after the guard: the pause ends.
    expect(runnerCommands(`${guarded}\n::notice::ours\n`)).toContainEqual({
      command: 'notice',
      properties: '',
      data: 'ours',
    })
    expect(guarded).toContain(text)
  })

  test.each([
    'Pushing 127.0.0.1:5000/shop/frontend:1',
    'http://[::1]:8080/ is listening',
    'a: b :: c',
    '#5 [internal] load build definition from Dockerfile',
    '',
  ])('leaves ordinary text untouched: %j', (text) => {
    expect(couldBeCommand(text)).toBe(false)
    expect(guardCommands(text)).toBe(text)
  })

  test('uses a fresh random token each time', () => {
    const tokens = new Set(
      Array.from({ length: 5 }, () => /::stop-commands::(\w+)/.exec(guardCommands('::x::'))?.[1]),
    )
    expect(tokens.size).toBe(5)
  })
})
