import { inputSecrets } from '../../../../src/core/shared/input-secrets.js'
import { describe, expect, test } from '@jest/globals'
import { deployDefinition } from '../../../../src/core/deploy/definition.js'
import {
  MIN_SECRET_LENGTH,
  base64Forms,
  embeddedPasswords,
  leakForms,
  shortSecretInputs,
} from '../../../../src/core/shared/secrets.js'

const SECRET = 'p@ss/Word-9x'

describe('leakForms', () => {
  test('holds the raw, trimmed, percent-encoded and -decoded, upper- and lower-case forms', () => {
    const forms = leakForms(` ${SECRET}`)
    for (const form of [
      ` ${SECRET}`,
      SECRET,
      'p%40ss%2FWord-9x',
      'P%40SS%2FWORD-9X',
      'p%40ss%2fword-9x',
      'P@SS/WORD-9X',
      'p@ss/word-9x',
    ])
      expect(forms).toContain(form)
    expect(leakForms('tok%2Ben-1234')).toContain('tok+en-1234')
  })

  test.each([0, 1, 2, 3, 4, 5, 7])(
    'finds the secret in base64 after a %i-byte prefix, with any suffix',
    (prefix) => {
      for (const suffix of ['', ':', 'ab', '@registry.example.com']) {
        const encoded = Buffer.from(`${'u'.repeat(prefix)}${SECRET}${suffix}`).toString('base64')
        const urlSafe = encoded.replace(/\+/g, '-').replace(/\//g, '_')
        expect(leakForms(SECRET).some((form) => encoded.includes(form))).toBe(true)
        expect(leakForms(SECRET).some((form) => urlSafe.includes(form))).toBe(true)
      }
    },
  )

  test('base64 forms leave out the characters shared with the bytes around the secret', () => {
    // 'abcdef' is two whole groups at offset 0; at offsets 1 and 2 the edges are cut:
    // base64('x' + 'abcdef') = eG|FiY2RlZ|g==, base64('u:' + 'abcdef') = dTp|hYmNkZW|Y=.
    expect(base64Forms('abcdef')).toEqual(['YWJjZGVm', 'FiY2RlZ', 'hYmNkZW'])
  })

  test('a short secret has only its raw forms: its encodings would hide ordinary text', () => {
    expect(leakForms('abc')).toEqual(['abc'])
    expect(leakForms(' ab ')).toEqual([' ab ', 'ab'])
    expect(leakForms('')).toEqual([])
  })

  test(`no form but the secret itself is shorter than ${MIN_SECRET_LENGTH} characters`, () => {
    for (const secret of ['abcdef', 'x'.repeat(7), 'é€xyz1', 'a b c d'])
      for (const form of leakForms(secret).filter((f) => f !== secret))
        expect(form.length).toBeGreaterThanOrEqual(MIN_SECRET_LENGTH)
  })
})

describe('shortSecretInputs', () => {
  test('names the secret inputs shorter than the minimum, not the others', () => {
    expect(
      shortSecretInputs(deployDefinition, {
        'webhook-token': 'abc',
        'webhook-url': 'https://hooks.example.com/x',
        'frontend-image': 'a',
      }),
    ).toEqual(['webhook-token'])
    expect(shortSecretInputs(deployDefinition, { 'webhook-token': '' })).toEqual([])
    expect(shortSecretInputs(deployDefinition, { 'webhook-token': ' abcd ' })).toEqual([
      'webhook-token',
    ])
  })
})

describe('embeddedPasswords', () => {
  test.each([
    ['ci:Reg-pass-1@ghcr.io', ['Reg-pass-1']],
    ['ghcr.io\nrobot:tok3n-9@ghcr.io/acme', ['tok3n-9']],
    ['shop/frontend:1@sha256:' + 'a'.repeat(64), []],
    ['reg.example.com:5000/shop/frontend:1', []],
    ['source: a@b', []],
    ['bot@example.com', []],
  ])('%j', (value, expected) => {
    expect(embeddedPasswords(value)).toEqual(expected)
  })

  test('inputSecrets masks a password written into an input that is not secret', () => {
    expect(
      inputSecrets(deployDefinition, {
        'webhook-token': 'tok-123456',
        'frontend-image': 'ci:Reg-pass-1@reg.example.com/shop/frontend:1',
        'payload-file': 'https://ci:p%40ss-12@files.example.com/p.json',
      }),
    ).toEqual([
      'tok-123456',
      'Reg-pass-1',
      'p%40ss-12',
      'p@ss-12',
      'ci:p%40ss-12',
      'ci:p@ss-12',
      Buffer.from('ci:p@ss-12').toString('base64'),
    ])
  })
})
