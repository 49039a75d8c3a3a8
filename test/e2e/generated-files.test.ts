import { beforeAll, describe, expect, test } from '@jest/globals'
import { cp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { useCleanup } from '../helpers/suite.js'
import { NODE24 } from '../helpers/node-binaries.js'
import { ROOT } from '../helpers/run-action.js'
import { capture, type Captured } from '../helpers/run-process.js'

const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }
const tsx = join(ROOT, 'node_modules/tsx/dist/cli.mjs')
/** A script of this project (or of a copy of it) under Node 24, in `root`. */
const script = (root: string, args: string[]): Promise<Captured> =>
  capture(NODE24, args, { env, cwd: root, timeoutMs: 120_000 })
const generate = (root: string, ...args: string[]): Promise<Captured> =>
  script(root, [tsx, join(root, 'scripts/generate.ts'), ...args])

/** dist/ and every generated file are committed: a fresh build must reproduce them exactly. */
describe('committed generated files', () => {
  test('dist/ matches a fresh ncc build of every action', async () => {
    const run = await script(ROOT, [join(ROOT, 'scripts/build.js'), '--check'])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
  }, 180_000)

  test("action.yml files, the guides' tables, the actions' READMEs and the rest match their definitions", async () => {
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

  const cleanup = useCleanup()
  beforeAll(async () => {
    copy = await cleanup.tempDir('olympe-generate-')
    const sources = ['scripts', 'src', 'gitlab', 'actions', 'action.yml', 'docs', 'bench']
    for (const path of [...sources, 'package.json', '.prettierrc.json', 'tsconfig.json'])
      await cp(join(ROOT, path), join(copy, path), { recursive: true })
    // The documents state measured figures from it (scripts/render/bench-figures.ts).
    for (const file of ['dist/snapshot-config.schema.json', 'bench/results.json'])
      await cp(join(ROOT, file), join(copy, file))
    await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
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

  test("an input table of a guide edited by hand, or an action's README removed, fails the drift check; the build restores both", async () => {
    const guide = join(copy, 'docs/deploy.md')
    const committed = await readFile(guide, 'utf8')
    const row = /^\| `timeout-seconds` .*$/m.exec(committed)?.[0] ?? ''
    expect(row).not.toBe('')
    await writeFile(guide, committed.replace(row, '| `timeout-seconds` | Edited by hand. | `5` |'))
    await rm(join(copy, 'actions/deploy/README.md'))
    const check = await generate(copy, '--check')
    expect(check.stderr).toContain(
      'Generated files are stale: actions/deploy/README.md, docs/deploy.md.',
    )
    expect(check.code).toBe(1)
    const build = await generate(copy)
    expect(build.stderr).toBe('')
    expect(await readFile(guide, 'utf8')).toBe(committed)
    expect(await readFile(join(copy, 'actions/deploy/README.md'), 'utf8')).toBe(
      await readFile(join(ROOT, 'actions/deploy/README.md'), 'utf8'),
    )
  }, 60_000)
})
