import { describe, expect, test } from '@jest/globals'
import { BUILT_AS_LABEL, FINGERPRINT_LABEL } from '../../../../../src/core/shared/image-labels.js'
import {
  fingerprintOf,
  sourceDigest,
  treeDigest,
  type FingerprintParts,
} from '../../../../../src/core/build-images/reuse/fingerprint.js'
import type { TreeEntry } from '../../../../../src/core/shared/ports.js'
import { readIgnoreFile } from '../../../../../src/core/dockerfile/dockerignore.js'
import { memoryFiles } from '../../../../helpers/memory-files.js'

const PARTS: FingerprintParts = {
  dockerfile: 'a'.repeat(64),
  ignoreFiles: [['.dockerignore', null]],
  sources: [['dist/web', `sha256:${'b'.repeat(64)}`]],
  images: [
    ['olympeio/frontend-base:stable', `sha256:${'c'.repeat(64)}`],
    ['docker/dockerfile:1', `sha256:${'d'.repeat(64)}`],
  ],
  pinned: [],
  buildArgs: [['SOURCES_PATH', 'dist/web']],
  labels: [
    ['draw_version', '2.11.3'],
    ['org.opencontainers.image.version', '1.4.0'],
    ['org.opencontainers.image.source', 'https://github.com/acme/shop'],
    ['org.opencontainers.image.revision', '1a2b3c4'],
    ['org.opencontainers.image.created', '2026-11-22T10:00:00.000Z'],
  ],
  platform: 'linux/amd64',
}
const BASE = fingerprintOf(PARTS)

describe('fingerprintOf', () => {
  test('a sha256 digest, the same for the same parts', () => {
    expect(BASE).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(fingerprintOf({ ...PARTS })).toBe(BASE)
  })

  test('what changes with every run does not count: created, revision, our own labels; nor the order of labels and images', () => {
    expect(
      fingerprintOf({
        ...PARTS,
        images: [...PARTS.images].reverse(),
        labels: [
          ['org.opencontainers.image.created', '2027-01-01T00:00:00.000Z'],
          ['org.opencontainers.image.revision', '5d6e7f8'],
          [FINGERPRINT_LABEL, 'sha256:0'],
          [BUILT_AS_LABEL, 'main-5d6e7f8'],
          ...PARTS.labels
            .filter(([name]) => !name.endsWith('.created') && !name.endsWith('.revision'))
            .reverse(),
        ],
      }),
    ).toBe(BASE)
  })

  test.each<[string, Partial<FingerprintParts>]>([
    ['the Dockerfile', { dockerfile: 'e'.repeat(64) }],
    ['a .dockerignore added', { ignoreFiles: [['.dockerignore', 'f'.repeat(64)]] }],
    ['the sources', { sources: [['dist/web', `sha256:${'0'.repeat(64)}`]] }],
    ['a base image', { images: [['olympeio/frontend-base:stable', `sha256:${'1'.repeat(64)}`]] }],
    [
      'a build argument',
      {
        buildArgs: [
          ['SOURCES_PATH', 'dist/web'],
          ['NODE_ENV', 'production'],
        ],
      },
    ],
    ['the version label', { labels: [['org.opencontainers.image.version', '1.5.0']] }],
    ['the platform', { platform: 'linux/arm64' }],
    ['a builder that reads the Dockerfile otherwise', { builder: 'buildah 1.28: here-documents' }],
  ])('%s counts', (_name, change) => {
    expect(fingerprintOf({ ...PARTS, ...change })).not.toBe(BASE)
  })

  test('a builder that reads the Dockerfile as BuildKit does leaves the fingerprint as it was', () => {
    expect(fingerprintOf({ ...PARTS, builder: undefined })).toBe(BASE)
    // What these parts give in this format with no builder field at all: Docker's fingerprints
    // do not change with the field's arrival.
    expect(BASE).toBe('sha256:f9fb1db2ddf16469d6c4ccad35ce2699395f4d92f70eb96549d14920120ed8b5')
  })
})

describe('treeDigest', () => {
  const entries: TreeEntry[] = [
    { path: '', kind: 'directory', mode: 0o755, uid: 1001, gid: 1001, size: 0 },
    { path: 'index.html', kind: 'file', mode: 0o644, uid: 1001, gid: 1001, size: 6 },
    {
      path: 'latest',
      kind: 'link',
      mode: 0o777,
      uid: 1001,
      gid: 1001,
      size: 10,
      target: 'index.html',
    },
  ]
  const contents = new Map([['index.html', '9'.repeat(64)]])
  const digest = treeDigest(entries, contents)

  test.each<[string, TreeEntry[], Map<string, string>]>([
    ['a mode', [entries[0], { ...entries[1], mode: 0o755 }, entries[2]] as TreeEntry[], contents],
    ['an owner', [entries[0], { ...entries[1], uid: 0 }, entries[2]] as TreeEntry[], contents],
    [
      'a name',
      [entries[0], { ...entries[1], path: 'main.html' }, entries[2]] as TreeEntry[],
      new Map([['main.html', '9'.repeat(64)]]),
    ],
    [
      'a link target',
      [entries[0], entries[1], { ...entries[2], target: 'main.html' }] as TreeEntry[],
      contents,
    ],
    ['a content', entries, new Map([['index.html', '8'.repeat(64)]])],
    [
      'an empty folder added',
      [...entries, { path: 'x', kind: 'directory', mode: 0o755, uid: 1001, gid: 1001, size: 0 }],
      contents,
    ],
  ])('%s counts', (_name, changed, changedContents) => {
    expect(treeDigest(changed, changedContents)).not.toBe(digest)
  })

  test('sizes alone do not count (the content does)', () => {
    expect(
      treeDigest(
        entries.map((entry) => ({ ...entry, size: 1 })),
        contents,
      ),
    ).toBe(digest)
  })
})

describe('sourceDigest', () => {
  const files = memoryFiles({
    '/p/dist/web/index.html': '<html>',
    '/p/dist/web/js/app.js': 'app',
    '/p/dist/node/main.js': 'main',
    '/p/package.json': '{}',
  })
  const view = { root: '/p', files }

  test('a folder: every file below it; a file: itself', async () => {
    expect(await sourceDigest('dist/web', view)).toEqual({
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      files: 2,
    })
    expect(await sourceDigest('./package.json', view)).toMatchObject({ files: 1 })
    expect(await sourceDigest('dist/web/', view)).toEqual(await sourceDigest('dist/web', view))
  })

  test('a wildcard counts the whole folder before it', async () => {
    expect(await sourceDigest('dist/*/index.html', view)).toMatchObject({ files: 3 })
    expect(await sourceDigest('*.json', view)).toMatchObject({ files: 4 })
  })

  test('nothing there: null, the build will say so', async () => {
    expect(await sourceDigest('dist/none', view)).toEqual({ digest: null, files: 0 })
  })

  test('`..` stops at the context root, as BuildKit resolves it', async () => {
    expect(await sourceDigest('../../dist/web', view)).toEqual(await sourceDigest('dist/web', view))
  })

  test('what the .dockerignore leaves out does not count', async () => {
    const rules = readIgnoreFile('dist/web/js\n')
    if (!('matcher' in rules)) throw new Error('no matcher')
    const ignoring = { ...view, ignore: rules.matcher }
    expect(await sourceDigest('dist/web', ignoring)).toMatchObject({ files: 1 })
    const changed = memoryFiles({
      '/p/dist/web/index.html': '<html>',
      '/p/dist/web/js/app.js': 'app, changed',
    })
    expect(await sourceDigest('dist/web', { ...ignoring, files: changed })).toEqual(
      await sourceDigest('dist/web', ignoring),
    )
  })

  test('a folder left out counts what a `!` pattern lets through again below it', async () => {
    const rules = readIgnoreFile('/dist/web\n!dist/web/js/app.js\n')
    if (!('matcher' in rules)) throw new Error('no matcher')
    const ignoring = { ...view, ignore: rules.matcher }
    const before = await sourceDigest('dist/web', ignoring)
    expect(before).toMatchObject({ digest: expect.stringMatching(/^sha256:/), files: 1 })
    const changed = memoryFiles({
      '/p/dist/web/index.html': '<html>',
      '/p/dist/web/js/app.js': 'app, changed',
    })
    expect(await sourceDigest('dist/web', { ...ignoring, files: changed })).not.toEqual(before)
    // Nothing let through again: nothing reaches the build.
    const none = readIgnoreFile('/dist/web\n!dist/node\n')
    if (!('matcher' in none)) throw new Error('no matcher')
    expect(await sourceDigest('dist/web', { ...view, ignore: none.matcher })).toEqual({
      digest: null,
      files: 0,
    })
  })
})
