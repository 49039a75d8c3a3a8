import { beforeAll, describe, expect, test } from '@jest/globals'
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isProblem } from '../../../../src/core/shared/problem.js'
import {
  checkOutputDir,
  createParents,
  type OutputRoot,
} from '../../../../src/core/snapshot/boundary.js'
import type { SnapshotEntry } from '../../../../src/core/snapshot/config.js'
import { nodeFiles } from '../../../../src/tools/files.js'
import { useCleanup } from '../../../helpers/suite.js'

// On the disk (a temp folder): links are what this checks, and a memory tree has none.
const cleanup = useCleanup()
let scratch = ''
let outside = ''
beforeAll(async () => {
  scratch = await realpath(await cleanup.tempDir('boundary-'))
  outside = join(scratch, 'outside')
  await mkdir(outside)
})

let roots = 0
async function rootWith(layout: (dir: string) => Promise<void>): Promise<OutputRoot> {
  const dir = join(scratch, `root-${++roots}`)
  await mkdir(dir)
  await layout(dir)
  return { dir, label: 'the working directory' }
}

const entry = (outputDir: string): SnapshotEntry => ({
  name: 'sales',
  where: 'res/snapshot-config.json [0]',
  snapshooter: { name: 'sales', rootTags: ['01850a59bb68c324907a'], outputDir },
})

describe('outputDir on the disk', () => {
  test('missing folders are reported, and all but the last are created', async () => {
    const root = await rootWith(() => Promise.resolve())
    const check = await checkOutputDir(entry('snapshot/teams/sales'), root, nodeFiles)
    expect(check).toEqual({ missing: ['snapshot', 'teams', 'sales'] })
    const missing = 'missing' in check ? check.missing : []
    const created = await createParents(entry('snapshot/teams/sales'), root, missing, nodeFiles)
    expect(created).toBe('snapshot/teams')
    expect((await nodeFiles.stat(join(root.dir, 'snapshot/teams')))?.kind).toBe('directory')
    expect(await nodeFiles.stat(join(root.dir, 'snapshot/teams/sales'))).toBeUndefined()
    expect(await checkOutputDir(entry('snapshot/teams/sales'), root, nodeFiles)).toEqual({
      missing: ['sales'],
    })
    expect(await createParents(entry('snapshot/teams/sales'), root, ['sales'], nodeFiles)).toBe(
      undefined,
    )
  })

  test('a folder on the way that is a link leading outside is refused, naming it', async () => {
    const root = await rootWith((dir) => symlink(outside, join(dir, 'snapshot')))
    const check = await checkOutputDir(entry('snapshot/sales'), root, nodeFiles)
    expect(check).toEqual({
      problem: `Entry 'sales' (res/snapshot-config.json [0]): outputDir 'snapshot/sales' in the working directory: 'snapshot', on its way, is a symbolic link (to '${outside}', which leads outside the working directory). The toolkit empties outputDir and writes into it through links, which could delete and write files elsewhere. Make it a real folder, or choose another outputDir.`,
    })
  })

  test.each<[string, (dir: string) => Promise<void>, string]>([
    [
      'outputDir itself a relative link inside',
      async (dir) => {
        await mkdir(join(dir, 'elsewhere'))
        await mkdir(join(dir, 'snapshot'))
        await symlink('../elsewhere', join(dir, 'snapshot/sales'))
      },
      "outputDir 'snapshot/sales' in the working directory is a symbolic link (to '../elsewhere', which stays inside the working directory)",
    ],
    [
      'a link to the root itself',
      (dir) => symlink('.', join(dir, 'snapshot')),
      "'snapshot', on its way, is a symbolic link (to '.', which is the root of the working directory itself)",
    ],
    [
      'a dangling link',
      (dir) => symlink('/nowhere/at/all', join(dir, 'snapshot')),
      "is a symbolic link (to '/nowhere/at/all', which leads to nothing that exists)",
    ],
    [
      'a file on the way',
      (dir) => writeFile(join(dir, 'snapshot'), 'x'),
      "'snapshot', on its way, is a file, not a folder, so the toolkit cannot write there",
    ],
  ])('%s is refused', async (_name, layout, expected) => {
    const root = await rootWith(layout)
    const check = await checkOutputDir(entry('snapshot/sales'), root, nodeFiles)
    expect(isProblem(check) && check.problem).toContain(expected)
  })
})
