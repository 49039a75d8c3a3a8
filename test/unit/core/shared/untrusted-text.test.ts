import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import { printableLines, untrustedText } from '../../../../src/core/shared/untrusted-text.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

describe('untrustedText', () => {
  eachAnswer('control characters, ESC and DEL are shown as \\xNN: %j', untrustedText, [
    [
      'X\r\u001b[0Ksection_start:1:evil\r\u001b[0KFAKE',
      'X\\x0d\\x1b[0Ksection_start:1:evil\\x0d\\x1b[0KFAKE',
    ],
    ['a\nb\tc\u0000d\u007fe\u0085f\u009bg', 'a\\x0ab\\x09c\\x00d\\x7fe\\x85f\\x9bg'],
  ])

  eachAnswer(
    'line separators, bidirectional controls and lone surrogates are shown as \\uNNNN: %j',
    untrustedText,
    [
      [
        'a\u2028b\u2029c\u202ed\u2066e\u200ff\ud800g\udc00',
        'a\\u2028b\\u2029c\\u202ed\\u2066e\\u200ff\\ud800g\\udc00',
      ],
    ],
  )

  test('printable Unicode is kept as it is', () => {
    const text = 'Déploiement réussi — 部署 ✓ 🚀 "quoted" \\path'
    expect(untrustedText(text)).toBe(text)
  })

  test('cut after the limit, never inside an escape or a surrogate pair', () => {
    expect(untrustedText('abcdef', 4)).toBe('abcd… (cut)')
    expect(untrustedText('ab\u001bcd', 4)).toBe('ab… (cut)')
    expect(untrustedText('ab🚀cd', 3)).toBe('ab… (cut)')
    expect(untrustedText('abcd', 4)).toBe('abcd')
    expect(untrustedText('x'.repeat(1000))).toBe(`${'x'.repeat(200)}… (cut)`)
  })

  test('property: one line, no control character, bounded', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 1, max: 50 }), (text, max) => {
        const shown = untrustedText(text, max)
        expect(shown).not.toMatch(/[\p{Cc}\u2028\u2029]/u)
        expect(shown.length).toBeLessThanOrEqual(max + '… (cut)'.length)
        expect(shown).not.toMatch(
          /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
        )
      }),
    )
  })
})

describe('printableLines', () => {
  test('keeps line breaks and tabs, escapes every other control, and cuts nothing', () => {
    const long = 'x'.repeat(5000)
    expect(printableLines(`a\nb\tc\r\u001bd\u202e${long}`)).toBe(`a\nb\tc\\x0d\\x1bd\\u202e${long}`)
  })
})
