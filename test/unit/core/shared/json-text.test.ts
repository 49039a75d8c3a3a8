import { describe, expect, test } from '@jest/globals'
import { jsonSyntaxError, parseJsonText } from '../../../../src/core/shared/json-text.js'

describe('parseJsonText', () => {
  test('JSON, with or without a byte order mark', () => {
    expect(parseJsonText('{"a": [1, true, null, "x"]}')).toEqual({
      value: { a: [1, true, null, 'x'] },
    })
    expect(parseJsonText('\uFEFF{"a": 1}')).toEqual({ value: { a: 1 } })
  })

  test.each([
    ['root:x:0:0:root:/root:/bin/bash\n', "unexpected 'r' at line 1, column 1"],
    ['{\n  "a": tru\n}', "unexpected 't' at line 2, column 8"],
    ['{"a": 1,}', "unexpected '}' at line 1, column 9"],
    ['{"a": 1} x', "unexpected 'x' at line 1, column 10"],
    ['', 'it ends too early (after line 1)'],
    ['{"a": [1, 2', 'it ends too early (after line 1)'],
    ['{"a": "b\tc"}', 'unexpected character U+0009 at line 1, column 9'],
    ['{"a": "\\x"}', "unexpected '\\' at line 1, column 8"],
    ['[01]', "unexpected '1' at line 1, column 3"],
    ['{"a" 1}', "unexpected '1' at line 1, column 6"],
    ['\uFEFF\uFEFF{}', 'unexpected character U+FEFF at line 1, column 1'],
  ])('%j: says where, never quotes the text', (text, problem) => {
    expect(parseJsonText(text)).toEqual({ problem: `not valid JSON: ${problem}` })
  })

  test('agrees with JSON.parse on where valid JSON ends', () => {
    const text = ' {"a": [1, -2.5e3, "\\u00e9\\n", {"b": false}], "c": null} '
    expect(() => {
      JSON.parse(text)
    }).not.toThrow()
    expect(jsonSyntaxError(text)).toEqual({ offset: text.length, tooDeep: false })
  })

  test('deep nesting is refused, not a stack overflow', () => {
    const deep = `${'['.repeat(100_000)}x`
    expect(parseJsonText(deep)).toEqual({
      problem: 'not valid JSON: nested more than 512 levels deep at line 1, column 514',
    })
  })
})
