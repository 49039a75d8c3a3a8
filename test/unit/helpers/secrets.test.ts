// Every leak scan of the end-to-end suites goes through test/helpers/secrets.ts: a form it does not
// look for is a leak that no suite can see.
import { describe, expect, test } from '@jest/globals'
import { findSecrets, leakForms } from '../../helpers/secrets.js'

/** Escaped as the GitHub runner reads a workflow command's message and its property values. */
const commandData = (text: string): string =>
  text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
const commandProperty = (text: string): string =>
  commandData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')

describe('findSecrets', () => {
  test('finds a secret escaped inside a JSON string', () => {
    const secret = 'pa"ss\\word\u0001-9'
    const payload = JSON.stringify({ token: secret })
    expect(payload).toBe('{"token":"pa\\"ss\\\\word\\u0001-9"}')
    expect(findSecrets({ payload }, [secret])).toEqual([
      `payload holds a form of secret 'pa"…': 'pa\\…-9'`,
    ])
  })

  test('finds a secret escaped as a workflow command message', () => {
    const secret = 'p@ss%word\r\n-9'
    const stdout = `::error::the login said ${commandData(secret)}`
    expect(stdout).toBe('::error::the login said p@ss%25word%0D%0A-9')
    expect(findSecrets({ stdout }, [secret])).toEqual([
      `stdout holds a form of secret 'p@s…': 'p@s…-9'`,
    ])
  })

  test('finds a secret escaped as a workflow command property value', () => {
    const secret = 'p@ss:word,9'
    const stdout = `::error title=${commandProperty(secret)}::the login failed`
    expect(stdout).toBe('::error title=p@ss%3Aword%2C9::the login failed')
    expect(findSecrets({ stdout }, [secret])).toEqual([
      `stdout holds a form of secret 'p@s…': 'p@s…C9'`,
    ])
  })

  test('finds a short secret escaped too, where it stands alone', () => {
    expect(findSecrets({ stdout: '{"token":"a\\"b"}' }, ['a"b'])).toHaveLength(1)
    expect(findSecrets({ stdout: '::notice title=x%3Ay::done' }, ['x:y'])).toHaveLength(1)
    expect(findSecrets({ stdout: '::notice title=ax%3Ayz::done' }, ['x:y'])).toEqual([])
  })
})

describe('leakForms', () => {
  test('adds no escaped form where escaping leaves the secret as it is', () => {
    expect(leakForms('abc')).toEqual(['abc'])
    expect(leakForms('Plain-Token-9').slice(0, 3)).toEqual([
      'Plain-Token-9',
      'PLAIN-TOKEN-9',
      'plain-token-9',
    ])
    // The rest are the three alignments of its base64, which has neither '+' nor '/'.
    expect(leakForms('Plain-Token-9')).toHaveLength(6)
  })
})
