import { describe, expect, test } from '@jest/globals'
import {
  buildArgv,
  imageSizeArgv,
  loginArgv,
  majorVersion,
  parsePushDigest,
  parseVersions,
  pushArgv,
  versionArgv,
  type BuildCommand,
} from '../../../../src/core/build-images/docker-args.js'

const base: BuildCommand = {
  dockerfile: '/p/docker/frontend.Dockerfile',
  context: '/p',
  sourcesPath: 'dist/web',
  tags: ['r.io/shop/frontend:main-1a2b3c4'],
  buildArgs: [],
  labels: [],
  cacheFrom: [],
}

describe('docker command lines', () => {
  test.each<[string, BuildCommand, string[]]>([
    [
      'minimal',
      base,
      [
        'build',
        '--file',
        '/p/docker/frontend.Dockerfile',
        '--build-arg',
        'SOURCES_PATH=dist/web',
        '--tag',
        'r.io/shop/frontend:main-1a2b3c4',
        '/p',
      ],
    ],
    [
      'everything',
      {
        ...base,
        tags: ['r.io/f:a', 'r.io/f:latest'],
        buildArgs: [
          ['NODE_ENV', 'production'],
          ['EMPTY', ''],
          ['SPACED', 'a b=c'],
        ],
        labels: [
          ['draw_version', '2.11.3'],
          ['org.opencontainers.image.revision', 'abc'],
        ],
        platform: 'linux/arm64',
        cacheFrom: ['r.io/f:main', 'type=registry,ref=r.io/f:cache'],
      },
      [
        'build',
        '--file',
        '/p/docker/frontend.Dockerfile',
        '--build-arg',
        'SOURCES_PATH=dist/web',
        '--build-arg',
        'NODE_ENV=production',
        '--build-arg',
        'EMPTY=',
        '--build-arg',
        'SPACED=a b=c',
        '--label',
        'draw_version=2.11.3',
        '--label',
        'org.opencontainers.image.revision=abc',
        '--tag',
        'r.io/f:a',
        '--tag',
        'r.io/f:latest',
        '--platform',
        'linux/arm64',
        '--cache-from',
        'r.io/f:main',
        '--cache-from',
        'type=registry,ref=r.io/f:cache',
        '/p',
      ],
    ],
    [
      'a context path with spaces stays one argument',
      { ...base, context: '/my project', dockerfile: '/my project/docker/x.Dockerfile' },
      [
        'build',
        '--file',
        '/my project/docker/x.Dockerfile',
        '--build-arg',
        'SOURCES_PATH=dist/web',
        '--tag',
        'r.io/shop/frontend:main-1a2b3c4',
        '/my project',
      ],
    ],
  ])('build: %s', (_name, command, expected) => {
    expect(buildArgv(command)).toEqual(expected)
  })

  test.each<[string, string[], string[]]>([
    ['version', versionArgv(), ['version', '--format', '{{json .}}']],
    [
      'login, password on stdin',
      loginArgv('127.0.0.1:5000', 'ci-user'),
      ['login', '127.0.0.1:5000', '--username', 'ci-user', '--password-stdin'],
    ],
    ['push', pushArgv('r.io/f:1'), ['push', 'r.io/f:1']],
    ['size', imageSizeArgv('r.io/f:1'), ['image', 'inspect', '--format', '{{.Size}}', 'r.io/f:1']],
  ])('%s', (_name, argv, expected) => {
    expect(argv).toEqual(expected)
  })
})

const DIGEST = `sha256:${'ab'.repeat(32)}`
const OTHER = `sha256:${'cd'.repeat(32)}`

describe('parsePushDigest', () => {
  test.each<[string, string, string, string | undefined]>([
    [
      'the registry answer',
      `The push refers to repository [r.io/f]\n5f70bf18a086: Pushed\nmain-1a2b3c4: digest: ${DIGEST} size: 735\n`,
      'r.io/f:main-1a2b3c4',
      DIGEST,
    ],
    ['a registry with a port', `v1: digest: ${DIGEST} size: 1\n`, '127.0.0.1:5000/a/b:v1', DIGEST],
    ['CRLF line ends', `x: digest: ${DIGEST} size: 9\r\n`, 'r.io/f:x', DIGEST],
    ['another tag only', `latest: digest: ${OTHER} size: 9`, 'r.io/f:main', undefined],
    ['no digest line', 'error parsing HTTP 404 response body', 'r.io/f:main', undefined],
    ['a short digest', 'main: digest: sha256:abc size: 9', 'r.io/f:main', undefined],
  ])('%s', (_name, output, reference, expected) => {
    expect(parsePushDigest(output, reference)).toBe(expected)
  })
})

describe('parseVersions', () => {
  test.each([
    [
      'client and daemon',
      '{"Client":{"Version":"28.2.2"},"Server":{"Version":"20.10.24+dfsg1"}}',
      { client: '28.2.2', server: '20.10.24+dfsg1' },
    ],
    ['no daemon', '{"Client":{"Version":"28.2.2"},"Server":null}', { client: '28.2.2' }],
    ['not JSON', 'Cannot connect to the Docker daemon', {}],
    ['empty', '', {}],
  ])('%s', (_name, output, expected) => {
    const versions = parseVersions(output)
    expect({ client: versions.client, server: versions.server }).toEqual({
      client: undefined,
      server: undefined,
      ...expected,
    })
  })

  test.each([
    ['28.2.2', 28],
    ['24.0.7', 24],
    ['23.0.0-rc.1', 23],
    ['20.10.24+dfsg1', 20],
    ['v25.0.1', 25],
    ['dev', undefined],
  ])('major of %j is %j', (version, major) => {
    expect(majorVersion(version)).toBe(major)
  })
})
