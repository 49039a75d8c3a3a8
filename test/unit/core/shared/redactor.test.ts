import { describe, expect, test } from '@jest/globals'
import { Redactor } from '../../../../src/core/shared/redactor.js'

describe('Redactor', () => {
  test.each([
    ['a plain secret', ['s3cr3t-token'], 'token=s3cr3t-token end', 'token=*** end'],
    ['its URL-encoded form', ['p@ss/w:rd'], 'https://u:p%40ss%2Fw%3Ard@h/', 'https://u:***@h/'],
    [
      'a secret inside another, longest first',
      ['abcd', 'abcdefgh'],
      'x abcdefgh y abcd',
      'x *** y ***',
    ],
    ['every occurrence', ['zzzz'], 'zzzz zzzz', '*** ***'],
    ['nothing registered', [], 'as is', 'as is'],
    ['empty secrets are ignored', [''], 'as is', 'as is'],
  ])('masks %s', (_name, secrets, text, expected) => {
    const redactor = new Redactor()
    for (const secret of secrets) redactor.add(secret)
    expect(redactor.redact(text)).toBe(expected)
  })
})
