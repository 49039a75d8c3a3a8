import { describe, expect, test } from '@jest/globals'
import { loadSnapshotConfig, parseJson } from '../../../../src/core/snapshot/config.js'
import { InputError } from '../../../../src/core/shared/errors.js'
import { memoryFiles } from '../../../helpers/memory-files.js'

const TOKEN = 'ghp_unitToken0123456789'
const REPO = `https://${TOKEN}@git.example.com/acme/code-as-data.git`
const SALES = '01850a59bb68c324907a'

const entry = (overrides: { snapshooter?: object; git?: object | null } = {}): object => {
  const result: Record<string, unknown> = {
    snapshooter: {
      name: 'sales',
      rootTags: [SALES],
      outputDir: 'snapshot/sales',
      ...overrides.snapshooter,
    },
    git: { repo: REPO, branch: 'main', commitMessage: 'Snapshot at {date}', ...overrides.git },
  }
  if (overrides.git === null) delete result.git
  return result
}

async function load(
  document: unknown,
  variables: Record<string, string> = {},
): Promise<{ secrets: string[]; result: Awaited<ReturnType<typeof loadSnapshotConfig>> }> {
  const text = typeof document === 'string' ? document : JSON.stringify(document)
  const secrets: string[] = []
  const result = await loadSnapshotConfig(
    '/ws/res/snapshot-config.json',
    'res/snapshot-config.json',
    {
      files: memoryFiles({ '/ws/res/snapshot-config.json': text }),
      registerSecret: (secret) => secrets.push(secret),
      variable: (name) => variables[name],
    },
  )
  return { secrets, result }
}

async function problem(document: unknown): Promise<string> {
  const secrets: string[] = []
  const error = await loadSnapshotConfig('/ws/c.json', 'c.json', {
    files: memoryFiles({
      '/ws/c.json': typeof document === 'string' ? document : JSON.stringify(document),
    }),
    registerSecret: (secret) => secrets.push(secret),
    variable: () => undefined,
  }).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(InputError)
  const message = (error as InputError).message
  // Whatever went wrong, the token never appears in the message.
  expect(message).not.toContain(TOKEN)
  return message
}

describe('snapshot configuration', () => {
  test('a valid entry: outputDir normalized, credentials out of the URL, secrets registered', async () => {
    const { result, secrets } = await load([
      entry({ snapshooter: { outputDir: './snapshot//sales/' } }),
    ])
    const [first] = result.entries
    expect(first?.snapshooter.outputDir).toBe('snapshot/sales')
    expect(first?.git?.repo).toMatchObject({
      url: 'https://git.example.com/acme/code-as-data.git',
      display: 'https://***@git.example.com/acme/code-as-data.git',
      authorization: `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}`,
    })
    expect(secrets).toEqual(
      expect.arrayContaining([TOKEN, Buffer.from(`${TOKEN}:`).toString('base64')]),
    )
    expect(result.warnings).toEqual([])
  })

  test.each<[string, unknown, string]>([
    [
      'not an array',
      { snapshooter: {} },
      'at (the document): expected a JSON array of snapshot entries, got an object',
    ],
    ['empty array', [], 'holds no entries'],
    ['entry not an object', [3], 'at [0]: expected an object, got 3'],
    ['missing snapshooter', [{ git: {} }], 'at [0].snapshooter: is missing'],
    [
      'unknown top key',
      [{ ...entry(), extra: 1 }],
      'at [0].extra: unknown key "extra": expected only "snapshooter", "git"',
    ],
    [
      'unknown snapshooter key',
      [entry({ snapshooter: { rootTag: SALES } })],
      'at [0].snapshooter.rootTag: unknown key "rootTag"',
    ],
    [
      'missing name',
      [entry({ snapshooter: { name: undefined } })],
      'at [0].snapshooter.name: is missing',
    ],
    ['empty name', [entry({ snapshooter: { name: '' } })], 'at [0].snapshooter.name: is empty'],
    [
      'name not a string',
      [entry({ snapshooter: { name: 7 } })],
      'at [0].snapshooter.name: expected a name (a string), got number 7',
    ],
    [
      'no root tags',
      [entry({ snapshooter: { rootTags: [] } })],
      'at [0].snapshooter.rootTags: expected at least one element id',
    ],
    [
      'decimal-only spec reading is not required, but length is',
      [entry({ snapshooter: { rootTags: ['1234'] } })],
      "at [0].snapshooter.rootTags[0]: expected an element id of 20 hexadecimal characters (like '01850a59bb68c324907a'), got '1234'",
    ],
    [
      'non-hex id',
      [entry({ snapshooter: { rootTags: [SALES, '01850a59bb68c32490zz'] } })],
      'at [0].snapshooter.rootTags[1]: expected an element id of 20 hexadecimal characters',
    ],
    [
      'bad exclude id',
      [entry({ snapshooter: { exclude: ['Olympe'] } })],
      "at [0].snapshooter.exclude[0]: expected an element id of 20 hexadecimal characters (like '01850a59bb68c324907a'), got 'Olympe'",
    ],
    [
      'absolute outputDir',
      [entry({ snapshooter: { outputDir: '/etc/snapshot' } })],
      "at [0].snapshooter.outputDir: '/etc/snapshot' is absolute",
    ],
    [
      'windows absolute outputDir',
      [entry({ snapshooter: { outputDir: 'C:\\snap' } })],
      'is absolute',
    ],
    [
      'escaping outputDir',
      [entry({ snapshooter: { outputDir: 'snapshot/../../elsewhere' } })],
      "at [0].snapshooter.outputDir: 'snapshot/../../elsewhere' leaves the repository through ..",
    ],
    [
      'root outputDir',
      [entry({ snapshooter: { outputDir: 'a/..' } })],
      'is the repository root, which the toolkit would empty',
    ],
    ['.git outputDir', [entry({ snapshooter: { outputDir: '.git/hooks' } })], 'is inside .git'],
    [
      'missing branch',
      [entry({ git: { branch: undefined } })],
      'at [0].git.branch: is missing: name an existing branch',
    ],
    [
      'missing commitMessage',
      [entry({ git: { commitMessage: undefined } })],
      'at [0].git.commitMessage: is missing',
    ],
    [
      'branch with space',
      [entry({ git: { branch: 'my branch' } })],
      "at [0].git.branch: 'my branch' is not a valid branch name",
    ],
    [
      'branch as option',
      [entry({ git: { branch: '--upload-pack=x' } })],
      'is not a valid branch name',
    ],
    ['branch as ref', [entry({ git: { branch: 'refs/heads/main' } })], "without 'refs/heads/'"],
    [
      'repo without token',
      [entry({ git: { repo: 'https://git.example.com/acme/x.git' } })],
      "at [0].git.repo: expected 'https://<token>@<host>/<path>.git'",
    ],
    [
      'repo over plain http',
      [entry({ git: { repo: `http://${TOKEN}@git.example.com/acme/x.git` } })],
      "at [0].git.repo: 'http://***@git.example.com/acme/x.git': plain http:// would send the token in clear",
    ],
    [
      'ssh repo',
      [entry({ git: { repo: `ssh://${TOKEN}@git.example.com/acme/x.git` } })],
      "the scheme 'ssh' is not supported",
    ],
    [
      'unknown git key',
      [entry({ git: { token: 'x' } })],
      'at [0].git.token: unknown key "token": expected only "repo", "branch", "commitMessage"',
    ],
    [
      'overlapping outputDirs',
      [entry(), entry({ snapshooter: { name: 'inner', outputDir: 'snapshot/sales/inner' } })],
      "outputDir 'snapshot/sales' and 'snapshot/sales/inner' overlap",
    ],
  ])('%s', async (_name, document, expected) => {
    expect(await problem(document)).toContain(expected)
  })

  test('every problem is reported at once, one line per JSON path', async () => {
    const message = await problem([
      entry({ snapshooter: { rootTags: ['x'], outputDir: '../x' } }),
      entry({ git: { branch: '' } }),
    ])
    expect(message).toContain('at [0].snapshooter.rootTags[0]')
    expect(message).toContain('at [0].snapshooter.outputDir')
    expect(message).toContain('at [1].git.branch: is empty')
    expect(message.split('\n').filter((line) => line.startsWith('  - '))).toHaveLength(3)
  })

  test('a JSON syntax error gives a position, never the text (which may hold the token)', async () => {
    const text = `[{"snapshooter": {}, "git": {"repo": "https://${TOKEN}@h/x.git" "branch": "main"}}]`
    const message = await problem(text)
    expect(message).toMatch(/is not valid JSON \(syntax error at line 1, column \d+\)/)
    expect(parseJson('{\n  "a": 1,\n  oops\n}')).toBe(
      'is not valid JSON (syntax error at line 3, column 3)',
    )
  })

  test('overlapping outputDirs in different branches are fine', async () => {
    const { result } = await load([entry(), entry({ git: { branch: 'other' } })])
    expect(result.entries).toHaveLength(2)
  })

  test('warnings: a name with spaces, a name used twice', async () => {
    const { result } = await load([
      entry({ snapshooter: { name: 'My Projects' } }),
      entry({ snapshooter: { name: 'My Projects', outputDir: 'b' }, git: null }),
    ])
    expect(result.warnings[0]).toContain("snapshot name 'My Projects' holds spaces")
    expect(result.warnings[0]).toContain("'My-Projects'")
    expect(result.warnings[1]).toContain('is used twice')
  })

  test('${NAME} in git.repo reads the environment and the value becomes a secret', async () => {
    const repo = 'https://x-access-token:${SNAPSHOT_TOKEN}@github.com/acme/cad.git'
    const { result, secrets } = await load([entry({ git: { repo } })], { SNAPSHOT_TOKEN: TOKEN })
    expect(result.entries[0]?.git?.repo.url).toBe('https://github.com/acme/cad.git')
    expect(result.entries[0]?.git?.repo.authorization).toBe(
      `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`,
    )
    expect(secrets).toContain(TOKEN)
    expect(secrets).not.toContain('x-access-token')
    const message = await problem([entry({ git: { repo } })])
    expect(message).toContain(
      "at [0].git.repo: the environment variable 'SNAPSHOT_TOKEN' is not set or empty",
    )
  })

  test('a folder: every *.json joined, errors name the file', async () => {
    const secrets: string[] = []
    const files = memoryFiles({
      '/ws/cfg/a.json': JSON.stringify([entry()]),
      '/ws/cfg/nested/b.json': JSON.stringify([
        entry({ snapshooter: { name: 'b', outputDir: 'b' } }),
      ]),
      '/ws/cfg/readme.txt': 'not json',
    })
    const tools = {
      files,
      registerSecret: (s: string) => secrets.push(s),
      variable: () => undefined,
    }
    const { entries } = await loadSnapshotConfig('/ws/cfg', 'cfg', tools)
    expect(entries.map((e) => e.where)).toEqual(['cfg/a.json [0]', 'cfg/nested/b.json [0]'])

    const broken = memoryFiles({ '/ws/cfg/a.json': '[]', '/ws/cfg/b.json': '[{"snapshooter": 1}]' })
    await expect(loadSnapshotConfig('/ws/cfg', 'cfg', { ...tools, files: broken })).rejects.toThrow(
      'cfg/b.json: at [0].snapshooter: expected an object, got 1',
    )
  })

  test('a missing file names the input and the path looked at', async () => {
    const files = memoryFiles({})
    await expect(
      loadSnapshotConfig('/ws/res/snapshot-config.json', 'res/snapshot-config.json', {
        files,
        registerSecret: () => undefined,
        variable: () => undefined,
      }),
    ).rejects.toThrow("Invalid input 'config' 'res/snapshot-config.json': no such file or folder")
  })
})
