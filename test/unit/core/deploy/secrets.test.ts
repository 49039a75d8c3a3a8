import { describe, expect, test } from '@jest/globals'
import { deployDefinition } from '../../../../src/core/deploy/definition.js'
import { looksLikeToken } from '../../../../src/core/deploy/secrets.js'
import { secretsIn } from '../../../../src/core/shared/input-secrets.js'
import { Redactor } from '../../../../src/core/shared/redactor.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

/** The secrets of `webhook-url`, as the platform reads them from its specification. */
const webhookUrlSecrets = (url: string): string[] =>
  secretsIn(deployDefinition.inputs['webhook-url'], url, {})

/** What a text becomes once every secret of the URL is registered, as the platform does. */
function redactedBy(url: string, text: string): string {
  const redactor = new Redactor()
  for (const secret of webhookUrlSecrets(url)) redactor.add(secret)
  return redactor.redact(text)
}

describe('webhookUrlSecrets', () => {
  test('the whole URL, its credentials and a token-bearing path, raw and decoded', () => {
    const secrets = webhookUrlSecrets(
      'https://user:pa%24s@hooks.example.com/deploy/9f8e7d6c5b?sig=abc',
    )
    expect(secrets).toEqual(
      expect.arrayContaining([
        'https://user:pa%24s@hooks.example.com/deploy/9f8e7d6c5b?sig=abc',
        'user',
        'pa%24s',
        'pa$s',
        '/deploy/9f8e7d6c5b',
        '/deploy/9f8e7d6c5b?sig=abc',
        '9f8e7d6c5b',
      ]),
    )
  })

  test('ordinary words are never masked alone', () => {
    const secrets = webhookUrlSecrets('https://hooks.example.com/api/v1/deploy?env=production')
    for (const word of ['api', 'v1', 'deploy', 'hooks', 'env', 'production', '/deploy'])
      expect(secrets).not.toContain(word)
  })

  test('query values, the fragment and token-like segments, as written and percent-decoded', () => {
    const url = 'https://h.example/hooks/t0k%2Fen-5e6f7a8b?token=a1b2c3d4e5%3D%3D&x=1#frag-9f8e7d6c'
    const secrets = webhookUrlSecrets(url)
    expect(secrets).toEqual(
      expect.arrayContaining([
        't0k%2Fen-5e6f7a8b',
        't0k/en-5e6f7a8b',
        'a1b2c3d4e5%3D%3D',
        'a1b2c3d4e5==',
        'frag-9f8e7d6c',
      ]),
    )
    expect(secrets).not.toContain('1')
    expect(secrets).not.toContain('token')
  })

  test('a server echoing a secret part back, decoded, is masked', () => {
    const url = 'https://h.example/hooks/a%20b-5e6f7a8b9c'
    expect(redactedBy(url, 'no hook named a b-5e6f7a8b9c here')).toBe('no hook named *** here')
  })

  test('the word deploy in the path does not garble deployRules', () => {
    const url = 'https://h.example/deploy'
    const payload = '{"backends":{"images":["r.io/a:1"],"deployRules":[{"source":".*"}]}}'
    expect(redactedBy(url, payload)).toBe(payload)
    expect(redactedBy(`${url}/x9y8z7w6v5`, payload)).toBe(payload)
  })

  test('an unparseable URL is masked whole, with what looks like credentials in it', () => {
    expect(webhookUrlSecrets('not a url')).toEqual(['not a url'])
    expect(webhookUrlSecrets('https://u:4711/8833@hooks.example.com/x')).toEqual(
      expect.arrayContaining([
        'https://u:4711/8833@hooks.example.com/x',
        '4711/8833',
        'u:4711/8833',
      ]),
    )
  })
})

describe('looksLikeToken', () => {
  eachAnswer('%j is a token: %s', looksLikeToken, [
    ...[
      '5e6f7a8b9c0d',
      's3cr3t-k3y',
      'pa$$word',
      'abcdefghijklmnopqrstuvwxyz',
      'a1b2c3d4',
      'ZGVwbG95OnRva2Vu',
    ].map((part) => [part, true] as const),
    ...[
      'deploy',
      'hooks',
      'api',
      'v1',
      'webhooks',
      'api-v1',
      'production',
      'deploy-key',
      'a1b2c3',
    ].map((part) => [part, false] as const),
  ])
})
