// Checks for test/fixtures/fake-toolkit, run by git-server.check.ts: the fake must honour the
// toolkit contract the actions rely on (snapshot, buildCodeAsData), or tests built on it prove
// nothing.
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { GitServer } from './git-server.js'
import { capture } from './run-process.js'

export const fakeToolkitDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/fake-toolkit',
)
const olympe = path.join(fakeToolkitDir, 'olympe.js')
const DRAW_PASSWORD = 'fake-draw-password-4f9c'
const ORCHESTRATOR_HOST = 'orchestrator.internal.example'
const HOME = '10000000000000000000'
const OLYMPE = '10000000000000000001'
const SALES = '01850a59bb68c324907a'
const SALES_TREE = [SALES, '017d57e759b3e7ec670c', '018a88a4d5312b1501c6', '0191c2d3e4f5a6b7c8d9']
const SHARED = '01903b7f2c4e5a6d8e10'
const SHARED_TREE = [SHARED, '01903b7f2c4e5a6d8e11']

const snapshotConfig = [
  { snapshooter: { name: 'all', rootTags: [HOME], exclude: [OLYMPE], outputDir: 'snapshot/all' } },
  { snapshooter: { name: 'sales', rootTags: [SALES, SHARED], outputDir: 'snapshot/sales' } },
]
const expectedFiles = [
  ...[HOME, ...SALES_TREE, ...SHARED_TREE].map((id) => `all/${HOME}/${id}.json`),
  ...SALES_TREE.map((id) => `sales/${SALES}/${id}.json`),
  ...SHARED_TREE.map((id) => `sales/${SHARED}/${id}.json`),
].sort()

export interface CheckContext {
  step: (name: string, fn: () => Promise<void>) => Promise<void>
  server: GitServer
  work: string
  gitIn: (cwd: string, args: string[]) => Promise<string>
}

interface RunResult {
  code: number
  stdout: string
  stderr: string
}

async function run(
  file: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<RunResult> {
  const { code, stdout, stderr } = await capture(file, args, { cwd, env })
  return { code: code ?? 1, stdout, stderr }
}

function toolkitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    FAKE_PLATFORM_STATE: path.join(fakeToolkitDir, 'platform-state.json'),
    SNAPSHOT_CONFIG: 'snapshot-config.json',
    ORCHESTRATOR_HOST,
    ORCHESTRATOR_SERVICE_PORT: '443',
    DRAW_USERNAME: 'admin',
    DRAW_PASSWORD,
    ...extra,
  }
}

const snapshot = (
  cwd: string,
  extra: NodeJS.ProcessEnv = {},
  command = 'snapshot',
): Promise<RunResult> => run(process.execPath, [olympe, command], cwd, toolkitEnv(extra))

async function treeDigest(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  const digest: Record<string, string> = {}
  for (const entry of entries.filter((e) => e.isFile())) {
    const full = path.join(entry.parentPath, entry.name)
    const hash = createHash('sha256').update(await readFile(full))
    digest[path.relative(dir, full)] = hash.digest('hex')
  }
  return digest
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, JSON.stringify(value))
}

/** Expects `team/app` on the server with a clone of it at `<work>/a`. */
export async function checkFakeToolkit({ step, server, work, gitIn }: CheckContext): Promise<void> {
  await step('fake toolkit snapshot into a clone, commit, push, files() matches', async () => {
    const clone = path.join(work, 'a')
    await writeJson(path.join(clone, 'snapshot-config.json'), snapshotConfig)
    await writeJson(path.join(clone, 'snapshot', 'all', 'stale.json'), {})
    const first = await snapshot(clone)
    assert.equal(first.code, 0, first.stderr)
    assert.match(first.stdout, /Snapshooting all\.\.\./)
    assert.ok(!`${first.stdout}${first.stderr}`.includes(DRAW_PASSWORD), 'password printed')
    const tree = await treeDigest(path.join(clone, 'snapshot'))
    assert.deepEqual(Object.keys(tree).sort(), expectedFiles, 'stale file gone, Olympe excluded')
    const second = await snapshot(clone)
    assert.equal(second.code, 0, second.stderr)
    const again = await treeDigest(path.join(clone, 'snapshot'))
    assert.deepEqual(again, tree, 'an unchanged platform must give byte-identical files')
    await gitIn(clone, ['add', 'snapshot'])
    await gitIn(clone, ['commit', '--quiet', '-m', 'Snapshot at {date}'])
    await gitIn(clone, ['push', '--quiet', 'origin', 'main'])
    const pushed = Object.keys(await server.files('team/app', 'main', 'snapshot')).sort()
    assert.deepEqual(
      pushed,
      expectedFiles.map((f) => `snapshot/${f}`),
    )
  })

  await step('fake toolkit: config directory, failures, secrets echo', async () => {
    const dir = path.join(work, 'toolkit')
    await writeJson(path.join(dir, 'cfg', 'a.json'), snapshotConfig.slice(0, 1))
    await writeJson(path.join(dir, 'cfg', 'nested', 'b.json'), snapshotConfig.slice(1))
    await mkdir(path.join(dir, 'snapshot'))
    const fromDir = await snapshot(dir, { SNAPSHOT_CONFIG: 'cfg' })
    assert.equal(fromDir.code, 0, fromDir.stderr)
    assert.match(fromDir.stdout, /2 snapshooter\(s\)/)
    assert.ok(fromDir.stdout.includes('\u001b[32minfo\u001b[39m: '), 'levels are coloured')
    assert.ok(!fromDir.stdout.includes(DRAW_PASSWORD), 'no password at LOG_LEVEL=info')

    const badPassword = await snapshot(dir, { SNAPSHOT_CONFIG: 'cfg', DRAW_PASSWORD: 'nope-123' })
    assert.equal(badPassword.code, 1)
    assert.match(badPassword.stderr, /Invalid username or password/)
    assert.ok(!`${badPassword.stdout}${badPassword.stderr}`.includes('nope-123'))

    const echo = await snapshot(dir, { SNAPSHOT_CONFIG: 'cfg', FAKE_TOOLKIT_ECHO_SECRETS: '1' })
    assert.ok(echo.stdout.includes(DRAW_PASSWORD) && echo.stdout.includes(ORCHESTRATOR_HOST))

    // Like the real one at LOG_LEVEL=debug: the password three times, and the session token.
    const debug = await snapshot(dir, { SNAPSHOT_CONFIG: 'cfg', LOG_LEVEL: 'debug' })
    assert.equal(debug.code, 0, debug.stderr)
    assert.equal(debug.stdout.split(DRAW_PASSWORD).length - 1, 2 * 3, 'three per entry')
    assert.match(debug.stdout, /rndCook=fake-rndcook-5e8a1f/)

    const failing = await snapshot(dir, {
      SNAPSHOT_CONFIG: 'cfg',
      FAKE_TOOLKIT_FAIL_ENTRY: 'sales',
    })
    assert.equal(failing.code, 1)
    assert.match(failing.stderr, /snapshot sales failed/)

    assert.equal((await snapshot(dir, {}, 'build')).code, 2)

    const gitObject = { repo: 'x', branch: 'main', commitMessage: 'm' }
    await writeJson(path.join(dir, 'git.json'), [{ ...snapshotConfig[0], git: gitObject }])
    const withGit = await snapshot(dir, { SNAPSHOT_CONFIG: 'git.json' })
    assert.equal(withGit.code, 1, 'the action must strip `git` before calling the toolkit')
  })

  await step('fake toolkit: the real contract (parents, emptying, spaces, numbers)', () =>
    checkRealContract(path.join(work, 'contract')),
  )

  await step('fake toolkit: FAKE_TOOLKIT_HANG signs in, then waits with its child', () =>
    checkHang(path.join(work, 'hang')),
  )

  await step('fake toolkit buildCodeAsData: dependencies in order, snapshots, versions', () =>
    checkBuildCodeAsData(path.join(work, 'code-as-data')),
  )

  await step('fake toolkit installed as a dependency runs via npx', async () => {
    const project = path.join(work, 'sample-project')
    await writeJson(path.join(project, 'package.json'), { name: 'sample', private: true })
    await writeJson(path.join(project, 'snapshot-config.json'), snapshotConfig)
    await mkdir(path.join(project, 'snapshot'))
    const npmArgs = ['install', '--offline', '--no-audit', '--no-fund', `file:${fakeToolkitDir}`]
    const install = await run('npm', npmArgs, project, process.env)
    assert.equal(install.code, 0, install.stderr)
    const unconfigured = await run('npx', ['--no', 'olympe', 'snapshot'], project, process.env)
    assert.equal(unconfigured.code, 1, 'without FAKE_PLATFORM_STATE the fake must refuse')
    const npxEnv = { ...process.env, ...toolkitEnv() }
    const result = await run('npx', ['--no', 'olympe', 'snapshot'], project, npxEnv)
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, /Snapshot finished/)
  })
}

const entryOf = (name: string, outputDir: string): object[] => [
  { snapshooter: { name, rootTags: [SALES], outputDir } },
]

/** What the real toolkit 1.2.3 does that tests built on a kinder fake would miss. */
async function checkRealContract(dir: string): Promise<void> {
  const sales = `${SALES}/${SALES}.json`
  await writeJson(path.join(dir, 'first.json'), entryOf('first', 'snapshot/sales'))
  const first = await snapshot(dir, { SNAPSHOT_CONFIG: 'first.json' })
  assert.equal(first.code, 1, 'the parent of outputDir is not created')
  assert.match(first.stderr, /ENOENT: no such file or directory, mkdir 'snapshot\/sales'/)

  await writeJson(path.join(dir, 'snapshot', 'sales', 'kept.json'), {})
  const refused = await snapshot(dir, { SNAPSHOT_CONFIG: 'first.json', DRAW_PASSWORD: 'nope' })
  assert.equal(refused.code, 1)
  assert.ok(!existsSync(path.join(dir, 'snapshot/sales/kept.json')), 'emptied before sign-in')

  // A space in the working folder cuts the path the snapshooter writes to.
  const spaced = path.join(dir, 'my project')
  await writeJson(path.join(spaced, 'c.json'), entryOf('spaced', 'out'))
  const cut = await snapshot(spaced, { SNAPSHOT_CONFIG: 'c.json' })
  assert.equal(cut.code, 0, cut.stderr)
  assert.ok(existsSync(path.join(dir, 'my', sales)), 'written where the cut path points')
  assert.deepEqual(await readdir(path.join(spaced, 'out', SALES)), [], 'outputDir left empty')

  await writeJson(path.join(dir, 'name.json'), entryOf('My Projects', 'snapshot/named'))
  const named = await snapshot(dir, { SNAPSHOT_CONFIG: 'name.json' })
  assert.equal(named.code, 1, 'a space in the name breaks the JSON on the command line')
  assert.match(named.stderr, /cannot read snapshotConfig/)

  const state = path.join(dir, 'state.json')
  const platform = JSON.parse(
    await readFile(path.join(fakeToolkitDir, 'platform-state.json'), 'utf8'),
  ) as { credentials: { password: string } }
  platform.credentials.password = '00123456'
  await writeJson(state, platform)
  const digits = { SNAPSHOT_CONFIG: 'first.json', FAKE_PLATFORM_STATE: state }
  const zeros = await snapshot(dir, { ...digits, DRAW_PASSWORD: '00123456' })
  assert.equal(zeros.code, 1, 'the snapshooter reads 00123456 as 123456')
  assert.match(zeros.stderr, /Invalid username or password/)
}

async function checkHang(dir: string): Promise<void> {
  await writeJson(path.join(dir, 'c.json'), entryOf('hang', 'out'))
  const pids = path.join(dir, 'pids')
  let toolkitPid: number | undefined
  // Its own process group, as the action runs the toolkit: the group is stopped whole below.
  const ended = capture(process.execPath, [olympe, 'snapshot'], {
    cwd: dir,
    env: toolkitEnv({ SNAPSHOT_CONFIG: 'c.json', FAKE_TOOLKIT_HANG: '1', FAKE_TOOLKIT_PIDS: pids }),
    detached: true,
    onSpawn: (child: ChildProcess) => (toolkitPid = child.pid),
  })
  const recorded = async (): Promise<number[]> =>
    existsSync(pids) ? (await readFile(pids, 'utf8')).split('\n').filter(Boolean).map(Number) : []
  try {
    for (let tries = 0; (await recorded()).length < 2 && tries < 200; tries++)
      await new Promise((resolve) => setTimeout(resolve, 50))
    const [toolkit, snapshooter] = await recorded()
    assert.equal(toolkit, toolkitPid, 'the toolkit records itself first')
    assert.ok(snapshooter !== undefined && isRunning(snapshooter), 'its snapshooter child waits')
  } finally {
    if (toolkitPid !== undefined) process.kill(-toolkitPid, 'SIGKILL')
    await ended
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// A project as `npm install` leaves it: packages with `codeAsData` folders (the runtime's two
// halves share one module), a package without, snapshots with a users folder to leave out.
const CODE_AS_DATA_PROJECT: Record<string, unknown> = {
  'package.json': {
    name: '@acme/app',
    devDependencies: { '@olympeio/draw': '~2.15.0', other: '1.0.0' },
    dependencies: { '@olympeio/runtime-node': '~9.15.0', '@olympeio/runtime-web': '~9.15.0' },
  },
  'node_modules/@olympeio/draw/package.json': {
    version: '2.15.3',
    codeAsData: 'cad',
    dependencies: { '@olympeio/core': '~2.15.0' },
  },
  'node_modules/@olympeio/draw/cad/composer/d.json': { id: 'd' },
  'node_modules/@olympeio/core/package.json': { version: '2.15.1', codeAsData: 'cad' },
  'node_modules/@olympeio/core/cad/a/a.json': { id: 'a' },
  'node_modules/@olympeio/core/cad/b/b.json': { id: 'b' },
  'node_modules/@olympeio/runtime-web/package.json': { version: '9.15.3', codeAsData: 'cad' },
  'node_modules/@olympeio/runtime-web/cad/runtime/r.json': { id: 'r' },
  'node_modules/@olympeio/runtime-node/package.json': { version: '9.15.3', codeAsData: 'cad' },
  'node_modules/@olympeio/runtime-node/cad/runtime/r.json': { id: 'r' },
  'node_modules/other/package.json': { version: '1.0.0' },
  'snapshot/sales/Home/s.json': { id: 's' },
  'snapshot/users/u.json': { id: 'u' },
  'dist/codeAsData/stale.json': {},
}

async function checkBuildCodeAsData(project: string): Promise<void> {
  for (const [file, value] of Object.entries(CODE_AS_DATA_PROJECT))
    await writeJson(path.join(project, file), value)
  const build = (args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<RunResult> =>
    run(process.execPath, [olympe, 'buildCodeAsData', ...args], project, {
      PATH: process.env.PATH,
      ...env,
    })
  const out = path.join(project, 'dist/codeAsData')

  const all = await build()
  assert.equal(all.code, 0, all.stderr)
  assert.deepEqual(Object.keys(await treeDigest(out)).sort(), [
    'acme.app/s.json',
    'import_order.json',
    'olympeio.core/a/a.json',
    'olympeio.core/b/b.json',
    'olympeio.draw/d.json',
    'olympeio.runtime/r.json',
    'version.json',
  ])
  const order = JSON.parse(await readFile(path.join(out, 'import_order.json'), 'utf8')) as {
    name: string
    rootTag: string
    path: string
  }[]
  assert.deepEqual(
    order.map(({ name, path: folder }) => `${name} ${folder}`),
    [
      '@olympeio/core olympeio.core',
      '@olympeio/draw olympeio.draw',
      '@olympeio/runtime olympeio.runtime',
      '@acme/app acme.app',
    ],
  )
  assert.ok(order.every(({ rootTag }) => rootTag === HOME))
  assert.equal(
    await readFile(path.join(out, 'version.json'), 'utf8'),
    '{"drawVersion":"2.15.3","runtimeVersion":"9.15.3"}',
  )

  const own = await build(['--codeAsData.mode', 'project'])
  assert.equal(own.code, 0, own.stderr)
  assert.deepEqual(Object.keys(await treeDigest(out)).sort(), [
    'acme.app/s.json',
    'import_order.json',
  ])

  await writeJson(path.join(out, 'kept.json'), {})
  const inDocker = await build([], { RUNNING_IN_DOCKER: 'true' })
  assert.equal(inDocker.code, 0, 'the toolkit only logs this error')
  assert.match(inDocker.stderr, /Cannot build code as data inside of the container/)
  assert.ok(existsSync(path.join(out, 'kept.json')), 'nothing is touched in a container')

  const badMode = await build(['--codeAsData.mode', 'everything'])
  assert.equal(badMode.code, 1)
  assert.match(badMode.stderr, /Unknown option for codeAsData mode everything/)

  await writeJson(path.join(project, 'node_modules/@olympeio/core/package.json'), {
    codeAsData: 'missing',
  })
  const missing = await build()
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /The given codeAsData path .*missing does not exist/)
}
