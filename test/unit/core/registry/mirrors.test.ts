import { describe, expect, test } from '@jest/globals'
import {
  mirrorCredentials,
  mirrorSecrets,
  mirroredReference,
  parseMirrors,
  registryShown,
  resolvedImage,
  type RegistryMirror,
} from '../../../../src/core/registry/mirrors.js'

const EXPECTED =
  "expected one 'registry=mirror' per line, such as 'docker.io=registry.internal/dockerhub' (a path after the mirror's host allowed)"
const HUB: RegistryMirror = {
  registry: 'docker.io',
  location: 'registry.internal/dockerhub',
  host: 'registry.internal',
}

describe('parseMirrors: one registry=mirror per line', () => {
  test.each<[string, string, RegistryMirror[]]>([
    ['none', '', []],
    ['Docker Hub under a path', 'docker.io=registry.internal/dockerhub', [HUB]],
    [
      "Docker Hub's aliases are Docker Hub",
      'index.docker.io = registry.internal/dockerhub\n',
      [HUB],
    ],
    [
      'several, with a port and blank lines',
      'docker.io=registry.internal/dockerhub\n\n  ghcr.io=127.0.0.1:5000/ghcr  \n',
      [HUB, { registry: 'ghcr.io', location: '127.0.0.1:5000/ghcr', host: '127.0.0.1:5000' }],
    ],
    [
      'a mirror without a path',
      'quay.io=mirror.example:8443',
      [{ registry: 'quay.io', location: 'mirror.example:8443', host: 'mirror.example:8443' }],
    ],
  ])('%s', (_name, raw, expected) => {
    expect(parseMirrors(raw)).toEqual(expected)
  })

  test.each([
    ['no =', 'docker.io registry.internal', `line 1 is not registry=mirror; ${EXPECTED}`],
    ['no registry', '=registry.internal', `line 1 names no registry before the \`=\`; ${EXPECTED}`],
    ['no mirror', 'docker.io=', `line 1 names no mirror after the \`=\`; ${EXPECTED}`],
    [
      'a registry with a path',
      'docker.io/library=registry.internal',
      `line 1 names 'docker.io/library' as the registry it serves, which is not a registry host (such as 'docker.io', 'ghcr.io' or 'registry.example.com:5000', without a path); ${EXPECTED}`,
    ],
    [
      'a mirror with a scheme',
      'docker.io=https://registry.internal/hub',
      `line 1 gives the mirror 'https://registry.internal/hub' with a scheme; give its host and path alone (https is used, plain http only on this machine's loopback); ${EXPECTED}`,
    ],
    [
      'a mirror with credentials, on line 2',
      'ghcr.io=m.example\ndocker.io=ci:s3cret-pass@registry.internal/hub',
      `line 2 gives the mirror with credentials ('user:password@host'), which would show in logs and in the builder's configuration: remove them (a mirror on the host of 'registry' is read with 'registry-username' and 'registry-password', any other anonymously or with the runner's own login); ${EXPECTED}`,
    ],
    [
      'a registry twice',
      'docker.io=a.example\nindex.docker.io=b.example',
      "line 2 names the registry 'docker.io' again; expected each registry once",
    ],
    ['itself', 'ghcr.io=ghcr.io', `line 1 gives 'ghcr.io' itself as its mirror; ${EXPECTED}`],
    [
      'a mirror that is no host',
      'docker.io=registry internal',
      "line 1 is not a registry host; expected a registry host with an optional port and namespace, such as 'ghcr.io', 'registry.example.com:5000' or 'ghcr.io/acme' (no scheme, no tag)",
    ],
  ])('%s is refused', (_name, raw, problem) => {
    expect(parseMirrors(raw)).toEqual({ problem })
  })

  const SERVED_CREDENTIALS =
    "gives the registry it serves with credentials ('user:password@host'), which would show in logs: remove them (that registry is only named here: its images are read from the mirror)"
  const MIRROR_CREDENTIALS =
    "gives the mirror with credentials ('user:password@host'), which would show in logs and in the builder's configuration: remove them (a mirror on the host of 'registry' is read with 'registry-username' and 'registry-password', any other anonymously or with the runner's own login)"
  test.each([
    [
      'before the registry it serves, with a scheme',
      'https://bob:s3cret@docker.io=registry.internal/hub',
      `line 1 ${SERVED_CREDENTIALS}; ${EXPECTED}`,
      ['bob', 's3cret'],
    ],
    [
      "with a password that holds the '='",
      'robot:t0p=s3cret@registry.internal',
      `line 1 ${MIRROR_CREDENTIALS}; ${EXPECTED}`,
      ['robot', 't0p', 's3cret'],
    ],
  ])('credentials %s are refused, no part of them quoted', (_name, raw, problem, parts) => {
    const found = parseMirrors(raw)
    expect(found).toEqual({ problem })
    for (const part of parts) expect(JSON.stringify(found)).not.toContain(part)
  })

  test('a refusal never shows the credentials it was given', () => {
    const found = parseMirrors('docker.io=https://robot:s3cret-pass@registry.internal/hub')
    expect(JSON.stringify(found)).not.toMatch(/robot|s3cret/)
  })
})

describe('mirrorSecrets: the forms of user:password@ given with a mirror, as for any address', () => {
  const basic = (userInfo: string): string => Buffer.from(userInfo).toString('base64')
  test.each<[string, string, string[]]>([
    ['none', 'docker.io=registry.internal/hub', []],
    [
      'user and password: the password, the user part, its Basic form; not the user name alone',
      'docker.io=robot:s3cret-pass@registry.internal/hub',
      ['s3cret-pass', 'robot:s3cret-pass', basic('robot:s3cret-pass')],
    ],
    [
      'with a scheme, percent-encoded',
      'docker.io=https://robot:p%40ss-word@registry.internal/hub',
      [
        'p%40ss-word',
        'p@ss-word',
        'robot:p%40ss-word',
        'robot:p@ss-word',
        basic('robot:p@ss-word'),
      ],
    ],
    [
      "a password that holds '@' and '=': up to the line's last '@'",
      'ghcr.io=registry.internal/ghcr\ndocker.io=robot:a@b=c@registry.internal/hub',
      ['a@b=c', 'robot:a@b=c', basic('robot:a@b=c')],
    ],
    [
      'a token alone',
      'docker.io=tok3n-value@registry.internal',
      ['tok3n-value', basic('tok3n-value:')],
    ],
    [
      'before the registry it serves',
      'https://bob:s3cret@docker.io=registry.internal/hub',
      ['s3cret', 'bob:s3cret', basic('bob:s3cret')],
    ],
    [
      "a password that holds the '=' the line is cut at",
      'robot:t0p=s3cret@registry.internal',
      ['t0p=s3cret', 'robot:t0p=s3cret', basic('robot:t0p=s3cret')],
    ],
  ])('%s', (_name, raw, secrets) => {
    expect(mirrorSecrets(raw)).toEqual(secrets)
  })
})

describe("mirrorCredentials.shown: each line's user part as '***'", () => {
  test.each<[string, string]>([
    ['docker.io=registry.internal/hub', 'docker.io=registry.internal/hub'],
    ['docker.io=robot:s3cret@registry.internal/hub', 'docker.io=***@registry.internal/hub'],
    ['docker.io=https://robot:a@b=c@registry.internal', 'docker.io=https://***@registry.internal'],
    [
      'https://bob:s3cret@docker.io=registry.internal/hub',
      'https://***@docker.io=registry.internal/hub',
    ],
    ['robot:t0p=s3cret@registry.internal', '***@registry.internal'],
    [
      'ghcr.io=registry.internal/ghcr\ndocker.io = tok3n@registry.internal',
      'ghcr.io=registry.internal/ghcr\ndocker.io = ***@registry.internal',
    ],
  ])('%s', (raw, shown) => {
    expect(mirrorCredentials.shown(raw)).toBe(shown)
  })
})

describe('mirroredReference: where a mirror serves an image', () => {
  const mirrors = [HUB, { registry: 'ghcr.io', location: '127.0.0.1:5000', host: '127.0.0.1:5000' }]
  test.each<[string, string | undefined]>([
    ['olympeio/frontend-base:latest', 'registry.internal/dockerhub/olympeio/frontend-base:latest'],
    ['node:20', 'registry.internal/dockerhub/library/node:20'],
    ['node', 'registry.internal/dockerhub/library/node:latest'],
    ['docker.io/library/node:20', 'registry.internal/dockerhub/library/node:20'],
    [
      `olympeio/backend-base@sha256:${'a'.repeat(64)}`,
      `registry.internal/dockerhub/olympeio/backend-base@sha256:${'a'.repeat(64)}`,
    ],
    ['ghcr.io/acme/base:1', '127.0.0.1:5000/acme/base:1'],
    ['quay.io/acme/base:1', undefined],
    ['NOT A REFERENCE', undefined],
  ])('%s → %s', (reference, expected) => {
    expect(mirroredReference(reference, mirrors)).toBe(expected)
  })

  test('no mirror, no change', () => {
    expect(mirroredReference('node:20', [])).toBeUndefined()
  })
})

describe('resolvedImage: the registry API an image is read at', () => {
  test('at its mirror, the reference kept, the registry it stands for named', () => {
    expect(resolvedImage('olympeio/frontend-base:latest', [HUB])).toEqual({
      reference: 'olympeio/frontend-base:latest',
      registry: 'registry.internal',
      origin: 'https://registry.internal',
      repository: 'dockerhub/olympeio/frontend-base',
      lookup: 'latest',
      mirrorOf: 'docker.io',
    })
  })

  test('on loopback, over plain http; a digest stays pinned', () => {
    const digest = `sha256:${'b'.repeat(64)}`
    const mirror = { registry: 'docker.io', location: '127.0.0.1:5000/hub', host: '127.0.0.1:5000' }
    expect(resolvedImage(`node@${digest}`, [mirror])).toMatchObject({
      origin: 'http://127.0.0.1:5000',
      repository: 'hub/library/node',
      lookup: digest,
      pinned: digest,
    })
  })

  test('without a mirror, where its name says', () => {
    expect(resolvedImage('ghcr.io/acme/x:1', [HUB])).toEqual({
      reference: 'ghcr.io/acme/x:1',
      registry: 'ghcr.io',
      origin: 'https://ghcr.io',
      repository: 'acme/x',
      lookup: '1',
    })
  })

  test('messages name a mirror by what it serves', () => {
    expect(registryShown({ registry: 'registry.internal', mirrorOf: 'docker.io' })).toBe(
      "'registry.internal' (the mirror of 'docker.io' in 'registry-mirrors')",
    )
    expect(registryShown({ registry: 'ghcr.io' })).toBe("'ghcr.io'")
  })
})
