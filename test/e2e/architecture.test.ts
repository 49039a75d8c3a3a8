import { describe, expect, test } from '@jest/globals'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { ESLint } from 'eslint'
import ts from 'typescript'
import { filesUnder } from '../helpers/file-tree.js'
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

/**
 * The modules of src/ and what each imports of the others, as a reader follows them: type-only
 * imports, re-exports and import() included (TypeScript's own pre-processor lists them).
 */
async function importGraph(): Promise<Map<string, string[]>> {
  const src = join(ROOT, 'src')
  const modules = (await filesUnder(src)).filter((path) => path.endsWith('.ts'))
  const graph = new Map<string, string[]>()
  for (const path of modules) {
    const text = await readFile(join(src, path), 'utf8')
    const imported = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((file) => file.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(src, resolve(dirname(join(src, path)), name.replace(/\.js$/, '.ts'))))
    graph.set(path, imported)
  }
  return graph
}

/** The import cycles: each group of modules that import one another, by Tarjan's algorithm. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const groups: string[] = []
  const visit = (module: string): void => {
    index.set(module, next)
    low.set(module, next++)
    stack.push(module)
    for (const target of graph.get(module) ?? []) {
      if (!graph.has(target)) continue
      if (!index.has(target)) {
        visit(target)
        low.set(module, Math.min(low.get(module) ?? 0, low.get(target) ?? 0))
      } else if (stack.includes(target))
        low.set(module, Math.min(low.get(module) ?? 0, index.get(target) ?? 0))
    }
    if (low.get(module) !== index.get(module)) return
    const group: string[] = []
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      group.push(member)
      if (member === module) break
    }
    if (group.length > 1) groups.push(group.sort().join(' <-> '))
  }
  for (const module of [...graph.keys()].sort()) if (!index.has(module)) visit(module)
  return groups.sort()
}

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

  test('no import cycle in src/, type-only imports included', async () => {
    expect(cyclesOf(await importGraph())).toEqual([])
  })

  test('the import graph holds type-only imports: reuse.ts imports only a type of sign.ts', async () => {
    const graph = await importGraph()
    expect(graph.get('core/build-images/reuse/reuse.ts')).toContain('core/build-images/sign.ts')
  })

  test('a cycle is the group of modules that import one another, not those that import it', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ])
    expect(cyclesOf(graph)).toEqual(['a.ts <-> b.ts <-> c.ts'])
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
    [
      'src/core/dockerfile/syntax.ts',
      "import { planImages } from '../build-images/plan/plan.js'",
      'src/core/dockerfile imports only src/core/shared',
    ],
    [
      'src/core/signing/signer.ts',
      "import type { BuiltImage } from '../build-images/build.js'",
      'src/core/signing is a library',
    ],
    [
      'src/core/signing/signer.ts',
      "import type { DeployInputs } from '../deploy/inputs.js'",
      'src/core/signing is a library',
    ],
  ])('ESLint refuses, in %s: %s', async (path, line, message) => {
    // The text stands in for an existing file: the type-aware configuration knows only those.
    const [result] = await eslint.lintText(`${line}\n`, { filePath: join(ROOT, path) })
    const messages = (result?.messages ?? []).map((m) => m.message).join('\n')
    expect(messages).toContain(message)
  })
})
