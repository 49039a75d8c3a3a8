import { describe, expect, test } from '@jest/globals'
import { withDefaults } from '../../../../src/core/definition.js'
import { insecureAppWarning, parseAppUrl } from '../../../../src/core/deploy/app-url.js'
import { deployDefinition, type DeployInputName } from '../../../../src/core/deploy/definition.js'
import { parseDeployInputs } from '../../../../src/core/deploy/inputs.js'
import { secretsIn } from '../../../../src/core/shared/input-secrets.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { Redactor } from '../../../../src/core/shared/redactor.js'

describe('app-url', () => {
  test.each([
    ['https://shop.example.com', 'https://shop.example.com'],
    ['https://shop.example.com/', 'https://shop.example.com'],
    ['https://Shop.Example.com:443/app/', 'https://shop.example.com/app'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
  ])('%s: asked at %s', (raw, shown) => {
    const target = parseAppUrl(raw)
    expect(target).toEqual({
      url: new URL(raw),
      shown,
      versionUrl: new URL(`${shown}/version.json`),
      statusUrl: new URL(`${shown}/OlympeServer/status`),
      insecure: false,
    })
  })

  test('credentials become Basic auth, percent-decoded, and leave the shown address', () => {
    const target = parseAppUrl('https://preview:pa%40ss%20w@shop.example.com')
    expect(target).toMatchObject({
      shown: 'https://shop.example.com',
      url: new URL('https://shop.example.com'),
      credentials: { userInfo: 'preview:pa%40ss%20w', user: 'preview', password: 'pa@ss w' },
      authorization: `Basic ${Buffer.from('preview:pa@ss w').toString('base64')}`,
    })
    if (isProblem(target)) throw new Error('refused')
    for (const shown of [
      target.shown,
      target.url.href,
      target.versionUrl.href,
      target.statusUrl.href,
    ])
      expect(shown).not.toContain('pa')
  })

  // The user part runs to the last '@'; what other tools would read as the end of the host is
  // refused, never quoted, and asked for percent-encoded. Whether it parses or not, every form
  // of the password is masked.
  test.each<[string, string | undefined]>([
    ['Ab3/kLm9+Qz7', "holds '/' in its user name or password (before the '@')"],
    ['4711/8833', "holds '/' in its user name or password (before the '@')"],
    ['p@ss@w0rd-1', undefined],
    ['pa:ss:w0rd', undefined],
    ['s3cr#t-99x', "holds '#' in its user name or password (before the '@')"],
    ['wh?t-0ver', "holds '?' in its user name or password (before the '@')"],
    ['100%25-sure', undefined],
    ['99887766', undefined],
    ['a/b?c#d', "holds '/', '?', '#' in its user name or password (before the '@')"],
  ])('a password %j: %s', (password, refused) => {
    const raw = `https://ci-user:${password}@preview.example.com`
    const target = parseAppUrl(raw)
    if (refused === undefined) {
      if (isProblem(target)) throw new Error(target.problem)
      expect(target.shown).toBe('https://preview.example.com')
      expect(target.credentials?.password).toBe(
        decodeURIComponent(password.replace(/%(?![0-9A-F]{2})/g, '%25')),
      )
    } else {
      expect(isProblem(target) && target.problem).toContain(refused)
      expect(JSON.stringify(target)).not.toContain(password)
    }
    const redactor = new Redactor()
    for (const secret of secretsIn(deployDefinition.inputs['app-url'], raw, {}))
      redactor.add(secret)
    expect(redactor.redact(`app-url: ${raw}`)).not.toContain(password)
  })

  test('plain http to another machine: a warning, louder with a password', () => {
    const open = parseAppUrl('http://shop.example.com')
    const locked = parseAppUrl('http://u:p4ssword@shop.example.com')
    if (isProblem(open) || isProblem(locked)) throw new Error('refused')
    expect(insecureAppWarning(open)).toBe(
      "'app-url' is a plain http:// address (http://shop.example.com): the answers of the app can be read or changed on the way.",
    )
    expect(insecureAppWarning(locked)).toBe(
      "'app-url' is a plain http:// address (http://shop.example.com): the answers of the app can be read or changed on the way, and its user name and password travel in clear: use https:// for a protected app.",
    )
    const loopback = parseAppUrl('http://localhost:3000')
    if (isProblem(loopback)) throw new Error('refused')
    expect(insecureAppWarning(loopback)).toBeUndefined()
  })

  const parse = (raw: Partial<Record<DeployInputName, string>>): unknown =>
    parseDeployInputs(
      withDefaults(deployDefinition, {
        'webhook-url': 'https://deploy.example.com/hooks/abc',
        'webhook-token': 'tok-3f9a7c1e5b',
        ...raw,
      }),
    )

  test.each([
    [
      'shop.example.com',
      "Invalid input 'app-url' 'shop.example.com': expected the app's address, an absolute https:// URL such as 'https://shop.example.com'.",
    ],
    [
      'ftp://shop.example.com',
      "Invalid input 'app-url' 'ftp://shop.example.com': expected an https:// (or http://) address such as 'https://shop.example.com', not a 'ftp:' one.",
    ],
    [
      'https://shop.example.com/?preview=1',
      "Invalid input 'app-url' 'https://shop.example.com/?preview=1': holds a query or a fragment; give the address the app is served at, such as 'https://shop.example.com' (version.json and OlympeServer/status are asked below it).",
    ],
    [
      'https://shop.example.com/#/home',
      "Invalid input 'app-url' 'https://shop.example.com/#/home': holds a query or a fragment; give the address the app is served at, such as 'https://shop.example.com' (version.json and OlympeServer/status are asked below it).",
    ],
    [
      'https://shop.example .com',
      "Invalid input 'app-url' 'https://shop.example .com': contains a space, a line break or a control character; give the app's address alone, such as 'https://shop.example.com'.",
    ],
  ])('%j is refused', (raw, message) => {
    expect(() => parse({ 'app-url': raw })).toThrow(message)
  })

  test('expected-version, wait-minutes and poll-seconds', () => {
    expect(parse({})).toMatchObject({ waitMinutes: 30, pollSeconds: 15 })
    expect(
      parse({ 'wait-minutes': '0.5', 'poll-seconds': '1', 'expected-version': '1.4.0+b7' }),
    ).toMatchObject({
      waitMinutes: 0.5,
      pollSeconds: 1,
      expectedVersion: '1.4.0+b7',
    })
    expect(parse({ 'wait-minutes': '0' })).toMatchObject({ waitMinutes: 0 })
    expect(() => parse({ 'wait-minutes': '361' })).toThrow(
      "Invalid input 'wait-minutes' '361': expected a number of minutes from 0 to 360, such as 30 (decimals allowed: 0.5 is 30 seconds; 0 does not watch).",
    )
    expect(() => parse({ 'wait-minutes': '-1' })).toThrow("Invalid input 'wait-minutes' '-1'")
    expect(() => parse({ 'poll-seconds': '0' })).toThrow(
      "Invalid input 'poll-seconds' '0': expected a whole number from 1 to 600.",
    )
    expect(() => parse({ 'expected-version': '1.4 beta' })).toThrow(
      "Invalid input 'expected-version' '1.4 beta': expected a version as the app's version.json holds it, such as '1.4.0' (visible ASCII characters, no spaces, at most 128).",
    )
  })
})

describe('the secrets of app-url, from its specification', () => {
  const secretsOf = (raw: string): string[] =>
    secretsIn(deployDefinition.inputs['app-url'], raw, {})

  test('the password and the whole user part, raw and decoded, and their Basic value; not the address', () => {
    const raw = 'https://preview-user:pa%40ss-9z@shop.example.com'
    expect(secretsOf(raw)).toEqual([
      'pa%40ss-9z',
      'pa@ss-9z',
      'preview-user:pa%40ss-9z',
      'preview-user:pa@ss-9z',
      Buffer.from('preview-user:pa@ss-9z').toString('base64'),
    ])
    const redactor = new Redactor()
    for (const secret of secretsOf(raw)) redactor.add(secret)
    expect(redactor.redact(`app-url: ${raw}`)).toBe('app-url: https://***@shop.example.com')
  })

  test('the user name alone is no secret; no credentials, no secrets', () => {
    expect(secretsOf('https://ci:s3cret-pw@shop.example.com')).not.toContain('ci')
    expect(secretsOf('https://shop.example.com')).toEqual([])
    expect(secretsOf('not a url')).toEqual([])
  })

  test('messages and the Inputs group show the address without its user part', () => {
    expect(() =>
      parseDeployInputs(
        withDefaults(deployDefinition, {
          'webhook-url': 'https://deploy.example.com/hooks/abc',
          'webhook-token': 'tok-3f9a7c1e5b',
          'app-url': 'https://ci-user:4711/8833@preview.example.com',
        }),
      ),
    ).toThrow(
      "Invalid input 'app-url' 'https://***@preview.example.com': holds '/' in its user name or password (before the '@'), where a URL parser reads the end of the host; write it percent-encoded ('/' as %2F).",
    )
  })
})
