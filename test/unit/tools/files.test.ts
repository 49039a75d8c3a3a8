import { describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { chmod, mkdir, symlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { sourceDigest } from '../../../src/core/build-images/reuse/fingerprint.js'
import { nodeFiles } from '../../../src/tools/files.js'
import { withCleanup } from '../../helpers/cleanup.js'

/** A project with a built frontend: files, a folder, a link inside it. */
async function project(root: string): Promise<void> {
  await mkdir(join(root, 'dist/web/js'), { recursive: true })
  await writeFile(join(root, 'dist/web/index.html'), '<html>')
  await writeFile(join(root, 'dist/web/js/app.js'), 'app()')
  await chmod(join(root, 'dist/web/js/app.js'), 0o640)
  await symlink('index.html', join(root, 'dist/web/latest.html'))
}

describe('nodeFiles.tree and hashFile', () => {
  test('every entry below a folder, sorted, with its kind, mode, owner and link target', async () => {
    await withCleanup(async (cleanup) => {
      const root = await cleanup.tempDir('olympe-files-')
      await project(root)
      const entries = await nodeFiles.tree(join(root, 'dist/web'))
      expect(
        entries?.map(({ path, kind, mode, target }) => [path, kind, mode.toString(8), target]),
      ).toEqual([
        ['', 'directory', expect.any(String), undefined],
        ['index.html', 'file', expect.any(String), undefined],
        ['js', 'directory', expect.any(String), undefined],
        ['js/app.js', 'file', '640', undefined],
        ['latest.html', 'link', expect.any(String), 'index.html'],
      ])
      expect(entries?.[1]?.uid).toBe(process.getuid?.())
      expect(await nodeFiles.tree(join(root, 'dist/web/index.html'))).toMatchObject([
        { path: '', kind: 'file', size: 6 },
      ])
      expect(await nodeFiles.tree(join(root, 'none'))).toBeUndefined()
      expect(await nodeFiles.hashFile(join(root, 'dist/web/index.html'))).toBe(
        createHash('sha256').update('<html>').digest('hex'),
      )
    })
  })

  test('a file larger than one read is hashed as a stream, to the same digest', async () => {
    await withCleanup(async (cleanup) => {
      const root = await cleanup.tempDir('olympe-files-')
      const big = Buffer.alloc(9 * 1024 * 1024, 'olympe')
      await writeFile(join(root, 'big.bin'), big)
      expect(await nodeFiles.hashFile(join(root, 'big.bin'))).toBe(
        createHash('sha256').update(big).digest('hex'),
      )
    })
  })

  test('file times do not change a source digest; a mode or a content does', async () => {
    await withCleanup(async (cleanup) => {
      const root = await cleanup.tempDir('olympe-files-')
      await project(root)
      const before = await sourceDigest('dist/web', { root, files: nodeFiles })
      const later = new Date('2030-01-01T00:00:00Z')
      for (const path of ['dist/web', 'dist/web/index.html', 'dist/web/js', 'dist/web/js/app.js'])
        await utimes(join(root, path), later, later)
      expect(await sourceDigest('dist/web', { root, files: nodeFiles })).toEqual(before)
      await chmod(join(root, 'dist/web/js/app.js'), 0o644)
      const chmodded = await sourceDigest('dist/web', { root, files: nodeFiles })
      expect(chmodded).not.toEqual(before)
      await writeFile(join(root, 'dist/web/js/app.js'), 'app(2)')
      expect(await sourceDigest('dist/web', { root, files: nodeFiles })).not.toEqual(chmodded)
    })
  })

  test('a link is followed inside the context, as BuildKit follows it: never outside', async () => {
    await withCleanup(async (cleanup) => {
      const outside = await cleanup.tempDir('olympe-outside-')
      await writeFile(join(outside, 'secret'), 'outside')
      const root = await cleanup.tempDir('olympe-files-')
      await mkdir(join(root, 'dist'))
      // An absolute target starts again at the context's root, where nothing of that name is.
      await symlink(outside, join(root, 'dist/web'))
      expect(await sourceDigest('dist/web', { root, files: nodeFiles })).toEqual({
        digest: null,
        files: 0,
      })
      // A link below a source is hashed with what its target holds.
      await mkdir(join(root, 'shared'))
      await writeFile(join(root, 'shared/app.js'), 'v1')
      await mkdir(join(root, 'dist/node'))
      await symlink('../../shared/app.js', join(root, 'dist/node/app.js'))
      const before = await sourceDigest('dist/node', { root, files: nodeFiles })
      await writeFile(join(root, 'shared/app.js'), 'v2')
      expect(await sourceDigest('dist/node', { root, files: nodeFiles })).not.toEqual(before)
    })
  })
})
