import { describe, expect, test } from '@jest/globals'
import { realmRefusal } from '../../../../src/core/registry/token-realm.js'
import { addressKind } from '../../../../src/core/shared/address-kind.js'

const HTTP =
  ': a token service is asked over https, or over http only on the address of a registry on this machine, so it was not asked'
const refusedAt = (kind: string, host: string): string =>
  `the registry's token service is at ${kind} (${host}), which is asked only when the registry itself is on that address, so it was not asked`
const LOOPBACK = 'a loopback address (this machine)'
const UNSPECIFIED = 'an unspecified address (0.0.0.0/8 or ::, this machine)'
const LINK_LOCAL =
  'a link-local address (169.254.0.0/16 or fe80::/10, where cloud metadata services answer)'
const PRIVATE =
  'a private network address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7 or fec0::/10)'
const SHARED =
  'a shared address (100.64.0.0/10, carrier-grade NAT and some cloud metadata services)'
const METADATA = 'a cloud metadata service name'

const refusal = (realm: string, registry = 'https://registry.example.com'): string | undefined =>
  realmRefusal(new URL(realm), new URL(registry))

describe('realmRefusal: where a token service named by a registry may be asked', () => {
  test.each([
    ['a public https realm', 'https://auth.example.com/token', 'https://registry.example.com'],
    ['the registry itself', 'https://registry.example.com/token', 'https://registry.example.com'],
    ['a private registry on its own address', 'https://10.0.0.5/token', 'https://10.0.0.5:5000'],
    [
      'a loopback registry on its own address, http',
      'http://127.0.0.1:5001/t',
      'http://127.0.0.1:5000',
    ],
    [
      'a loopback registry, https elsewhere on loopback',
      'https://127.0.0.2/t',
      'http://127.0.0.1:5000',
    ],
    ['localhost, its own name', 'http://localhost:5001/t', 'http://localhost:5000'],
  ])('%s: asked', (_name, realm, registry) => {
    expect(refusal(realm, registry)).toBeUndefined()
  })

  test.each([
    [
      'another public host',
      'http://auth.example.com/token',
      'https://registry.example.com',
      'auth.example.com',
    ],
    [
      'the registry itself over https',
      'http://registry.example.com/t',
      'https://registry.example.com',
      'registry.example.com',
    ],
    [
      'another loopback address',
      'http://127.0.0.2:5001/t',
      'http://127.0.0.1:5000',
      '127.0.0.2:5001',
    ],
    [
      'another name of loopback',
      'http://localhost:5001/t',
      'http://127.0.0.1:5000',
      'localhost:5001',
    ],
    ['a private address', 'http://10.0.0.5/t', 'https://registry.example.com', '10.0.0.5'],
  ])('plain http to %s: refused', (_name, realm, registry, host) => {
    expect(refusal(realm, registry)).toBe(
      `the registry's token service is a plain http:// address (${host})${HTTP}`,
    )
  })

  test.each([
    ['127.0.0.1', LOOPBACK],
    ['127.8.9.10', LOOPBACK],
    ['localhost', LOOPBACK],
    ['registry.localhost', LOOPBACK],
    ['[::1]', LOOPBACK],
    ['0.0.0.0', UNSPECIFIED],
    ['[::]', UNSPECIFIED],
    ['169.254.169.254', LINK_LOCAL],
    ['[fe80::1]', LINK_LOCAL],
    ['[febf::1]', LINK_LOCAL],
    ['10.1.2.3', PRIVATE],
    ['172.16.0.1', PRIVATE],
    ['172.31.255.255', PRIVATE],
    ['192.168.1.1', PRIVATE],
    ['[fc00::1]', PRIVATE],
    ['[fd00:ec2::254]', PRIVATE],
    ['[fec0::1]', PRIVATE],
    ['100.64.0.1', SHARED],
    ['100.100.100.200', SHARED],
    ['100.127.255.255', SHARED],
    ['metadata.google.internal', METADATA],
    ['metadata.google.internal.', METADATA],
    ['METADATA.GOOGLE.INTERNAL', METADATA],
    ['metadata.goog', METADATA],
    ['metadata', METADATA],
    ['instance-data', METADATA],
    ['instance-data.ec2.internal', METADATA],
    // Other spellings that the URL parser turns into the addresses above.
    ['[::ffff:169.254.169.254]', LINK_LOCAL],
    ['[::ffff:a9fe:a9fe]', LINK_LOCAL],
    ['[64:ff9b::10.0.0.1]', PRIVATE],
    ['0xa9.0xfe.0xa9.0xfe', LINK_LOCAL],
    ['2852039166', LINK_LOCAL],
    ['0177.1', LOOPBACK],
  ])('https to %s: refused for a registry elsewhere', (host, kind) => {
    const realm = new URL(`https://${host}/token`)
    expect(refusal(realm.href)).toBe(refusedAt(kind, realm.host))
  })

  test('a loopback realm is refused for a registry elsewhere, asked for one on loopback', () => {
    expect(refusal('https://127.0.0.1/t')).toBe(refusedAt(LOOPBACK, '127.0.0.1'))
    expect(refusal('https://127.0.0.1/t', 'http://127.0.0.1:5000')).toBeUndefined()
    expect(refusal('https://[::1]/t', 'http://localhost:5000')).toBeUndefined()
  })

  test('a private realm is refused even for a registry on another private address', () => {
    expect(refusal('https://10.0.0.6/t', 'https://10.0.0.5')).toBe(refusedAt(PRIVATE, '10.0.0.6'))
  })
})

describe('addressKind', () => {
  test.each([
    'registry.example.com',
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.1.1',
    '192.169.0.1',
    '[2001:db8::1]',
    '[::ffff:8.8.8.8]',
    '[fe7f::1]',
    'metadata.example.com',
    'localhost.example.com',
  ])('%s is a public address, or a name this step cannot judge', (host) => {
    expect(addressKind(new URL(`https://${host}/`).hostname)).toBeUndefined()
  })

  test('what is not an address stays unjudged', () => {
    for (const text of ['[1::2::3]', '[12345::]', '[1:2:3:4:5:6:7:8:9]', '999.1.1.1', '[]'])
      expect(addressKind(text)).toBeUndefined()
  })
})
