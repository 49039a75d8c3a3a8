import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import { tableCell } from '../../../../src/core/shared/markdown.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

describe('tableCell', () => {
  eachAnswer(
    'escapes the pipe that would end the cell and joins lines into one row: %j',
    tableCell,
    [['a | b\nc\r\nd\re', 'a \\| b c d e']],
  )

  eachAnswer("a server's HTML and Markdown show as text: %j", tableCell, [
    ['<img src="https://evil.example/p.png">', '\\<img src="https://evil.example/p.png"\\>'],
    [
      '![x](https://evil.example/p.png) [click](https://evil.example)',
      '\\!\\[x\\](https://evil.example/p.png) \\[click\\](https://evil.example)',
    ],
    ['**done** _ok_ ~~no~~ &lt; \\', '\\*\\*done\\*\\* \\_ok\\_ \\~\\~no\\~\\~ \\&lt; \\\\'],
  ])

  eachAnswer(
    'code spans are kept, their pipes escaped; a backtick that never closes is text: %j',
    tableCell,
    [
      [
        '`ghcr.io/acme/my_app:v1` · `sha256:ab` · 12 MB',
        '`ghcr.io/acme/my_app:v1` · `sha256:ab` · 12 MB',
      ],
      ['`a|b` c|d', '`a\\|b` c\\|d'],
      ['x ` <b>', 'x \\` \\<b\\>'],
      ['``a`b`` `c', '``a`b`` \\`c'],
      ['`a\\|b`', '\\`a\\\\\\|b\\`'],
    ],
  )

  test('property: the cell is one row, and no pipe ends it early', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', '|', '\\', '`', '<', '\n', ' ') }),
        (text) => {
          const cell = tableCell(text)
          expect(cell).not.toMatch(/[\r\n]/)
          // GitHub's table parser: a backslash escapes the character after it; a bare pipe splits.
          expect(cell.replace(/\\./g, '')).not.toContain('|')
        },
      ),
    )
  })
})
