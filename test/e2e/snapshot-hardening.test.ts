import { describe, expect, test } from '@jest/globals'
import type { ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import {
  DRAW_PASSWORD,
  IDS,
  PLATFORM_STATE,
  SESSION_TOKEN,
  TOOLKIT_INPUTS,
  writePlatformState,
} from '../helpers/fake-toolkit.js'
import { type GitServer } from '../helpers/git-server.js'
import {
  gitServerForSuite,
  makeWorkspace,
  pushAsSomeoneElse,
  repoMaker,
  scratch,
} from '../helpers/git-snapshot.js'
import { killAll, processesWithEnv, whenGone } from '../helpers/processes.js'
import { runAsGithub, type RunOptions, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { expectToSay } from '../helpers/assertions.js'

/**
 * The snapshot bundle against what the real toolkit and hostile repositories do: a
 * symbolic link on outputDir's way, in the working tree or committed in the target repository;
 * a first snapshot whose outputDir has no parent yet; a toolkit that never answers, stopped at
 * `toolkit-timeout-minutes` or by cancelling the step, its whole process group included, and the
 * processes it started in sessions of their own; and what the toolkit prints at debug level.
 * These tests run as root, where the step keeps the toolkit in a cgroup of its own: its messages
 * then say that every process the toolkit started was stopped.
 */
const TOKEN = 'ghs_hardeningToken7d3f9b1c'
const SECRETS = [TOKEN, DRAW_PASSWORD, SESSION_TOKEN]

let server: GitServer
gitServerForSuite(TOKEN, (started) => (server = started))

const freshRepo = repoMaker(() => server, 'acme/hardening')

interface TrackedRun {
  repo: string
  workspace: string
  /** The file where the fake toolkit and its children write their pids. */
  pids: string
  /** The variable every process of the run inherits, in whatever session it ends up. */
  ofThisRun: string
}

/** `body` with a fresh repository and workspace; what is left of the run is killed after it. */
async function withTrackedRun(body: (run: TrackedRun) => Promise<void>): Promise<void> {
  const repo = await freshRepo()
  const workspace = await makeWorkspace([gitEntry(repo)])
  const pids = path.join(await scratch.tempDir('pids-'), 'pids')
  const ofThisRun = `FAKE_TOOLKIT_PIDS=${pids}`
  try {
    await body({ repo, workspace, pids, ofThisRun })
  } finally {
    killAll(processesWithEnv(ofThisRun))
  }
}

const snapshooter = (outputDir = 'snapshot/sales'): object => ({
  name: 'sales',
  rootTags: [IDS.sales],
  outputDir,
})
const gitEntry = (repo: string, outputDir?: string): object => ({
  snapshooter: snapshooter(outputDir),
  git: { repo: server.urlFor(repo), branch: 'main', commitMessage: 'Snapshot at {date}' },
})

interface Run {
  inputs?: Record<string, string>
  env?: Record<string, string>
  onSpawn?: RunOptions['onSpawn']
  timeoutMs?: number
}

function github(workspace: string, run: Run = {}): Promise<RunResult> {
  return runAsGithub('snapshot', {
    cwd: workspace,
    inputs: {
      ...TOOLKIT_INPUTS,
      ...run.inputs,
    },
    env: { FAKE_PLATFORM_STATE: PLATFORM_STATE, ...run.env },
    event: { name: 'schedule' },
    onSpawn: run.onSpawn,
    timeoutMs: run.timeoutMs,
  })
}

const captured = (run: RunResult): Record<string, string> => ({
  stdout: run.stdout,
  stderr: run.stderr,
  ...run.files,
})

/** A folder outside every clone and workspace, holding a file that must survive. */
async function outsideWithSentinel(): Promise<{ outside: string; sentinel: string }> {
  const outside = await scratch.tempDir('outside-')
  const sentinel = path.join(outside, 'sentinel.txt')
  await writeFile(sentinel, 'keep me\n')
  return { outside, sentinel }
}

/** The pids the fake toolkit recorded (itself, then its snapshooter child). */
function recordedPids(file: string): number[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number)
}

/** Processes of a process group that still run (zombies, which nobody may reap here, excluded). */
function runningInGroup(group: number): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8')
    } catch {
      continue
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(pgrp) === group && state !== 'Z') found.push(Number(name))
  }
  return found
}

/** SIGKILL is acted on when the process is next scheduled: look again for a moment. */
async function groupGone(group: number): Promise<number[]> {
  for (let tries = 0; tries < 100 && runningInGroup(group).length > 0; tries++)
    await new Promise((resolve) => setTimeout(resolve, 20))
  return runningInGroup(group)
}

describe('a symbolic link on the way of outputDir', () => {
  test('in the working tree: refused before the toolkit runs, the file outside survives', async () => {
    const { outside, sentinel } = await outsideWithSentinel()
    const workspace = await makeWorkspace([{ snapshooter: snapshooter() }])
    await symlink(outside, path.join(workspace, 'snapshot'))
    const pids = path.join(await scratch.tempDir('pids-'), 'pids')
    const run = await github(workspace, { env: { FAKE_TOOLKIT_PIDS: pids } })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      `::error title=olympe snapshot failed::Entry 'sales' (res/snapshot-config.json [0]): outputDir 'snapshot/sales' in the working directory: 'snapshot', on its way, is a symbolic link (to '${outside}', which leads outside the working directory). The toolkit empties outputDir and writes into it through links, which could delete and write files elsewhere. Make it a real folder, or choose another outputDir.%0ANothing was exported or pushed.`,
    )
    expect(recordedPids(pids)).toEqual([])
    expect(run.stdout).not.toContain("::group::Export 'sales'")
    expect(await readFile(sentinel, 'utf8')).toBe('keep me\n')
    expect(await readdir(outside)).toEqual(['sentinel.txt'])
  })

  test('committed in the target repository: refused before the toolkit runs, nothing pushed', async () => {
    const { outside, sentinel } = await outsideWithSentinel()
    const repo = await freshRepo()
    await pushAsSomeoneElse(server.urlFor(repo), 'Point snapshot elsewhere', async (clone) => {
      await mkdir(path.join(clone, 'exports'))
      await symlink(outside, path.join(clone, 'exports', 'teams'))
    })
    const before = await server.log(repo, 'main')
    const workspace = await makeWorkspace([gitEntry(repo, 'exports/teams/sales')])
    const pids = path.join(await scratch.tempDir('pids-'), 'pids')
    const run = await github(workspace, { env: { FAKE_TOOLKIT_PIDS: pids } })
    expect(run.code).toBe(1)
    const clone = `the clone of http://***@127.0.0.1:${new URL(server.baseUrl).port}/${repo}.git (branch 'main')`
    expect(run.stdout).toContain(
      `Entry 'sales' (res/snapshot-config.json [0]): outputDir 'exports/teams/sales' in ${clone}: 'exports/teams', on its way, is a symbolic link (to '${outside}', which leads outside ${clone}). The toolkit empties outputDir and writes into it through links, which could delete and write files elsewhere. Make it a real folder in the repository, or choose another outputDir.%0ANothing was exported or pushed.`,
    )
    expect(recordedPids(pids)).toEqual([])
    expect(await readFile(sentinel, 'utf8')).toBe('keep me\n')
    expect(await readdir(outside)).toEqual(['sentinel.txt'])
    expect(await server.log(repo, 'main')).toEqual(before)
    expectNoSecrets(captured(run), SECRETS)
  })
})

describe('what the real toolkit does', () => {
  test('a first snapshot into a fresh repository whose outputDir has no parent yet: committed and pushed', async () => {
    const repo = await freshRepo()
    const local = { snapshooter: { ...snapshooter('local/teams/sales'), name: 'local' } }
    const workspace = await makeWorkspace([gitEntry(repo, 'exports/teams/sales'), local])
    const run = await github(workspace)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expectToSay(
      run.stdout,
      `'sales': created 'exports/teams' in the clone of http://***@127.0.0.1:${new URL(server.baseUrl).port}/${repo}.git (branch 'main'), where exports/teams/sales goes (the toolkit creates the last folder only).`,
      "'local': created 'local/teams' in the working directory, where local/teams/sales goes",
    )
    expect(run.outputs.changed).toBe('true')
    expect(Object.keys(await server.files(repo, 'main', 'exports'))).toContain(
      `exports/teams/sales/${IDS.sales}/${IDS.sales}.json`,
    )
    expect(existsSync(path.join(workspace, 'local/teams/sales', IDS.sales))).toBe(true)
    expectNoSecrets(captured(run), SECRETS)
  })

  test('a toolkit that never answers is stopped at toolkit-timeout-minutes, its whole process group with it', async () => {
    const repo = await freshRepo()
    const workspace = await makeWorkspace([gitEntry(repo)])
    const pids = path.join(await scratch.tempDir('pids-'), 'pids')
    // Both the toolkit and its snapshooter child ignore SIGTERM: only SIGKILL to the group ends them.
    const run = await github(workspace, {
      inputs: { 'toolkit-timeout-minutes': '0.02' },
      env: { FAKE_TOOLKIT_HANG: 'ignore-sigterm', FAKE_TOOLKIT_PIDS: pids },
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      "::error title=olympe snapshot failed::The toolkit was still exporting entry 'sales' (res/snapshot-config.json [0]) after 0.02 minute(s) ('toolkit-timeout-minutes'), so it was stopped with every process it had started (SIGTERM, then SIGKILL after 3 s). Nothing was committed or pushed. Its last output:",
    )
    const [toolkit, snapshooterChild] = recordedPids(pids)
    expect(snapshooterChild).toBeDefined()
    expect(await groupGone(toolkit ?? 0)).toEqual([])
    expect(server.refUpdates(repo)).toEqual([])
    expectNoSecrets(captured(run), SECRETS)
  })

  test('cancelling the step (SIGINT, as the GitHub runner does) stops the toolkit and its children', async () => {
    const repo = await freshRepo()
    const workspace = await makeWorkspace([gitEntry(repo)])
    const pids = path.join(await scratch.tempDir('pids-'), 'pids')
    let step: ChildProcess | undefined
    const running = github(workspace, {
      env: { FAKE_TOOLKIT_HANG: '1', FAKE_TOOLKIT_PIDS: pids },
      onSpawn: (child) => (step = child),
    })
    for (let tries = 0; recordedPids(pids).length < 2 && tries < 500; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20))
    step?.kill('SIGINT')
    const run = await running
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      "::error title=olympe snapshot cancelled::The step was cancelled (SIGINT) while the toolkit exported entry 'sales' (res/snapshot-config.json [0]): the toolkit was stopped with every process it had started (SIGTERM, then SIGKILL after 3 s). Nothing was committed or pushed.",
    )
    const [toolkit] = recordedPids(pids)
    if (toolkit === undefined) throw new Error('the fake toolkit recorded no pid')
    expect(await groupGone(toolkit)).toEqual([])
  })

  // Old runs waited for ever for the output of a child that called setsid (keep-output), or said
  // that every process was stopped while that child ran on with DRAW_PASSWORD (close-output).
  test.each(['keep-output', 'close-output'])(
    'the escaping toolkit (%s) ends within the timeout with nothing of its left running',
    async (form) => {
      await withTrackedRun(async ({ repo, workspace, pids, ofThisRun }) => {
        const run = await github(workspace, {
          inputs: { 'toolkit-timeout-minutes': '0.02' },
          env: { FAKE_TOOLKIT_HANG: '1', FAKE_TOOLKIT_ESCAPE: form, FAKE_TOOLKIT_PIDS: pids },
          timeoutMs: 60_000,
        })
        expect(run.code).toBe(1)
        expect(run.stdout).toContain(
          "::error title=olympe snapshot failed::The toolkit was still exporting entry 'sales' (res/snapshot-config.json [0]) after 0.02 minute(s) ('toolkit-timeout-minutes'), so it was stopped with every process it had started, one of them in a session of its own (SIGTERM, then SIGKILL after 3 s). Nothing was committed or pushed. Its last output:",
        )
        // The toolkit, the child in a session of its own, the snapshooter.
        expect(recordedPids(pids)).toHaveLength(3)
        expect(await whenGone(() => processesWithEnv(ofThisRun))).toEqual([])
        expect(server.refUpdates(repo)).toEqual([])
        expectNoSecrets(captured(run), SECRETS)
      })
    },
  )

  test('a toolkit that exports, exits and leaves a child in a session of its own on its output: pushed, the child ended, and a warning', async () => {
    await withTrackedRun(async ({ workspace, pids, ofThisRun }) => {
      const run = await github(workspace, {
        env: { FAKE_TOOLKIT_ESCAPE: 'keep-output', FAKE_TOOLKIT_PIDS: pids },
        timeoutMs: 60_000,
      })
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(run.stdout).toContain(
        "::warning::The toolkit left 1 process running in a session of its own after it exported entry 'sales': the step ended it, as it held the toolkit's environment ('draw-password' included).",
      )
      expect(run.outputs.changed).toBe('true')
      expect(await whenGone(() => processesWithEnv(ofThisRun))).toEqual([])
      expectNoSecrets(captured(run), SECRETS)
    })
  })

  test('LOG_LEVEL=info, unless the step runs in debug mode: then the password and rndCook are masked', async () => {
    const repo = await freshRepo()
    const quiet = await github(await makeWorkspace([gitEntry(repo)]))
    expect(quiet.code).toBe(0)
    expect(quiet.stdout).not.toContain('Going to run snapshooter')
    const debug = await github(await makeWorkspace([gitEntry(repo, 'snapshot/again')]), {
      env: { RUNNER_DEBUG: '1' },
    })
    expect(debug.code).toBe(0)
    expectToSay(
      debug.stdout,
      'auth.autoPassword=*** server.host=localhost',
      'with password ***',
      'creating token: rndCook=***',
    )
    expectNoSecrets(captured(quiet), SECRETS)
    expectNoSecrets(captured(debug), SECRETS)
  })

  test('an all-digit password: warned, and the sign-in failure is named as such', async () => {
    const state = await writePlatformState(
      path.join(await scratch.tempDir('state-'), 'state.json'),
      (s) => (s.credentials.password = '00123456'),
    )
    const repo = await freshRepo()
    const run = await github(await makeWorkspace([gitEntry(repo)]), {
      inputs: { 'draw-password': '00123456', 'orchestrator-host': 'orch.example.com' },
      env: { FAKE_PLATFORM_STATE: state },
    })
    expect(run.code).toBe(1)
    expectToSay(
      run.stdout,
      "::warning::'draw-password' is all digits; the toolkit reads such a value as a number (0042 becomes 42)",
      "::warning::The toolkit uses TLS only on port 443: on port 8080 it signs in to 'orch.example.com' in clear",
      "The orchestrator refused the sign-in: check 'draw-username' and 'draw-password'",
    )
    expectNoSecrets(captured(run), [TOKEN, '00123456'])
  })
})
