import { describe, expect, test } from '@jest/globals'
import { Redactor } from '../../../../src/core/shared/redactor.js'

const b64 = (text: string): string => Buffer.from(text).toString('base64')

describe('Redactor', () => {
  test.each([
    ['a plain secret', ['s3cr3t-token'], 'token=s3cr3t-token end', 'token=*** end'],
    ['its URL-encoded form', ['p@ss/w:rd'], 'https://u:p%40ss%2Fw%3Ard@h/', 'https://u:***@h/'],
    [
      'its percent-decoded form',
      ['tok%2Ben%2F42'],
      'Location: https://h/?t=tok+en/42',
      'Location: https://h/?t=***',
    ],
    [
      'a secret inside another, longest first',
      ['abcdef', 'abcdefghij'],
      'x abcdefghij y abcdef',
      'x *** y ***',
    ],
    ['every occurrence', ['zzzzzz'], 'zzzzzz zzzzzz', '*** ***'],
    ['its upper-case form', ['draw-pass-42'], 'PASSWORD=DRAW-PASS-42', 'PASSWORD=***'],
    ['its lower-case form', ['Draw-Pass-42'], 'password=draw-pass-42', 'password=***'],
    ['nothing registered', [], 'as is', 'as is'],
    ['empty secrets are ignored', [''], 'as is', 'as is'],
  ])('masks %s', (_name, secrets, text, expected) => {
    const redactor = new Redactor()
    for (const secret of secrets) redactor.add(secret)
    expect(redactor.redact(text)).toBe(expected)
  })

  test.each([
    ['basic auth of user:password', (s: string) => `Authorization: Basic ${b64(`ci:${s}`)}`],
    ['a docker config auth', (s: string) => `{"auth":"${b64(`robot$ci:${s}`)}"}`],
    ['base64 with text after the secret', (s: string) => b64(`user:${s}:more`)],
    ['base64 of the secret alone', (s: string) => b64(s)],
  ])('masks a password inside %s at every alignment', (_name, leak) => {
    for (const secret of ['registry-pass-1', 'registry-pass-12', 'registry-pass-123']) {
      const redactor = new Redactor()
      redactor.add(secret)
      const text = leak(secret)
      const masked = redactor.redact(text)
      expect(masked).toContain('***')
      // What is left around the mask is at most the few characters shared with other bytes.
      expect(masked.replace(/[^A-Za-z0-9+/=]/g, '').length).toBeLessThan(
        text.replace(/[^A-Za-z0-9+/=]/g, '').length - secret.length,
      )
    }
  })

  test('a short secret is masked where it stands alone, not inside longer words', () => {
    const redactor = new Redactor()
    redactor.add('abc')
    expect(redactor.redact('password=abc, user abc: abcdef xabc abc-x x_abc "abc". abc')).toBe(
      'password=***, user ***: abcdef xabc abc-x x_abc "***". ***',
    )
  })

  test('a value registered both as a short secret and inside a long one is masked everywhere', () => {
    const redactor = new Redactor()
    redactor.add('tok-1')
    redactor.add('tok-1-extended')
    expect(redactor.redact('tok-1-extended and tok-1')).toBe('*** and ***')
  })
})
