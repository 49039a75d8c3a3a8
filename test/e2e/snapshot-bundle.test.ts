import { describe, expect, test } from '@jest/globals'
import { rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import {
  DRAW_PASSWORD,
  IDS,
  PLATFORM_STATE,
  TOOLKIT_COMMAND,
  TOOLKIT_INPUTS,
  writePlatformState,
} from '../helpers/fake-toolkit.js'
import { git, type GitServer } from '../helpers/git-server.js'
import { gitServerForSuite, makeWorkspace, repoMaker, scratch } from '../helpers/git-snapshot.js'
import { NODE20 } from '../helpers/node-binaries.js'
import { runAsGithub, runCli, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { expectToSay } from '../helpers/assertions.js'

const TOKEN = 'ghs_e2eSnapshotToken4b8d2f6a'
const BASIC = Buffer.from(`${TOKEN}:`).toString('base64')
const WRONG_TOKEN = 'ghs_wrongToken9c7e5a3b1d'
const SECRETS = [TOKEN, BASIC, DRAW_PASSWORD, WRONG_TOKEN]
const MESSAGE = 'Snapshot at {date} in {folder} ({folder})'
const SUBJECT = /^Snapshot at \d{4}\.\d{2}\.\d{2} \d{2}:\d{2}:\d{2} in (\S+) \(\1\)$/

let server: GitServer
gitServerForSuite(TOKEN, (started) => (server = started))

const freshRepo = repoMaker(() => server, 'acme/cad')

const entry = (repo: string, name = 'sales', rootTags: string[] = [IDS.sales]): object => ({
  snapshooter: { name, rootTags, outputDir: `snapshot/${name}` },
  git: { repo: server.urlFor(repo), branch: 'main', commitMessage: MESSAGE },
})

interface SnapshotRun {
  config: unknown
  inputs?: Record<string, string>
  state?: string
  env?: Record<string, string>
}

async function github({ config, inputs, state, env }: SnapshotRun): Promise<RunResult> {
  const workspace = await makeWorkspace(config)
  try {
    return await runAsGithub('snapshot', {
      cwd: workspace,
      inputs: {
        ...TOOLKIT_INPUTS,
        ...inputs,
      },
      env: { FAKE_PLATFORM_STATE: state ?? PLATFORM_STATE, FAKE_TOOLKIT_ECHO_SECRETS: '1', ...env },
      event: { name: 'schedule' },
    })
  } finally {
    await rm(workspace, { recursive: true, force: true })
  }
}

const captured = (run: RunResult): Record<string, string> => ({
  stdout: run.stdout,
  stderr: run.stderr,
  ...run.files,
})

async function changedFiles(repo: string, sha: string): Promise<string[]> {
  const bare = path.join(server.root, `${repo}.git`)
  const out = await git(['diff-tree', '--no-commit-id', '--name-status', '-r', sha], { cwd: bare })
  return out
    .trim()
    .split('\n')
    .map((line) => line.replace('\t', ' '))
}

describe('the snapshot bundle as the GitHub runner runs it', () => {
  test('first run commits and pushes; the next, with no platform change, commits nothing', async () => {
    const repo = await freshRepo()
    const identity = { 'git-user-name': 'Snapshot Bot', 'git-user-email': 'snapshot@acme.test' }
    const first = await github({ config: [entry(repo)], inputs: identity })
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    const [tip, initial] = await server.log(repo, 'main')
    expect(initial?.subject).toBe('Initial commit')
    expect(tip?.subject).toMatch(SUBJECT)
    expect(tip?.subject).toContain('in snapshot/sales (snapshot/sales)')
    expect(tip).toMatchObject({
      authorName: 'Snapshot Bot',
      authorEmail: 'snapshot@acme.test',
      committerName: 'Snapshot Bot',
      committerEmail: 'snapshot@acme.test',
    })
    expect(Object.keys(await server.files(repo, 'main', 'snapshot')).sort()).toEqual(
      [IDS.orders, IDS.sales, IDS.invoice, IDS.invoiceTotal]
        .map((id) => `snapshot/sales/${IDS.sales}/${id}.json`)
        .sort(),
    )
    expect(first.outputs.changed).toBe('true')
    expect(JSON.parse(first.outputs.commits ?? '')).toEqual([
      {
        name: 'sales',
        repo: `http://***@127.0.0.1:${new URL(server.baseUrl).port}/${repo}.git`,
        branch: 'main',
        sha: tip?.sha,
        files: 4,
        added: 4,
        modified: 0,
        deleted: 0,
      },
    ])
    expect(first.summary).toContain('| sales | pushed ')
    for (const group of ['Configuration', 'Git repositories', "Export 'sales'", 'Commit and push'])
      expect(first.stdout).toContain(`::group::${group}`)
    expect(first.stdout).toContain('auth.autoPassword=***')
    expectNoSecrets(captured(first), SECRETS)

    const second = await github({ config: [entry(repo)], inputs: identity })
    expect(second.code).toBe(0)
    expect(second.outputs).toEqual({ changed: 'false', commits: '[]' })
    expect(second.summary).toContain('| sales | no change in snapshot/sales')
    expect((await server.log(repo, 'main'))[0]?.sha).toBe(tip?.sha)
    expect(server.forcePushes(repo)).toBe(0)
    expectNoSecrets(captured(second), SECRETS)
  })

  test('an element deleted on the platform becomes a deleted file in the next commit', async () => {
    const repo = await freshRepo()
    expect((await github({ config: [entry(repo)] })).code).toBe(0)
    const state = await writePlatformState(
      path.join(await scratch.tempDir('state-'), 'state.json'),
      (s) => {
        s.elements = Object.fromEntries(
          Object.entries(s.elements).filter(([id]) => id !== IDS.invoiceTotal),
        )
        const orders = s.elements[IDS.orders]
        if (orders) orders.patch = '{"kind":"screen","components":["table"]}'
      },
    )
    const run = await github({ config: [entry(repo)], state })
    expect(run.code).toBe(0)
    const [tip] = await server.log(repo, 'main')
    expect(await changedFiles(repo, tip?.sha ?? '')).toEqual([
      `M snapshot/sales/${IDS.sales}/${IDS.orders}.json`,
      `D snapshot/sales/${IDS.sales}/${IDS.invoiceTotal}.json`,
    ])
    expect(JSON.parse(run.outputs.commits ?? '')).toEqual([
      expect.objectContaining({ files: 2, added: 0, modified: 1, deleted: 1 }),
    ])
    expect(run.summary).toContain('0 added, 1 modified, 1 deleted')
  })

  test("two entries into one repository: one clone, one commit each, the CI bot's identity", async () => {
    const repo = await freshRepo()
    const config = [entry(repo), entry(repo, 'shared', [IDS.shared])]
    const run = await github({ config })
    expect(run.code).toBe(0)
    const log = await server.log(repo, 'main')
    expect(log.map((c) => SUBJECT.exec(c.subject)?.[1] ?? c.subject)).toEqual([
      'snapshot/shared',
      'snapshot/sales',
      'Initial commit',
    ])
    expect(log[0]).toMatchObject({
      authorName: 'github-actions[bot]',
      authorEmail: '41898282+github-actions[bot]@users.noreply.github.com',
    })
    expect(run.stdout.match(/^Cloned /gm)).toHaveLength(1)
    expect(server.refUpdates(repo)).toHaveLength(1)
    const commits = JSON.parse(run.outputs.commits ?? '') as Array<{ name: string }>
    expect(commits.map((c) => c.name)).toEqual(['sales', 'shared'])
    expectNoSecrets(captured(run), SECRETS)
  })

  test('the command line (the GitLab path) on Node 20: pipeline user as identity, dotenv outputs', async () => {
    const repo = await freshRepo()
    const workspace = await makeWorkspace([entry(repo)])
    const run = await runCli('snapshot', {
      node: NODE20,
      cwd: workspace,
      inputs: { 'toolkit-command': TOOLKIT_COMMAND, 'draw-password': DRAW_PASSWORD },
      env: {
        GITLAB_CI: 'true',
        CI_PROJECT_DIR: workspace,
        GITLAB_USER_NAME: 'Ada Lovelace',
        GITLAB_USER_EMAIL: 'ada@acme.test',
        FAKE_PLATFORM_STATE: PLATFORM_STATE,
        FAKE_TOOLKIT_ECHO_SECRETS: '1',
      },
    })
    await rm(workspace, { recursive: true, force: true })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const [tip] = await server.log(repo, 'main')
    expect(tip).toMatchObject({ authorName: 'Ada Lovelace', committerEmail: 'ada@acme.test' })
    expect(run.outputs.changed).toBe('true')
    expect(JSON.parse(run.outputs.commits ?? '')).toEqual([
      expect.objectContaining({ name: 'sales', sha: tip?.sha }),
    ])
    expect(run.stdout).toContain('section_start:')
    expectNoSecrets(captured(run), SECRETS)
  })
})

describe('failures before anything is pushed', () => {
  const expectRefused = async (
    repo: string,
    run: RunResult,
    message: string | RegExp,
  ): Promise<void> => {
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('::error title=olympe snapshot')
    expect(run.stdout).toMatch(message)
    expect(server.refUpdates(repo)).toEqual([])
    expect(await server.log(repo, 'main')).toHaveLength(1)
    expectNoSecrets(captured(run), SECRETS)
  }

  test('a missing branch is named', async () => {
    const repo = await freshRepo()
    const config = [
      {
        ...entry(repo),
        git: { repo: server.urlFor(repo), branch: 'snapshots', commitMessage: 'x' },
      },
    ]
    const run = await github({ config })
    await expectRefused(
      repo,
      run,
      /Branch 'snapshots' does not exist in http:\/\/\*\*\*@127\.0\.0\.1:\d+\/acme\/cad-\d+\.git \(entry 'sales'\)/,
    )
    expect(run.stdout).not.toContain("::group::Export 'sales'")
  })

  test('a wrong token: the server refuses it, and it is never shown', async () => {
    const repo = await freshRepo()
    const config = [
      {
        ...entry(repo),
        git: { repo: server.urlFor(repo, WRONG_TOKEN), branch: 'main', commitMessage: 'x' },
      },
    ]
    const run = await github({ config })
    await expectRefused(repo, run, 'the server refused the credentials')
    expect(run.stdout).toContain('could not read Username')
  })

  test.each<[string, object, string]>([
    [
      'a bad element id',
      { rootTags: ['01850a59bb68c324907'] },
      "at [0].snapshooter.rootTags[0]: expected an element id of 20 hexadecimal characters (like '01850a59bb68c324907a'), got '01850a59bb68c324907'",
    ],
    [
      'an outputDir escaping the repository',
      { outputDir: '../outside' },
      "at [0].snapshooter.outputDir: '../outside' leaves the repository through ..",
    ],
  ])('%s is refused with its JSON path', async (_name, snapshooter, message) => {
    const repo = await freshRepo()
    const base = entry(repo) as { snapshooter: object; git: object }
    const run = await github({
      config: [{ ...base, snapshooter: { ...base.snapshooter, ...snapshooter } }],
    })
    await expectRefused(repo, run, message)
    expect(run.stdout).toContain(
      "::error title=olympe snapshot%3A invalid input 'config'::Invalid snapshot configuration 'res/snapshot-config.json':%0A  - at [0].snapshooter.",
    )
    expect(run.stdout).not.toContain('::group::Git repositories')
  })

  test('git failing at push (a server hook refusing it) is reported, not retried, and redacted', async () => {
    const repo = await freshRepo()
    const hook = path.join(server.root, `${repo}.git`, 'hooks', 'pre-receive')
    await writeFile(hook, '#!/bin/sh\necho "main is protected" >&2\nexit 1\n', { mode: 0o755 })
    const run = await github({ config: [entry(repo)] })
    await expectRefused(
      repo,
      run,
      /Pushing to http:\/\/\*\*\*@127\.0\.0\.1:\d+\/acme\/cad-\d+\.git \(branch 'main'\) failed: git failed/,
    )
    expectToSay(run.stdout, 'main is protected', 'pre-receive hook declined')
    expect(run.stdout).not.toContain('was rejected: someone pushed meanwhile')
  })
})
