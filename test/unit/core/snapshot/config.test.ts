import { describe, expect, test } from '@jest/globals'
import { loadSnapshotConfig } from '../../../../src/core/snapshot/config.js'
import { InputError } from '../../../../src/core/shared/errors.js'
import { memoryFiles } from '../../../helpers/memory-files.js'
import { expectToSay } from '../../../helpers/assertions.js'

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
    [
      '.git outputDir',
      [entry({ snapshooter: { outputDir: '.git/hooks' } })],
      "at [0].snapshooter.outputDir: '.git/hooks' goes into a .git folder (git's own data)",
    ],
    [
      '.git deeper, in another case',
      [entry({ snapshooter: { outputDir: 'sub/.GIT/x' } })],
      "'sub/.GIT/x' goes into a .git folder",
    ],
    ['.git. (Windows)', [entry({ snapshooter: { outputDir: 'a/.git.' } })], 'goes into a .git'],
    [
      'outputDir with a space',
      [entry({ snapshooter: { outputDir: 'snapshot/my sales' } })],
      "at [0].snapshooter.outputDir: 'snapshot/my sales' holds a space: the toolkit splits its command line on spaces, so the path would be cut and the files written elsewhere. Use '-' or '_' instead, such as 'snapshot/my-sales'",
    ],
    [
      'outputDir with a line break',
      [entry({ snapshooter: { outputDir: 'snapshot/\n::error::x' } })],
      "at [0].snapshooter.outputDir: 'snapshot/\\n::error::x' holds a control character",
    ],
    [
      'name with a space',
      [entry({ snapshooter: { name: 'My Projects' } })],
      "at [0].snapshooter.name: 'My Projects' holds a space: the toolkit splits its command line on spaces, so the export would fail. Use a name such as 'My-Projects'",
    ],
    [
      'name with an escape sequence',
      [entry({ snapshooter: { name: 'a\u001b[31mred' } })],
      "at [0].snapshooter.name: 'a\\u001b[31mred' holds a control character",
    ],
    [
      'name too long',
      [entry({ snapshooter: { name: 'n'.repeat(101) } })],
      `at [0].snapshooter.name: is 101 characters long ('${'n'.repeat(40)}…'): expected a name of at most 100 characters`,
    ],
    [
      'outputDir too long',
      [entry({ snapshooter: { outputDir: `s/${'d'.repeat(199)}` } })],
      `at [0].snapshooter.outputDir: is 201 characters long ('s/${'d'.repeat(38)}…'): expected a folder path of at most 200 characters`,
    ],
    [
      'branch too long',
      [entry({ git: { branch: 'b'.repeat(256) } })],
      'at [0].git.branch: is 256 characters long',
    ],
    [
      'branch with a control character',
      [entry({ git: { branch: 'main\u0007' } })],
      "at [0].git.branch: 'main\\u0007' is not a valid branch name",
    ],
    [
      'commit message too long',
      [entry({ git: { commitMessage: 'm'.repeat(2001) } })],
      'at [0].git.commitMessage: is 2001 characters long',
    ],
    [
      'commit message with an escape',
      [entry({ git: { commitMessage: 'Snapshot\u001b[2J' } })],
      'at [0].git.commitMessage: holds a control character other than a line break or a tab',
    ],
    [
      'repo URL too long',
      [entry({ git: { repo: `${REPO}${'x'.repeat(2048)}` } })],
      'at [0].git.repo: is 2117 characters long: expected a repository URL of at most 2048 characters',
    ],
    [
      'too many root tags',
      [entry({ snapshooter: { rootTags: Array.from({ length: 101 }, () => SALES) } })],
      'at [0].snapshooter.rootTags: holds 101 element ids: expected at most 100 (the roots to snapshot)',
    ],
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
      "at [0].git.repo: 'https://git.example.com/acme/x.git' carries no token; expected 'https://<token>@<host>/<path>.git'",
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
    expectToSay(
      message,
      'at [0].snapshooter.rootTags[0]',
      'at [0].snapshooter.outputDir',
      'at [1].git.branch: is empty',
    )
    expect(message.split('\n').filter((line) => line.startsWith('  - '))).toHaveLength(3)
  })

  test('a JSON syntax error gives a position, never the text (which may hold the token)', async () => {
    const text = `[{"snapshooter": {}, "git": {"repo": "https://${TOKEN}@h/x.git" "branch": "main"}}]`
    const column = text.indexOf('"branch"') + 1
    expect(await problem(text)).toContain(
      `Invalid snapshot configuration 'c.json':\n  - is not valid JSON: unexpected '"' at line 1, column ${column}\n`,
    )
  })

  test('a syntax error names the file, its line and its column', async () => {
    expect(await problem('[\n  {"snapshooter": {}},\n]')).toContain(
      "Invalid snapshot configuration 'c.json':\n  - is not valid JSON: unexpected ']' at line 3, column 1",
    )
    const tools = { registerSecret: () => undefined, variable: () => undefined }
    const files = memoryFiles({ '/ws/cfg/a.json': '[]', '/ws/cfg/b.json': '[1,]' })
    await expect(loadSnapshotConfig('/ws/cfg', 'cfg', { ...tools, files })).rejects.toThrow(
      "  - cfg/b.json: is not valid JSON: unexpected ']' at line 1, column 4\n",
    )
  })

  test('a byte order mark (as Windows editors write) is accepted', async () => {
    const { result } = await load(`\uFEFF${JSON.stringify([entry()])}`)
    expect(result.entries.map((e) => e.name)).toEqual(['sales'])
  })

  test('overlapping outputDirs in different branches are fine', async () => {
    const { result } = await load([entry(), entry({ git: { branch: 'other' } })])
    expect(result.entries).toHaveLength(2)
  })

  test('warnings: a name used twice', async () => {
    const { result } = await load([
      entry({ snapshooter: { name: 'sales' } }),
      entry({ snapshooter: { name: 'sales', outputDir: 'b' }, git: null }),
    ])
    expect(result.warnings).toEqual([
      "res/snapshot-config.json [1]: snapshot name 'sales' is used twice; logs and the job summary cannot tell the entries apart.",
    ])
  })

  test('a token holding # ? \\ % @ " or a space: never in a configuration error, even in part', async () => {
    const tokens = ['Zq9#Xw?7\\Kp%Vb@Mn', 'Rt5"Yu 8Io', 'AbCdEfGh%zz']
    const document = [
      entry({ git: { repo: `http://${tokens[0]}@Git.Example.com/a.git` } }),
      entry({ git: { repo: `https://${tokens[1]}@git.example.com`, branch: 'b' } }),
      entry({ git: { repo: `ssh://u:${tokens[2]}@git.example.com/a.git`, branch: 'c' } }),
    ]
    const message = await problem(document)
    expectToSay(
      message,
      "at [0].git.repo: 'http://***@git.example.com/a.git'",
      'at [1].git.repo: ',
      "at [2].git.repo: 'ssh://***@git.example.com/a.git'",
    )
    const lower = message.toLowerCase()
    for (const token of tokens)
      for (let at = 0; at + 4 <= token.length; at++)
        expect(lower).not.toContain(token.slice(at, at + 4).toLowerCase())
    // Registered before any message could be made, the decoded forms too.
    const seen: string[] = []
    await loadSnapshotConfig('/c.json', 'c.json', {
      files: memoryFiles({ '/c.json': JSON.stringify(document) }),
      registerSecret: (secret) => seen.push(secret),
      variable: () => undefined,
    }).catch(() => undefined)
    expect(seen).toEqual(expect.arrayContaining(tokens))
  })

  test('a 100,000-character name is refused with one short line', async () => {
    const message = await problem([entry({ snapshooter: { name: 'a'.repeat(100_000) } })])
    expect(message.split('\n')).toEqual([
      "Invalid snapshot configuration 'c.json':",
      `  - at [0].snapshooter.name: is 100000 characters long ('${'a'.repeat(40)}…'): expected a name of at most 100 characters`,
      expect.stringContaining('Fix the configuration'),
    ])
  })

  test('a file above 1 MB, or more than 100 entries, is refused', async () => {
    const huge = await problem(' '.repeat(1_000_001))
    expect(huge).toContain(
      'is 1000001 bytes long: a snapshot configuration is at most 1000000 bytes',
    )
    const many = Array.from({ length: 101 }, (_, index) =>
      entry({ snapshooter: { name: `e${index}`, outputDir: `s/${index}` }, git: null }),
    )
    expect(await problem(many)).toContain(
      'it holds 101 entries: at most 100 are run in one step (each is one toolkit run)',
    )
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
