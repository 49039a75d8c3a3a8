import { describe, expect, test } from '@jest/globals'
import {
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

  test('a refusal never shows the credentials it was given', () => {
    const found = parseMirrors('docker.io=https://robot:s3cret-pass@registry.internal/hub')
    expect(JSON.stringify(found)).not.toMatch(/robot|s3cret/)
  })
})

describe('mirrorSecrets: the forms of user:password@ given with a mirror', () => {
  test.each<[string, string, string[]]>([
    ['none', 'docker.io=registry.internal/hub', []],
    [
      'user and password',
      'docker.io=robot:s3cret-pass@registry.internal/hub',
      ['s3cret-pass', 'robot', Buffer.from('robot:s3cret-pass').toString('base64')],
    ],
    [
      'with a scheme, percent-encoded',
      'docker.io=https://robot:p%40ss-word@registry.internal/hub',
      ['p%40ss-word', 'p@ss-word', 'robot', Buffer.from('robot:p@ss-word').toString('base64')],
    ],
    ['a short user name alone is left out', 'docker.io=ci@registry.internal', []],
  ])('%s', (_name, raw, secrets) => {
    expect(mirrorSecrets(raw)).toEqual(secrets)
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
