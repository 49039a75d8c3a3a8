import { describe, expect, test } from '@jest/globals'
import { webhookUrlSecrets } from '../../../../src/core/deploy/secrets.js'

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
