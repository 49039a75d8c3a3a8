import { describe, expect, test } from '@jest/globals'
import {
  processWord,
  processWords,
  ShellNotUnderstood,
  ShellSyntaxError,
} from '../../../../src/core/dockerfile/shell-words.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

const env = new Map([
  ['A', 'a'],
  ['EMPTY', ''],
])
const word = (text: string, escape = '\\'): string => processWord(text, env, escape)

describe("processWord: BuildKit's expansion of one word", () => {
  eachAnswer('%j is %j', (text: string) => word(text), [
    ['$A/x', 'a/x'],
    ['${A}b', 'ab'],
    ['$UNSET/x', '/x'],
    ['${UNSET:-d}', 'd'],
    ['${EMPTY:-d}', 'd'],
    ['${EMPTY-d}', ''],
    ['${A:+alt}', 'alt'],
    ['${UNSET+alt}', ''],
    ["'$A'", '$A'],
    ['"$A b"', 'a b'],
    ['\\$A', '$A'],
    ['$', '$'],
    ['a$1b', 'ab'],
  ])

  test('the escape token may be the backtick', () => {
    expect(word('`$A', '`')).toBe('$A')
    expect(word('\\$A', '`')).toBe('\\a')
  })

  test('what BuildKit refuses, and what this reader does not evaluate', () => {
    expect(() => word('"a')).toThrow(ShellSyntaxError)
    expect(() => word('${}')).toThrow(ShellSyntaxError)
    expect(() => word('${A:x}')).toThrow(ShellSyntaxError)
    expect(() => word('${A#a}')).toThrow(ShellNotUnderstood)
    expect(() => word('${A/a/b}')).toThrow(ShellNotUnderstood)
    expect(() => word('${A?}')).toThrow(ShellNotUnderstood)
  })

  test('words split on spaces after expansion; unset variables kept when asked', () => {
    expect(processWords('a "b c" $A', env, '\\')).toEqual(['a', 'b c', 'a'])
    expect(
      processWords('<<${X#y} "z"', new Map(), '\\', { skipUnsetEnv: true, rawQuotes: true }),
    ).toEqual(['<<${X#y}', '"z"'])
  })
})
