import { afterAll, beforeAll, describe, expect, test } from '@jest/globals'
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NODE24 } from '../helpers/node-binaries.js'
import { ROOT, spawnCaptured } from '../helpers/run-action.js'

const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }
const tsx = join(ROOT, 'node_modules/tsx/dist/cli.mjs')
const generate = (
  root: string,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  spawnCaptured(NODE24, [tsx, join(root, 'scripts/generate.ts'), ...args], env, root)

/** dist/ and every generated file are committed: a fresh build must reproduce them exactly. */
describe('committed generated files', () => {
  test('dist/ matches a fresh ncc build of every action', async () => {
    const run = await spawnCaptured(NODE24, [join(ROOT, 'scripts/build.js'), '--check'], env, ROOT)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
  }, 180_000)

  test('action.yml files, README tables and the rest match their definitions', async () => {
    const run = await generate(ROOT, '--check')
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
  }, 60_000)
})

/** The GitLab templates are hand-written around generated regions; edited in a copy of the repo. */
describe('a GitLab template edited by hand', () => {
  let copy: string
  const template = (): Promise<string> => readFile(join(copy, 'gitlab/deploy.yml'), 'utf8')
  const generated = '    INPUT_TIMEOUT_SECONDS: $[[ inputs.timeout-seconds ]]\n'
  const handWritten = '  resource_group: $[[ inputs.resource-group ]]\n'
  const timeout = '  timeout: 30 minutes\n'

  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'olympe-generate-'))
    const sources = ['scripts', 'src', 'gitlab', 'actions', 'action.yml', 'README.md']
    for (const path of [...sources, 'package.json', '.prettierrc.json', 'tsconfig.json'])
      await cp(join(ROOT, path), join(copy, path), { recursive: true })
    const schema = 'dist/snapshot-config.schema.json'
    await cp(join(ROOT, schema), join(copy, schema))
    await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
  })

  afterAll(async () => {
    await rm(copy, { recursive: true, force: true })
  })

  test('an edit inside a generated region fails the drift check', async () => {
    const committed = await template()
    expect(committed).toContain(generated)
    await writeFile(
      join(copy, 'gitlab/deploy.yml'),
      committed.replace(generated, '    INPUT_TIMEOUT_SECONDS: 5\n'),
    )
    const run = await generate(copy, '--check')
    expect(run.stderr).toContain('Generated files are stale: gitlab/deploy.yml.')
    expect(run.code).toBe(1)
  }, 60_000)

  test('the build keeps an edit outside the regions and restores the regions', async () => {
    const committed = await readFile(join(ROOT, 'gitlab/deploy.yml'), 'utf8')
    const kept = committed.replace(handWritten, `${handWritten}${timeout}`)
    const edited = kept.replace(generated, '')
    expect([kept.includes(timeout), edited.includes(generated)]).toEqual([true, false])
    await writeFile(join(copy, 'gitlab/deploy.yml'), edited)
    const build = await generate(copy)
    expect(build.stderr).toBe('')
    expect(build.stdout).toContain('wrote gitlab/deploy.yml')
    expect(await template()).toBe(kept)
    const check = await generate(copy, '--check')
    expect(check.stderr).toBe('')
    expect(check.code).toBe(0)
  }, 60_000)
})
