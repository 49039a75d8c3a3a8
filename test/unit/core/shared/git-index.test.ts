import { describe, expect, test } from '@jest/globals'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { indexPaths } from '../../../../src/core/shared/git-index.js'
import { withCleanup } from '../../../helpers/cleanup.js'
import { commitCheckout, git } from '../../../helpers/git-repos.js'

/** Paths that share long prefixes (what version 4 compresses), names beyond ASCII, and depth. */
const FILES = [
  '.gitignore',
  '.olympe-reuse/records.json',
  'docker/frontend.Dockerfile',
  'docker/frontend.Dockerfile.dockerignore',
  'docker/backend.Dockerfile',
  'dist/web/main.js',
  'dist/web/été/index.html',
  `deep/${'d/'.repeat(40)}leaf.txt`,
  `${'long-name-'.repeat(20)}.txt`,
  'a',
  'ab',
  'abc/x',
]

/**
 * A repository holding FILES, whose index git writes as `setup` leaves it: what git ls-files says
 * it lists, and the index file's bytes.
 */
async function gitIndex(
  setup: Parameters<typeof commitCheckout>[2] = {},
): Promise<{ listed: string[]; index: Uint8Array }> {
  return withCleanup(async (cleanup) => {
    const dir = await cleanup.tempDir('olympe-git-index-')
    await commitCheckout(dir, Object.fromEntries(FILES.map((file) => [file, `${file}\n`])), setup)
    const listed = (await git(['ls-files', '-z'], { cwd: dir })).split('\0').filter(Boolean)
    return { listed, index: await readFile(join(dir, '.git/index')) }
  })
}

describe("indexPaths: the paths of a checkout's .git/index, read without git", () => {
  const intentToAdd = [
    ['rm', '-q', '--cached', 'a'],
    ['add', '--intent-to-add', 'a'],
  ]
  test.each<[string, number, Parameters<typeof gitIndex>[0]]>([
    ['version 2 (what a clone writes)', 2, {}],
    ['version 3 (an entry with extended flags: intent to add)', 3, { after: intentToAdd }],
    [
      'version 4 (paths prefix-compressed)',
      4,
      { after: [['update-index', '--index-version', '4']] },
    ],
    [
      'with the extensions git adds (the cache tree, the untracked cache)',
      2,
      {
        after: [
          ['update-index', '--untracked-cache'],
          ['status', '--porcelain'],
        ],
      },
    ],
    ['a SHA-256 repository', 2, { init: ['--object-format=sha256'] }],
  ])('%s: the paths git ls-files lists', async (_, version, setup) => {
    const { listed, index } = await gitIndex(setup)
    const hashBytes = setup?.init?.includes('--object-format=sha256') ? 32 : 20
    expect(new DataView(index.buffer, index.byteOffset).getUint32(4)).toBe(version)
    expect(listed).toContain('.olympe-reuse/records.json')
    expect(indexPaths(index, hashBytes)).toEqual({ paths: listed })
  })

  test('a split index is refused: most of its entries are in another file', async () => {
    const { index } = await gitIndex({ after: [['update-index', '--split-index']] })
    expect(indexPaths(index, 20)).toEqual({
      problem: 'it is a split index, whose entries are kept in another file too',
    })
  })

  test('what is no index, or is cut short, is refused', async () => {
    const { index } = await gitIndex()
    expect(indexPaths(new TextEncoder().encode('{"records":[]}'), 20)).toEqual({
      problem: 'it is not a git index (no DIRC signature)',
    })
    const future = new Uint8Array(index)
    new DataView(future.buffer).setUint32(4, 5)
    expect(indexPaths(future, 20)).toEqual({ problem: 'its version 5 is not 2, 3 or 4' })
    expect(indexPaths(index.subarray(0, 200), 20)).toEqual({
      problem: 'it ends in the middle of an entry',
    })
  })
})
