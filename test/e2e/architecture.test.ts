import { describe, expect, test } from '@jest/globals'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ESLint } from 'eslint'
import { ROOT } from '../helpers/run-action.js'

/** Text only each library holds, to find it in a minified bundle. */
const LIBRARIES = {
  '@actions/core': 'ghadelimiter_',
  '@actions/exec': 'The STDIO streams did not close within',
  '@actions/http-client': 'Client has already been disposed.',
  '@actions/github': 'GITHUB_EVENT_PATH',
}

/** dist/index.js and the chunks it loads lazily. */
async function bundleText(): Promise<string> {
  const dir = join(ROOT, 'dist')
  const files = (await readdir(dir)).filter((name) => name.endsWith('.js'))
  return (await Promise.all(files.map((name) => readFile(join(dir, name), 'utf8')))).join('\n')
}

const eslint = new ESLint({ cwd: ROOT })

describe('the design card, checked', () => {
  test('the one bundle carries the @actions libraries it runs on', async () => {
    const text = await bundleText()
    const missing = Object.entries(LIBRARIES).filter(([, marker]) => !text.includes(marker))
    expect(missing.map(([name]) => name)).toEqual([])
  })

  test.each(['snapshot', 'build-images', 'deploy'])(
    'dist/%s/index.js is a one-line entry into dist/index.js',
    async (action) => {
      const entry = await readFile(join(ROOT, 'dist', action, 'index.js'), 'utf8')
      expect(entry.trimEnd().split('\n')).toHaveLength(1)
      expect(entry).toContain("from'../index.js'")
    },
  )

  test.each<[string, string, string]>([
    [
      'src/core/shared/collections.ts',
      "import { readFileSync } from 'node:fs'",
      'src/core does no I/O',
    ],
    ['src/core/deploy/payload.ts', "import { request } from 'https'", 'src/core does no I/O'],
    ['src/core/deploy/payload.ts', "import * as core from '@actions/core'", 'platform-neutral'],
    [
      'src/core/deploy/payload.ts',
      "import { exec } from '../../tools/exec.js'",
      'depends on nothing outside it',
    ],
    [
      'src/core/deploy/payload.ts',
      'export const home = process.env.HOME',
      'never reads the environment',
    ],
    [
      'scripts/render/readme.ts',
      "import { run } from '../../src/platform/run.js'",
      'never runs them',
    ],
  ])('ESLint refuses, in %s: %s', async (path, line, message) => {
    // The text stands in for an existing file: the type-aware configuration knows only those.
    const [result] = await eslint.lintText(`${line}\n`, { filePath: join(ROOT, path) })
    const messages = (result?.messages ?? []).map((m) => m.message).join('\n')
    expect(messages).toContain(message)
  })
})
