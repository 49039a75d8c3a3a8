import { describe, expect, test } from '@jest/globals'
import type { BuildCommand } from '../../../../../src/core/build-images/builders/build-command.js'
import {
  buildahBuildArgv,
  buildahCommandName,
  buildahInspectArgv,
  buildahLoginArgv,
  buildahPullArgv,
  buildahPushArgv,
  buildahSettings,
  describeBuildah,
  parseBuildahInspect,
  parseBuildahVersion,
  parseDigestFile,
  registriesConf,
  saysImageNotKnown,
} from '../../../../../src/core/build-images/builders/buildah-args.js'
import { buildOptions } from '../../../../helpers/unit-tables.js'

const OURS = buildahSettings({})
const THEIRS = buildahSettings({ STORAGE_DRIVER: 'overlay', BUILDAH_ISOLATION: 'rootless' })

const command: BuildCommand = {
  dockerfile: '/p/docker/frontend.Dockerfile',
  context: '/p',
  sourcesPath: 'dist/web',
  tags: ['r.io/shop/frontend:main-1a2b3c4', 'r.io/shop/frontend:main'],
  buildArgs: [['NODE_ENV', 'production']],
  labels: [['draw_version', '2.11.3']],
  cacheFrom: ['r.io/shop/frontend:main'],
  pull: true,
  registryCache: 'r.io/shop/frontend:buildcache',
  secrets: [{ id: 'NPM_TOKEN', value: 'npm_s3cret' }],
  bases: [{ reference: 'olympeio/frontend-base:latest', mirrored: 'm.example/hub/x:latest' }],
}

describe('buildahSettings: the environment wins, else vfs and chroot', () => {
  test('nothing set: this step’s defaults', () => {
    expect(OURS).toEqual({ storageDriver: { value: 'vfs' }, isolation: { value: 'chroot' } })
  })
  test('set: the environment’s', () => {
    expect(THEIRS).toEqual({
      storageDriver: { value: 'overlay', from: 'STORAGE_DRIVER' },
      isolation: { value: 'rootless', from: 'BUILDAH_ISOLATION' },
    })
    expect(buildahSettings({ STORAGE_DRIVER: ' ', BUILDAH_ISOLATION: '' })).toEqual(OURS)
  })
})

describe('buildah command lines', () => {
  test('bud: Docker format, no identity label, the secret by variable', () => {
    expect(buildahBuildArgv(command, OURS)).toEqual([
      '--storage-driver',
      'vfs',
      'bud',
      '--format',
      'docker',
      '--identity-label=false',
      '--isolation',
      'chroot',
      '--pull=true',
      ...buildOptions({
        file: '/p/docker/frontend.Dockerfile',
        buildArgs: ['SOURCES_PATH=dist/web', 'NODE_ENV=production'],
        labels: ['draw_version=2.11.3'],
        tags: ['r.io/shop/frontend:main-1a2b3c4', 'r.io/shop/frontend:main'],
      }),
      '--secret',
      'id=NPM_TOKEN,env=OLYMPE_BUILD_SECRET_1',
      '/p',
    ])
  })

  test('bud: no secret value, no cache-from image, no named context ever reaches argv', () => {
    const argv = buildahBuildArgv(command, OURS).join(' ')
    expect(argv).not.toMatch(/npm_s3cret|cache-from|build-context|buildcache|m\.example/)
  })

  test('bud with the environment’s settings and no pull: given on the command line too', () => {
    // Buildah 1.28 reads STORAGE_DRIVER in bud and pull, not in push or inspect: every command
    // gets the same driver from its command line.
    const argv = buildahBuildArgv({ ...command, pull: undefined, platform: 'linux/arm64' }, THEIRS)
    expect(argv.slice(0, 9)).toEqual([
      '--storage-driver',
      'overlay',
      'bud',
      '--format',
      'docker',
      '--identity-label=false',
      '--isolation',
      'rootless',
      '--pull=false',
    ])
    expect(argv).not.toContain('--layers')
    expect(argv).toContain('linux/arm64')
  })

  test('push in Docker format with a digest file; pull, inspect; login over http on loopback only', () => {
    expect(buildahPushArgv('r.io/x:1', '/t/digest', OURS)).toEqual([
      '--storage-driver',
      'vfs',
      'push',
      '--format',
      'docker',
      '--digestfile',
      '/t/digest',
      'r.io/x:1',
    ])
    expect(buildahPullArgv('r.io/x:1', THEIRS)).toEqual([
      '--storage-driver',
      'overlay',
      'pull',
      '--quiet',
      'r.io/x:1',
    ])
    expect(buildahInspectArgv('r.io/x:1', OURS)).toEqual([
      '--storage-driver',
      'vfs',
      'inspect',
      '--type',
      'image',
      'r.io/x:1',
    ])
    expect(buildahLoginArgv('127.0.0.1:5000', 'ci', true)).toEqual([
      'login',
      '--username',
      'ci',
      '--password-stdin',
      '--tls-verify=false',
      '127.0.0.1:5000',
    ])
    expect(buildahLoginArgv('r.io', 'ci', false)).not.toContain('--tls-verify=false')
  })

  test.each([
    [['--storage-driver', 'vfs', 'bud', '--file', 'x'], 'buildah bud'],
    [['push', 'r.io/x:1'], 'buildah push'],
    [['login', '--username', 'ci'], 'buildah login'],
  ])('%j is named %s', (argv, name) => {
    expect(buildahCommandName(argv)).toBe(name)
  })
})

describe('what buildah prints', () => {
  test('version --json: the version and the platform it builds for', () => {
    expect(parseBuildahVersion('{"version": "1.28.2", "osArch": "linux/amd64"}')).toEqual({
      client: '1.28.2',
      platform: 'linux/amd64',
    })
    expect(parseBuildahVersion('Error: nope')).toEqual({})
  })

  test('a digest file', () => {
    expect(parseDigestFile(`sha256:${'a'.repeat(64)}`)).toBe(`sha256:${'a'.repeat(64)}`)
    expect(parseDigestFile('')).toBeUndefined()
  })

  test('an image the store does not hold', () => {
    expect(saysImageNotKnown('Error: importing settings: nope:1: image not known')).toBe(true)
    expect(saysImageNotKnown('Error: permission denied')).toBe(false)
  })

  test('inspect: ONBUILD, the history newest first, each layer on the step that holds it, the size', () => {
    // What buildah inspect says of an image it built: the base's history, then the build's
    // steps, all committed as one layer recorded on the last.
    const output = JSON.stringify({
      Docker: { config: { OnBuild: ['ARG SOURCES_PATH'] } },
      OCIv1: {
        history: [
          { created_by: '', comment: 'Imported from -' },
          { created_by: '/bin/sh -c #(nop) ARG SOURCES_PATH', empty_layer: true },
          {
            created_by: '/bin/sh -c #(nop) COPY dir:abc in /usr/share/nginx/html ',
            empty_layer: true,
          },
          { created_by: '|1 SOURCES_PATH=dist/web /bin/sh -c chmod 775 x', empty_layer: true },
          { created_by: '/bin/sh -c #(nop) LABEL "a"="b"' },
        ],
      },
      Manifest: JSON.stringify({ layers: [{ size: 2_129_920 }, { size: 3072 }] }),
    })
    expect(parseBuildahInspect(output)).toEqual({
      onBuild: ['ARG SOURCES_PATH'],
      history: [
        {
          createdBy:
            '/bin/sh -c #(nop) COPY dir:abc in /usr/share/nginx/html (with the steps after it, one layer)',
          bytes: 3072,
        },
        { createdBy: '|1 SOURCES_PATH=dist/web /bin/sh -c chmod 775 x', bytes: 0 },
        { createdBy: '/bin/sh -c #(nop) COPY dir:abc in /usr/share/nginx/html ', bytes: 0 },
        { createdBy: '/bin/sh -c #(nop) ARG SOURCES_PATH', bytes: 0 },
        { createdBy: '', bytes: 2_129_920 },
      ],
      size: 2_132_992,
    })
    expect(parseBuildahInspect('{"Docker":{}}')).toBeUndefined()
    expect(parseBuildahInspect('not json')).toBeUndefined()
  })
})

describe('registriesConf: what Buildah reads registries with', () => {
  test('short names are Docker Hub’s; mirrors redirect; loopback is plain http', () => {
    const text = registriesConf({
      mirrors: [
        { registry: 'docker.io', location: '127.0.0.1:5001/hub', host: '127.0.0.1:5001' },
        { registry: 'ghcr.io', location: 'mirror.example/ghcr', host: 'mirror.example' },
      ],
      plainHttp: ['127.0.0.1:5001', '127.0.0.1:5000'],
    })
    expect(text).toBe(
      [
        '# Written by olympe-deploy-actions for one build-images step, and removed at its end.',
        'unqualified-search-registries = ["docker.io"]',
        'short-name-mode = "permissive"',
        '',
        '[[registry]]',
        'prefix = "docker.io"',
        'location = "127.0.0.1:5001/hub"',
        'insecure = true',
        '',
        '[[registry]]',
        'prefix = "ghcr.io"',
        'location = "mirror.example/ghcr"',
        'insecure = false',
        '',
        '[[registry]]',
        'location = "127.0.0.1:5001"',
        'insecure = true',
        '',
        '[[registry]]',
        'location = "127.0.0.1:5000"',
        'insecure = true',
        '',
      ].join('\n'),
    )
  })
})

describe('describeBuildah', () => {
  test('says which settings are ours and which the environment chose', () => {
    expect(describeBuildah({ kind: 'buildah', version: '1.28.2', ...OURS })).toBe(
      "Builder: Buildah 1.28.2, storage driver vfs (STORAGE_DRIVER unset: this step's default), isolation chroot (BUILDAH_ISOLATION unset: this step's default): each image goes into Buildah's store, then buildah push sends it in Docker's manifest format.",
    )
    expect(describeBuildah({ kind: 'buildah', version: '1.39.3', ...THEIRS })).toBe(
      "Builder: Buildah 1.39.3, storage driver overlay (from STORAGE_DRIVER), isolation rootless (from BUILDAH_ISOLATION): each image goes into Buildah's store, then buildah push sends it in Docker's manifest format.",
    )
  })
})
