import { describe, expect, test } from '@jest/globals'
import { withDefaults } from '../../../../src/core/definition.js'
import { checkSnapshot } from '../../../../src/core/snapshot/check.js'
import {
  snapshotDefinition,
  type SnapshotInputName,
} from '../../../../src/core/snapshot/definition.js'
import { ActionError } from '../../../../src/core/shared/errors.js'
import type { Files } from '../../../../src/core/shared/ports.js'
import { memoryFiles } from '../../../helpers/memory-files.js'
import { recordingLogger } from '../../../helpers/recording.js'

const ENTRY = (outputDir: string, git?: object): object => ({
  snapshooter: { name: 'sales', rootTags: ['01850a59bb68c324907a'], outputDir },
  ...(git ? { git } : {}),
})

function check(
  config: unknown[],
  given: Partial<Record<SnapshotInputName, string>> = {},
  links: Record<string, string> = {},
): ReturnType<typeof checkSnapshot> {
  const files = memoryFiles({ '/ws/res/snapshot-config.json': JSON.stringify(config) })
  const linked: Files = {
    ...files,
    linkTarget: (path) => Promise.resolve(links[path]),
    realpath: (path) => Promise.resolve(links[path] ?? path),
  }
  return checkSnapshot(
    withDefaults(snapshotDefinition, given),
    { workspace: '/ws' },
    {
      files: linked,
      registerSecret: () => undefined,
      variable: () => undefined,
      logger: recordingLogger().logger,
    },
  )
}

describe("snapshot's check phase", () => {
  test('the configuration read once, and where entries without git go checked on disk', async () => {
    const checked = await check([ENTRY('snapshot/sales')])
    expect(checked.projectDir).toBe('/ws')
    expect(checked.entries.map((entry) => entry.name)).toEqual(['sales'])
    expect([...checked.local.values()]).toEqual([{ missing: ['snapshot', 'sales'] }])
  })

  test('an outputDir that is a link out of the working directory is refused before anything runs', async () => {
    const error = await check([ENTRY('snapshot/sales')], {}, { '/ws/snapshot': '/etc' }).catch(
      (reason: unknown) => reason,
    )
    expect(error).toBeInstanceOf(ActionError)
    expect((error as Error).message).toBe(
      "Entry 'sales' (res/snapshot-config.json [0]): outputDir 'snapshot/sales' in the working directory: 'snapshot', on its way, is a symbolic link (to '/etc', which leads outside the working directory). The toolkit empties outputDir and writes into it through links, which could delete and write files elsewhere. Make it a real folder, or choose another outputDir.\nNothing was exported or pushed.",
    )
  })

  test('a dry run writes those entries to scratch: the working directory is not checked', async () => {
    const checked = await check(
      [ENTRY('snapshot/sales')],
      { 'dry-run': 'true' },
      {
        '/ws/snapshot': '/etc',
      },
    )
    expect(checked.local.size).toBe(0)
  })

  test('entries with git are checked in their clones, by the run', async () => {
    const checked = await check(
      [
        ENTRY('snapshot/sales', {
          repo: 'https://tok3n-value-123@git.example.com/a/b.git',
          branch: 'main',
          commitMessage: 'm',
        }),
      ],
      {},
      { '/ws/snapshot': '/etc' },
    )
    expect(checked.local.size).toBe(0)
  })
})
