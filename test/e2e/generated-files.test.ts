import { describe, expect, test } from '@jest/globals'
import { join } from 'node:path'
import { NODE24 } from '../helpers/node-binaries.js'
import { ROOT, spawnCaptured } from '../helpers/run-action.js'

/** dist/ and every generated file are committed: a fresh build must reproduce them exactly. */
describe('committed generated files', () => {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }

  test('dist/ matches a fresh ncc build of every action', async () => {
    const run = await spawnCaptured(NODE24, [join(ROOT, 'scripts/build.js'), '--check'], env, ROOT)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
  }, 180_000)

  test('action.yml files, README tables and the rest match their definitions', async () => {
    const tsx = join(ROOT, 'node_modules/tsx/dist/cli.mjs')
    const run = await spawnCaptured(
      NODE24,
      [tsx, join(ROOT, 'scripts/generate.ts'), '--check'],
      env,
      ROOT,
    )
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
  }, 60_000)
})
