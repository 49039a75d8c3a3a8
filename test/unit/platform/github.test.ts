import { describe, expect, test } from '@jest/globals'
import { Redactor } from '../../../src/core/shared/redactor.js'
import { summaryMarkdown } from '../../../src/platform/github.js'

describe('summaryMarkdown', () => {
  test('each cell is redacted before it is escaped: an escape inside a secret would hide it from the redactor', () => {
    const redactor = new Redactor()
    redactor.add('pa_ss*word<1>')
    const markdown = summaryMarkdown(
      {
        heading: 'olympe deploy failed',
        rows: [['Reason', "the token service said 'pa_ss*word<1>' | <img src=x>\nnext"]],
      },
      (text) => redactor.redact(text),
    )
    expect(markdown).toBe(
      [
        '### olympe deploy failed',
        '',
        '| | |',
        '|---|---|',
        "| Reason | the token service said '\\*\\*\\*' \\| \\<img src=x\\> next |",
        '',
        '',
      ].join('\n'),
    )
  })
})
