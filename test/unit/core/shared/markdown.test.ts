import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import { tableCell } from '../../../../src/core/shared/markdown.js'

describe('tableCell', () => {
  test('escapes the pipe that would end the cell and joins lines into one row', () => {
    expect(tableCell('a | b\nc\r\nd\re')).toBe('a \\| b c d e')
  })

  test("a server's HTML and Markdown show as text", () => {
    expect(tableCell('<img src="https://evil.example/p.png">')).toBe(
      '\\<img src="https://evil.example/p.png"\\>',
    )
    expect(tableCell('![x](https://evil.example/p.png) [click](https://evil.example)')).toBe(
      '\\!\\[x\\](https://evil.example/p.png) \\[click\\](https://evil.example)',
    )
    expect(tableCell('**done** _ok_ ~~no~~ &lt; \\')).toBe(
      '\\*\\*done\\*\\* \\_ok\\_ \\~\\~no\\~\\~ \\&lt; \\\\',
    )
  })

  test('code spans are kept, their pipes escaped; a backtick that never closes is text', () => {
    expect(tableCell('`ghcr.io/acme/my_app:v1` · `sha256:ab` · 12 MB')).toBe(
      '`ghcr.io/acme/my_app:v1` · `sha256:ab` · 12 MB',
    )
    expect(tableCell('`a|b` c|d')).toBe('`a\\|b` c\\|d')
    expect(tableCell('x ` <b>')).toBe('x \\` \\<b\\>')
    expect(tableCell('``a`b`` `c')).toBe('``a`b`` \\`c')
    expect(tableCell('`a\\|b`')).toBe('\\`a\\\\\\|b\\`')
  })

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
