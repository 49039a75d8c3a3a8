import { describe, expect, test } from '@jest/globals'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ESLint } from 'eslint'
import { ROOT, type ActionId } from '../helpers/run-action.js'

const ACTIONS: ActionId[] = ['deploy', 'build-images', 'snapshot']

/** Text only each library holds, to find it in a minified bundle. */
const LIBRARIES = {
  '@actions/core': 'ghadelimiter_',
  '@actions/exec': 'The STDIO streams did not close within',
  '@actions/http-client': 'Client has already been disposed.',
  '@actions/github': 'GITHUB_EVENT_PATH',
}

async function bundleText(action: ActionId): Promise<string> {
  const dir = join(ROOT, 'dist', action)
  const files = (await readdir(dir)).filter((name) => name.endsWith('.js'))
  return (await Promise.all(files.map((name) => readFile(join(dir, name), 'utf8')))).join('\n')
}

const eslint = new ESLint({ cwd: ROOT })

describe('the design card, checked', () => {
  test.each(ACTIONS)('the %s bundle carries the @actions libraries it runs on', async (action) => {
    const text = await bundleText(action)
    const missing = Object.entries(LIBRARIES).filter(([, marker]) => !text.includes(marker))
    expect(missing.map(([name]) => name)).toEqual([])
  })

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
