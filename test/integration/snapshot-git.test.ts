import { describe, expect, test } from '@jest/globals'
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { isProblem } from '../../src/core/shared/problem.js'
import { GitFailure } from '../../src/core/snapshot/ports.js'
import { parseRepoUrl } from '../../src/core/snapshot/repo-url.js'
import { createGitPort } from '../../src/tools/git.js'
import { DRAW_PASSWORD, FAKE_TOOLKIT, IDS, PLATFORM_STATE } from '../helpers/fake-toolkit.js'
import {
  gitServerForSuite,
  pushAsSomeoneElse,
  repoMaker,
  runSnapshotCore,
  scratch,
  TEST_IDENTITY,
} from '../helpers/git-snapshot.js'
import { git, type GitServer } from '../helpers/git-server.js'
import { run as runProgram } from '../helpers/run-process.js'
import { expectToSay } from '../helpers/assertions.js'

const TOKEN = 'glpat-integration-5a7c9e1b3d'
let server: GitServer
gitServerForSuite(TOKEN, (started) => (server = started))

const freshRepo = repoMaker(() => server, 'team/cad', {
  files: { 'README.md': '# code as data\n' },
})

const salesEntry = (repo: string, extra: object = {}): object => ({
  snapshooter: { name: 'sales', rootTags: [IDS.sales], outputDir: 'snapshot/sales', ...extra },
  git: {
    repo: server.urlFor(repo),
    branch: 'main',
    commitMessage: 'Snapshot at {date} in {folder}',
  },
})

const expectClean = (text: string): void => {
  for (const secret of [TOKEN, DRAW_PASSWORD]) expect(text).not.toContain(secret)
}

/**
 * A `beforePush` under which someone else pushes `subject` (what `change` does in their clone) just
 * before our first push, which then loses the race.
 */
function othersPushFirst(
  repo: string,
  subject: string,
  change: (clone: string) => Promise<void>,
): (attempt: number) => Promise<void> {
  return async (attempt) => {
    if (attempt === 1) await pushAsSomeoneElse(server.urlFor(repo), subject, change)
  }
}

describe('snapshot core against a real git server', () => {
  test('a lost push race is retried on top of the other push: linear history, no force', async () => {
    const repo = await freshRepo()
    const run = await runSnapshotCore({
      config: [salesEntry(repo)],
      beforePush: othersPushFirst(repo, 'Notes by someone else', async (clone) => {
        await writeFile(path.join(clone, 'notes.txt'), 'meanwhile\n')
      }),
    })
    expect(run.error).toBeUndefined()
    const log = await server.log(repo, 'main')
    expect(log.map((c) => c.subject)).toEqual([
      'Snapshot at 2026.03.04 05:06:07 in snapshot/sales',
      'Notes by someone else',
      'Initial commit',
    ])
    expect(log[0]).toMatchObject({
      authorName: TEST_IDENTITY.name,
      committerEmail: TEST_IDENTITY.email,
    })
    const files = Object.keys(await server.files(repo, 'main'))
    expectToSay(files, 'notes.txt', `snapshot/sales/${IDS.sales}/${IDS.invoiceTotal}.json`)
    expect(server.forcePushes(repo)).toBe(0)
    expect(run.log.join('\n')).toContain('Push 1 of 3 to')
    expect(run.summaries[0]?.rows[0]?.[1]).toContain('push attempt 2')
    expect(JSON.parse(run.outputs.commits ?? '')).toEqual([
      expect.objectContaining({ name: 'sales', sha: log[0]?.sha, files: 4, added: 4 }),
    ])
    expectClean(run.log.join('\n'))
  })

  test('when the other push already holds the same snapshot, nothing is left to commit', async () => {
    const repo = await freshRepo()
    const run = await runSnapshotCore({
      config: [salesEntry(repo)],
      beforePush: async (attempt) => {
        if (attempt > 1) return
        await pushAsSomeoneElse(
          server.urlFor(repo),
          'Same snapshot, other runner',
          async (clone) => {
            const config = path.join(await scratch.tempDir('config-'), 'config.json')
            const snapshooter = {
              name: 'sales',
              rootTags: [IDS.sales],
              outputDir: 'snapshot/sales',
            }
            await writeFile(config, JSON.stringify([{ snapshooter }]))
            await mkdir(path.join(clone, 'snapshot'), { recursive: true })
            const env = {
              ...process.env,
              SNAPSHOT_CONFIG: config,
              FAKE_PLATFORM_STATE: PLATFORM_STATE,
              DRAW_PASSWORD,
            }
            await runProgram(process.execPath, [FAKE_TOOLKIT, 'snapshot'], { cwd: clone, env })
          },
        )
      },
    })
    expect(run.error).toBeUndefined()
    expect((await server.log(repo, 'main')).map((c) => c.subject)).toEqual([
      'Same snapshot, other runner',
      'Initial commit',
    ])
    expect(run.outputs).toEqual({ changed: 'false', commits: '[]' })
    expect(server.forcePushes(repo)).toBe(0)
  })

  test("git's argv never holds the token, not even base64-encoded in a -c header", async () => {
    const repo = await freshRepo()
    const bin = await scratch.tempDir('git-argv-')
    const argvLog = path.join(bin, 'argv.log')
    const realGit = (await runProgram('sh', ['-c', 'command -v git'])).stdout.trim()
    const wrapper = `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nexec '${realGit}' "$@"\n`
    await writeFile(path.join(bin, 'git'), wrapper, { mode: 0o755 })
    const savedPath = process.env.PATH
    process.env.PATH = `${bin}:${savedPath ?? ''}`
    try {
      const run = await runSnapshotCore({
        config: [salesEntry(repo)],
        beforePush: othersPushFirst(repo, 'Meanwhile', async (clone) => {
          await writeFile(path.join(clone, 'meanwhile.txt'), 'x\n')
        }),
      })
      expect(run.error).toBeUndefined()
    } finally {
      process.env.PATH = savedPath
    }
    const argv = await readFile(argvLog, 'utf8')
    // Every git command of ours starts with the client's fixed options; the rest are the test's.
    const ours = argv.split('\n').filter((line) => line.startsWith('-c credential.helper= '))
    expect(ours.some((line) => line.includes(' ls-remote '))).toBe(true)
    expect(ours.some((line) => line.includes(' push '))).toBe(true)
    expect(ours.some((line) => line.includes(' fetch '))).toBe(true)
    const basic = Buffer.from(`${TOKEN}:`).toString('base64')
    for (const line of ours) {
      expect(line).not.toContain(TOKEN)
      expect(line).not.toContain(basic)
      expect(line).not.toContain('extraheader')
    }
  })

  test("a symbolic link pushed meanwhile on outputDir's way is refused before re-applying", async () => {
    const repo = await freshRepo()
    const outside = await scratch.tempDir('outside-')
    await writeFile(path.join(outside, 'sentinel.txt'), 'keep me\n')
    const run = await runSnapshotCore({
      config: [salesEntry(repo)],
      beforePush: othersPushFirst(repo, 'Link snapshot away', async (clone) => {
        await symlink(outside, path.join(clone, 'snapshot'))
      }),
    })
    expect(run.error?.message).toMatch(
      /^Entry 'sales' \(res\/snapshot-config\.json \[0\]\): outputDir 'snapshot\/sales' in the clone of http:\/\/\*\*\*@127\.0\.0\.1:\d+\/team\/cad-\d+\.git \(branch 'main'\): 'snapshot', on its way, is a symbolic link \(to '.*', which leads outside the clone of .*\)\..* It came with the branch's new tip, pushed meanwhile by someone else\. Nothing more was pushed\.$/s,
    )
    expect(await readdir(outside)).toEqual(['sentinel.txt'])
    expect((await server.log(repo, 'main')).map((c) => c.subject)).toEqual([
      'Link snapshot away',
      'Initial commit',
    ])
    expect(server.forcePushes(repo)).toBe(0)
  })

  test('gives up after push-attempts, never forcing, and says so', async () => {
    const repo = await freshRepo()
    const run = await runSnapshotCore({
      config: [salesEntry(repo)],
      inputs: { 'push-attempts': '2' },
      beforePush: (attempt) =>
        pushAsSomeoneElse(server.urlFor(repo), `Other push ${attempt}`, async (clone) => {
          await writeFile(path.join(clone, `other-${attempt}.txt`), `${attempt}\n`)
        }),
    })
    expect(run.error?.message).toMatch(/was rejected 2 time\(s\).*Nothing was force-pushed/s)
    expect(run.error?.message).toContain('(fetch first)')
    expectClean(run.error?.message ?? '')
    expect((await server.log(repo, 'main')).map((c) => c.subject)).toEqual([
      'Other push 2',
      'Other push 1',
      'Initial commit',
    ])
    expect(server.forcePushes(repo)).toBe(0)
    expect(run.outputs).toEqual({ changed: 'false', commits: '[]' })
  })

  test('changes are detected per outputDir: added, modified, deleted; other folders untouched', async () => {
    const repo = await freshRepo()
    await pushAsSomeoneElse(server.urlFor(repo), 'Prepare', async (clone) => {
      await mkdir(path.join(clone, 'snapshot/sales/stale'), { recursive: true })
      await writeFile(path.join(clone, 'snapshot/sales/stale/old.json'), '{}\n')
      await mkdir(path.join(clone, 'docs'))
      await writeFile(path.join(clone, 'docs/keep.md'), 'kept\n')
    })
    const run = await runSnapshotCore({ config: [salesEntry(repo)] })
    expect(run.error).toBeUndefined()
    expect(JSON.parse(run.outputs.commits ?? '')).toEqual([
      expect.objectContaining({ files: 5, added: 4, modified: 0, deleted: 1 }),
    ])
    const files = Object.keys(await server.files(repo, 'main'))
    expect(files).toContain('docs/keep.md')
    expect(files).not.toContain('snapshot/sales/stale/old.json')
  })

  test('a failing toolkit names its entry, and nothing is pushed', async () => {
    const repo = await freshRepo()
    const run = await runSnapshotCore({
      config: [
        salesEntry(repo),
        { ...salesEntry(repo, { name: 'broken', outputDir: 'snapshot/broken' }) },
      ],
      toolkitEnv: { FAKE_TOOLKIT_FAIL_ENTRY: 'broken' },
    })
    expectToSay(
      run.error?.message,
      "The toolkit failed (exit code 1) exporting entry 'broken'",
      'snapshot broken failed',
    )
    expect(server.refUpdates(repo)).toEqual([])
  })

  test('a wrong platform password fails the export without showing the password', async () => {
    const repo = await freshRepo()
    const run = await runSnapshotCore({
      config: [salesEntry(repo)],
      inputs: { 'draw-password': 'wrong-password-8c2e' },
      toolkitEnv: { FAKE_TOOLKIT_ECHO_SECRETS: '1' },
    })
    expectToSay(
      run.error?.message,
      'error: Snapshot failed: Error: Invalid username or password',
      "The orchestrator refused the sign-in: check 'draw-username' and 'draw-password'",
    )
    const everything = `${run.log.join('\n')}\n${run.error?.message ?? ''}`
    expect(everything).not.toContain('wrong-password-8c2e')
    expect(everything).toContain('auth.autoPassword=***')
    expect(server.refUpdates(repo)).toEqual([])
  })

  test('dry run: reports what would be committed, pushes nothing', async () => {
    const repo = await freshRepo()
    const run = await runSnapshotCore({ config: [salesEntry(repo)], inputs: { 'dry-run': 'true' } })
    expect(run.error).toBeUndefined()
    expectToSay(
      run.log.join('\n'),
      "'sales' (snapshot/sales in http://***@",
      'would commit 4 added, 0 modified, 0 deleted',
    )
    expect(run.summaries[0]?.heading).toContain('dry run')
    expect(run.outputs).toEqual({ changed: 'false', commits: '[]' })
    expect(server.refUpdates(repo)).toEqual([])
  })

  test('entries without git write into the working directory; no git work', async () => {
    const run = await runSnapshotCore({
      config: [{ snapshooter: { name: 'local', rootTags: [IDS.shared], outputDir: 'out/local' } }],
    })
    expect(run.error).toBeUndefined()
    expect(run.summaries[0]?.rows).toEqual([
      ['local', expect.stringContaining('written to out/local')],
    ])
    expect(run.outputs).toEqual({ changed: 'false', commits: '[]' })
    expect(await readdir(path.join(run.workspace, 'out/local', IDS.shared))).toHaveLength(2)
  })

  test('a dry run leaves the working directory as it is', async () => {
    const run = await runSnapshotCore({
      config: [{ snapshooter: { name: 'local', rootTags: [IDS.shared], outputDir: 'out/local' } }],
      inputs: { 'dry-run': 'true' },
    })
    expect(run.error).toBeUndefined()
    expect(run.summaries[0]?.rows[0]?.[1]).toContain('dry run: exported into a scratch folder')
    expect(await readdir(run.workspace)).toEqual(['res'])
  })
})

describe('git port', () => {
  const port = createGitPort({ redact: (text) => text.split(TOKEN).join('***') })
  const repoFor = (name: string, token = TOKEN): ReturnType<typeof parseRepoUrl> =>
    parseRepoUrl(server.urlFor(name, token))

  test('branchTip: the sha of an existing branch, undefined for a missing one', async () => {
    const name = await freshRepo()
    const repo = repoFor(name)
    if (isProblem(repo)) throw new Error(repo.problem)
    const [tip] = await server.log(name, 'main')
    await expect(port.branchTip(repo, 'main')).resolves.toBe(tip?.sha)
    await expect(port.branchTip(repo, 'nope')).resolves.toBeUndefined()
  })

  test('a wrong token is an auth failure whose message and properties hold no token', async () => {
    const name = await freshRepo()
    const wrong = 'wrong-token-3b1d9f'
    const repo = repoFor(name, wrong)
    if (isProblem(repo)) throw new Error(repo.problem)
    const error = await port.branchTip(repo, 'main').then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(GitFailure)
    expect((error as GitFailure).kind).toBe('auth')
    const dump = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String(error)
    expect(dump).not.toContain(wrong)
    expect(Object.keys(error as object)).not.toContain('task')
  })

  test('the clone keeps a credential-free remote URL', async () => {
    const name = await freshRepo()
    const repo = repoFor(name)
    if (isProblem(repo)) throw new Error(repo.problem)
    const dir = path.join(await scratch.tempDir('port-clone-'), 'clone')
    const worktree = await port.clone(repo, 'main', dir, TEST_IDENTITY)
    const remote = await git(['remote', 'get-url', 'origin'], { cwd: worktree.dir })
    expect(remote.trim()).toBe(server.urlFor(name, ''))
    expect(await git(['rev-parse', '--is-shallow-repository'], { cwd: dir })).toBe('true\n')
  })
})
