import { describe, expect, test } from '@jest/globals'
import {
  credentialForms,
  parseCredentialUrl,
  userAndPassword,
} from '../../../../src/core/shared/url-credentials.js'

describe('a user part, split at its first colon', () => {
  test.each([
    ['ghp_token', { user: 'ghp_token', password: '' }],
    ['ci:s3cr:et', { user: 'ci', password: 's3cr:et' }],
    [':only-password', { user: '', password: 'only-password' }],
    ['ci:', { user: 'ci', password: '' }],
  ])('%s', (userInfo, split) => {
    expect(userAndPassword(userInfo)).toEqual(split)
  })

  test('the address keeps them decoded; the forms to mask are the secret part, never the user name alone', () => {
    const parsed = parseCredentialUrl('https://ci:p%40ss:w@app.example.com/x')
    expect(parsed).toMatchObject({
      credentials: { userInfo: 'ci:p%40ss:w', user: 'ci', password: 'p@ss:w' },
    })
    expect(credentialForms('ci:p%40ss:w')).toEqual([
      'p%40ss:w',
      'p@ss:w',
      'ci:p%40ss:w',
      'ci:p@ss:w',
      Buffer.from('ci:p@ss:w').toString('base64'),
    ])
    expect(credentialForms('ghp_token')).toContain('ghp_token')
    // A user name with an empty password: only the `Basic` value git would send for it.
    expect(credentialForms('ci:')).toEqual([Buffer.from('ci:').toString('base64')])
  })
})
