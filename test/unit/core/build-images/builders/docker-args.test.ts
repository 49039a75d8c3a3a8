import { describe, expect, test } from '@jest/globals'
import {
  builderInspectArgv,
  contextAlias,
  buildArgv,
  buildkitDisabled,
  buildOutput,
  dockerCommandName,
  imageSizeArgv,
  loadsIntoEngine,
  loginArgv,
  namedContextKey,
  parseBuilderInspect,
  parseBuildMetadata,
  parseImageSize,
  parsePushDigest,
  parseVersions,
  pushArgv,
  saysBuildxMissing,
  versionArgv,
  type DockerBuilder,
  type BuildMode,
} from '../../../../../src/core/build-images/builders/docker-args.js'
import {
  majorVersion,
  secretEnvironment,
  type BuildCommand,
} from '../../../../../src/core/build-images/builders/build-command.js'
import { buildOptions, eachAnswer } from '../../../../helpers/unit-tables.js'

const base: BuildCommand = {
  dockerfile: '/p/docker/frontend.Dockerfile',
  context: '/p',
  sourcesPath: 'dist/web',
  tags: ['r.io/shop/frontend:main-1a2b3c4'],
  buildArgs: [],
  labels: [],
  cacheFrom: [],
}

/** `base`'s file, SOURCES_PATH and tag, as a command line gives them. */
const BASE_OPTIONS = buildOptions({
  file: '/p/docker/frontend.Dockerfile',
  buildArgs: ['SOURCES_PATH=dist/web'],
  tags: ['r.io/shop/frontend:main-1a2b3c4'],
})

const LEGACY: DockerBuilder = { kind: 'legacy', reason: 'disabled' }
const DOCKER_DRIVER: DockerBuilder = { kind: 'buildkit', name: 'default', driver: 'docker' }
const CONTAINER_DRIVER: DockerBuilder = {
  kind: 'buildkit',
  name: 'builder-3f1c',
  driver: 'docker-container',
}

describe('docker command lines, legacy builder', () => {
  test.each<[string, BuildCommand, string[]]>([
    ['minimal', base, ['build', ...BASE_OPTIONS, '/p']],
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
        ...buildOptions({
          file: '/p/docker/frontend.Dockerfile',
          buildArgs: ['SOURCES_PATH=dist/web', 'NODE_ENV=production', 'EMPTY=', 'SPACED=a b=c'],
          labels: ['draw_version=2.11.3', 'org.opencontainers.image.revision=abc'],
          tags: ['r.io/f:a', 'r.io/f:latest'],
        }),
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
        ...buildOptions({
          file: '/my project/docker/x.Dockerfile',
          buildArgs: ['SOURCES_PATH=dist/web'],
          tags: ['r.io/shop/frontend:main-1a2b3c4'],
        }),
        '/my project',
      ],
    ],
  ])('build: %s', (_name, command, expected) => {
    // The legacy builder knows neither --progress nor --cache-to, --load or --push.
    expect(buildArgv(command, { builder: LEGACY, push: true })).toEqual(expected)
  })
})

describe('docker command lines, BuildKit', () => {
  const common = ['--progress=plain', ...BASE_OPTIONS, '--cache-to', 'type=inline']
  // prettier-ignore
  test.each<[string, BuildMode, string[]]>([
    ['docker driver, push: into the engine, docker push follows', { builder: DOCKER_DRIVER, push: true, metadataFile: '/t/m.json' }, []],
    ['docker driver, no push', { builder: DOCKER_DRIVER, push: false }, []],
    ['docker-container driver, push: the build pushes and writes the digest', { builder: CONTAINER_DRIVER, push: true, metadataFile: '/t/m.json' }, ['--push', '--metadata-file', '/t/m.json']],
    ['docker-container driver, no push: loaded into the engine', { builder: CONTAINER_DRIVER, push: false, metadataFile: '/t/m.json' }, ['--load']],
    ['kubernetes driver, push', { builder: { kind: 'buildkit', name: 'k8s', driver: 'kubernetes' }, push: true }, ['--push']],
    ['remote driver, no push', { builder: { kind: 'buildkit', name: 'r', driver: 'remote' }, push: false }, ['--load']],
  ])('%s', (_name, mode, output) => {
    expect(buildArgv(base, mode)).toEqual(['buildx', 'build', ...common, ...output, '/p'])
  })

  test('--cache-from stays as given, next to the inline cache metadata it needs', () => {
    const argv = buildArgv(
      { ...base, cacheFrom: ['r.io/f:main'] },
      { builder: DOCKER_DRIVER, push: true },
    )
    expect(argv.slice(-5)).toEqual([
      '--cache-from',
      'r.io/f:main',
      '--cache-to',
      'type=inline',
      '/p',
    ])
  })

  test('build secrets: an id and a variable of ours on the command line, the values in the environment only', () => {
    const command: BuildCommand = {
      ...base,
      secrets: [
        { id: 'NPM_TOKEN', value: 'npm_Secret-Value-1' },
        { id: 'PATH', value: 'sneaky,value=2' },
      ],
    }
    const argv = buildArgv(command, { builder: DOCKER_DRIVER, push: true })
    expect(argv.slice(-7)).toEqual([
      '--secret',
      'id=NPM_TOKEN,env=OLYMPE_BUILD_SECRET_1',
      '--secret',
      'id=PATH,env=OLYMPE_BUILD_SECRET_2',
      '--cache-to',
      'type=inline',
      '/p',
    ])
    expect(argv.join(' ')).not.toMatch(/Secret-Value|sneaky/)
    expect(secretEnvironment(command)).toEqual({
      OLYMPE_BUILD_SECRET_1: 'npm_Secret-Value-1',
      OLYMPE_BUILD_SECRET_2: 'sneaky,value=2',
    })
    expect(secretEnvironment(base)).toEqual({})
  })

  describe('the registry cache of a builder that pushes its images itself', () => {
    const cached: BuildCommand = { ...base, registryCache: 'r.io/shop/frontend:buildcache' }
    const registry = 'type=registry,ref=r.io/shop/frontend:buildcache'

    test('docker-container driver, push: every step cached in the registry, read back from it', () => {
      expect(buildArgv(cached, { builder: CONTAINER_DRIVER, push: true })).toEqual([
        'buildx',
        'build',
        '--progress=plain',
        ...BASE_OPTIONS,
        '--cache-from',
        registry,
        '--cache-to',
        `${registry},mode=max`,
        '--push',
        '/p',
      ])
    })

    test.each<[string, BuildMode]>([
      ['docker driver: its images carry inline cache', { builder: DOCKER_DRIVER, push: true }],
      [
        'docker-container, no push: nothing written to the registry',
        { builder: CONTAINER_DRIVER, push: false },
      ],
    ])('%s', (_name, mode) => {
      const argv = buildArgv(cached, mode)
      expect(argv.join(' ')).not.toContain('type=registry')
      expect(argv.slice(argv.indexOf('--cache-to'), argv.indexOf('--cache-to') + 2)).toEqual([
        '--cache-to',
        'type=inline',
      ])
    })

    test('legacy builder: no cache export at all', () => {
      expect(buildArgv(cached, { builder: LEGACY, push: true }).join(' ')).not.toMatch(
        /cache-to|type=registry/,
      )
    })
  })

  test('--pull, when the bases were resolved in the registry, comes after the platform', () => {
    const argv = buildArgv(
      { ...base, platform: 'linux/amd64', pull: true },
      { builder: DOCKER_DRIVER, push: true },
    )
    expect(argv.slice(argv.indexOf('--platform'), argv.indexOf('--platform') + 3)).toEqual([
      '--platform',
      'linux/amd64',
      '--pull',
    ])
    expect(buildArgv(base, { builder: DOCKER_DRIVER, push: true })).not.toContain('--pull')
  })

  test.each<[string, DockerBuilder, boolean, 'push' | 'load' | undefined, boolean]>([
    ['legacy', LEGACY, true, undefined, true],
    ['docker driver', DOCKER_DRIVER, true, undefined, true],
    ['docker driver, no push', DOCKER_DRIVER, false, undefined, true],
    ['docker-container, push', CONTAINER_DRIVER, true, 'push', false],
    ['docker-container, no push', CONTAINER_DRIVER, false, 'load', false],
  ])('output of %s', (_name, builder, push, output, inEngine) => {
    expect(buildOutput({ builder, push })).toBe(output)
    expect(loadsIntoEngine(builder)).toBe(inEngine)
  })
})

describe('bases a mirror serves: a named context each', () => {
  test('BuildKit takes the mirror’s image for the name the Dockerfile uses', () => {
    const argv = buildArgv(
      {
        ...base,
        bases: [
          {
            reference: 'olympeio/frontend-base:latest',
            mirrored: 'm.example/hub/olympeio/frontend-base:latest',
          },
          { reference: 'node:20', mirrored: 'm.example/hub/library/node:20' },
          { reference: 'ghcr.io/acme/base:1' },
        ],
      },
      { builder: DOCKER_DRIVER, push: true },
    )
    const contexts = argv.flatMap((word, index) =>
      argv[index - 1] === '--build-context' ? [word] : [],
    )
    expect(contexts).toEqual([
      'olympeio/frontend-base=docker-image://m.example/hub/olympeio/frontend-base:latest',
      'node:20=docker-image://m.example/hub/library/node:20',
    ])
  })

  test('the legacy builder knows no named context', () => {
    const mirrored = { ...base, bases: [{ reference: 'node:20', mirrored: 'm.example/node:20' }] }
    expect(buildArgv(mirrored, { builder: LEGACY, push: true })).not.toContain('--build-context')
  })

  test.each([
    ['olympeio/frontend-base:latest', 'olympeio/frontend-base'],
    ['olympeio/backend-base:24-latest', 'olympeio/backend-base:24-latest'],
    ['node', 'node'],
    ['docker.io/library/node:20', 'node:20'],
    ['index.docker.io/acme/x:1', 'acme/x:1'],
    ['ghcr.io/acme/base:latest', 'ghcr.io/acme/base'],
    [`node:20@sha256:${'a'.repeat(64)}`, `node:20@sha256:${'a'.repeat(64)}`],
  ])('%s is looked up as %s', (reference, key) => {
    expect(namedContextKey(reference)).toBe(key)
  })
})

describe('contextAlias', () => {
  test.each<[string, string, string]>([
    ['/w/shop', '/w/shop/docker/frontend.Dockerfile', 'shop.frontend'],
    ['/w/shop/', '/w/shop/docker/backend.Dockerfile', 'shop.backend'],
    ['/w/my shop', '/w/my shop/ops/codeasdata.Dockerfile', 'my shop.codeasdata'],
    ['/w/shop', '/w/shop/docker/Frontend.dockerfile', 'shop.Frontend'],
  ])('%s with %s: %s', (context, dockerfile, alias) => {
    expect(contextAlias({ context, dockerfile })).toBe(alias)
  })

  test('the three images of a project get three names', () => {
    const names = ['frontend', 'backend', 'codeasdata'].map((kind) =>
      contextAlias({ context: '/p', dockerfile: `/p/docker/${kind}.Dockerfile` }),
    )
    expect(new Set(names).size).toBe(3)
  })
})

describe('other docker command lines', () => {
  test.each<[string, string[], string[]]>([
    ['version', versionArgv(), ['version', '--format', '{{json .}}']],
    ['current builder', builderInspectArgv(), ['buildx', 'inspect']],
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

  test.each<[string[], string]>([
    [pushArgv('r.io/f:1'), 'docker push'],
    [builderInspectArgv(), 'docker buildx inspect'],
    [imageSizeArgv('r.io/f:1'), 'docker image'],
  ])('%j is named %s in messages', (argv, name) => {
    expect(dockerCommandName(argv)).toBe(name)
  })

  test.each<[string, number | undefined]>([
    ['123456\n', 123456],
    ['0', 0],
    ['', undefined],
    ['<no value>', undefined],
  ])('the image size %j is %s', (output, bytes) => {
    expect(parseImageSize(output)).toBe(bytes)
  })
})

const DIGEST = `sha256:${'ab'.repeat(32)}`
const OTHER = `sha256:${'cd'.repeat(32)}`

// Verbatim `docker buildx inspect` output: buildx 0.13.1 (Debian trixie, Docker 26.1.5) with the
// engine's builder and with an inactive docker-container builder, and buildx 0.11 (Docker 24).
const INSPECT_DOCKER = `Name:   default
Driver: docker

Nodes:
Name:             default
Endpoint:         default
Status:           running
BuildKit version: v0.0.0+unknown
Platforms:        linux/amd64, linux/amd64/v2, linux/amd64/v3, linux/386
Labels:
 org.mobyproject.buildkit.worker.moby.host-gateway-ip: 172.17.0.1
`
const INSPECT_CONTAINER = `Name:          olympe-t
Driver:        docker-container
Last Activity: 2026-11-23 23:32:02 +0000 UTC

Nodes:
Name:                  olympe-t0
Endpoint:              unix:///var/run/docker.sock
Status:                inactive
BuildKit daemon flags: --allow-insecure-entitlement=network.host
`
const INSPECT_BUILDX_011 = `Name:          builder-5b4c0b2e
Driver:        docker-container
Last Activity: 2024-01-09 10:12:44 +0000 UTC

Nodes:
Name:      builder-5b4c0b2e0
Endpoint:  unix:///var/run/docker.sock
Status:    running
Buildkit:  v0.12.4
Platforms: linux/amd64, linux/amd64/v2, linux/386
`

describe('builder driver detection', () => {
  test.each<[string, string, { name: string; driver: string } | undefined]>([
    ['the engine’s own builder', INSPECT_DOCKER, { name: 'default', driver: 'docker' }],
    [
      'a docker-container builder, not booted',
      INSPECT_CONTAINER,
      { name: 'olympe-t', driver: 'docker-container' },
    ],
    [
      'buildx 0.11 (Docker 24), setup-buildx-action’s builder',
      INSPECT_BUILDX_011,
      { name: 'builder-5b4c0b2e', driver: 'docker-container' },
    ],
    [
      'CRLF line ends',
      INSPECT_DOCKER.replaceAll('\n', '\r\n'),
      { name: 'default', driver: 'docker' },
    ],
    ['no Driver line', 'Name: default\n', undefined],
    ['an error', 'ERROR: no builder "nope" found', undefined],
    ['empty', '', undefined],
  ])('%s', (_name, output, expected) => {
    expect(parseBuilderInspect(output)).toEqual(expected)
  })

  eachAnswer('buildx missing in %j: %j', saysBuildxMissing, [
    ["docker: 'buildx' is not a docker command.\nSee 'docker --help'", true],
    ["unknown command: docker buildx\n\nRun 'docker --help' for more information", true],
    ['docker: unknown command: docker buildx', true],
    ['ERROR: no builder "nope" found', false],
    ['Cannot connect to the Docker daemon at unix:///var/run/docker.sock', false],
  ])

  test.each<[string | undefined, boolean]>([
    ['0', true],
    ['false', true],
    ['FALSE', true],
    ['f', true],
    [' 0 ', true],
    ['1', false],
    ['true', false],
    ['', false],
    ['no', false],
    [undefined, false],
  ])('DOCKER_BUILDKIT=%j turns BuildKit off: %j', (value, disabled) => {
    expect(buildkitDisabled(value)).toBe(disabled)
  })
})

describe('parseBuildMetadata', () => {
  test.each<[string, string, string | undefined]>([
    [
      'buildx 0.13 after --push',
      JSON.stringify({
        'buildx.build.ref': 'olympe-t/olympe-t0/ny4ohqsctlpdgzsi9w5176gq1',
        'containerimage.config.digest': `sha256:${'cd'.repeat(32)}`,
        'containerimage.descriptor': { mediaType: 'application/vnd.oci.image.index.v1+json' },
        'containerimage.digest': `sha256:${'ab'.repeat(32)}`,
        'image.name': 'r.io/f:main,r.io/f:latest',
      }),
      `sha256:${'ab'.repeat(32)}`,
    ],
    ['no digest', '{"buildx.build.ref":"x"}', undefined],
    ['not a digest', '{"containerimage.digest":"sha256:abc"}', undefined],
    ['not JSON', '', undefined],
  ])('%s', (_name, text, expected) => {
    expect(parseBuildMetadata(text)).toBe(expected)
  })
})

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
    [
      'Docker 26 pushing a BuildKit image, layers already there',
      [
        'The push refers to repository [127.0.0.1:45999/engexp/frontend]',
        'd5add62dfdc1: Preparing',
        '7c707a7a6a16: Preparing',
        '7c707a7a6a16: Layer already exists',
        'd5add62dfdc1: Pushed',
        `inl: digest: ${DIGEST} size: 735`,
      ].join('\n'),
      '127.0.0.1:45999/engexp/frontend:inl',
      DIGEST,
    ],
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
    [
      "the daemon's platform",
      '{"Client":{"Version":"28.2.2"},"Server":{"Version":"26.1.5","Os":"linux","Arch":"arm64"}}',
      { client: '28.2.2', server: '26.1.5', platform: 'linux/arm64' },
    ],
    ['no daemon', '{"Client":{"Version":"28.2.2"},"Server":null}', { client: '28.2.2' }],
    ['not JSON', 'Cannot connect to the Docker daemon', {}],
    ['empty', '', {}],
  ])('%s', (_name, output, expected) => {
    const versions = parseVersions(output)
    expect(versions).toEqual(expected)
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
