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

  test('the heading, notes and link labels go through the same escaping as the cells', () => {
    const server = '[Promote](https://evil.example) <b>now</b>\n> quoted'
    const markdown = summaryMarkdown(
      {
        heading: `Olympe rollout: ${server}`,
        rows: [],
        notes: [`last seen: version ${server}`],
        links: [{ label: `App (${server})`, url: 'https://shop.example.com/(x)' }],
      },
      (text) => text,
    )
    const escaped = '\\[Promote\\](https://evil.example) \\<b\\>now\\</b\\> \\> quoted'
    expect(markdown.split('\n')).toEqual([
      `### Olympe rollout: ${escaped}`,
      '',
      '| | |',
      '|---|---|',
      '',
      `- [App (${escaped})](https://shop.example.com/%28x%29)`,
      '',
      `> last seen: version ${escaped}`,
      '',
    ])
  })
})
