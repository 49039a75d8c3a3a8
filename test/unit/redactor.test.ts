import { describe, expect, test } from '@jest/globals'
import { webhookUrlSecrets } from '../../src/core/deploy/secrets.js'
import { Redactor } from '../../src/core/shared/redactor.js'

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

describe('webhookUrlSecrets', () => {
  test('the whole URL, its credentials and a token-bearing path', () => {
    const secrets = webhookUrlSecrets(
      'https://user:pa%24s@hooks.example.com/deploy/9f8e7d6c5b?sig=abc',
    )
    expect(secrets).toEqual(
      expect.arrayContaining([
        'https://user:pa%24s@hooks.example.com/deploy/9f8e7d6c5b?sig=abc',
        'user',
        'pa%24s',
        'pa$s',
        '/deploy/9f8e7d6c5b?sig=abc',
      ]),
    )
  })

  test('an unparseable URL gives nothing to mask but itself (registered as the input)', () => {
    expect(webhookUrlSecrets('not a url')).toEqual([])
  })
})
