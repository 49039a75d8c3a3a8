// Runs the snapshot core in-process with its real tools (simple-git, the fake toolkit through the
// exec port, the file system) and captures what a user would see, for integration tests.
import { afterAll, beforeAll } from '@jest/globals'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { withDefaults } from '../../src/core/definition.js'
import type { Summary } from '../../src/core/shared/ports.js'
import { Redactor } from '../../src/core/shared/redactor.js'
import { snapshotDefinition, type SnapshotInputName } from '../../src/core/snapshot/definition.js'
import { checkSnapshot } from '../../src/core/snapshot/check.js'
import type { GitPort, GitWorktree, SnapshotPorts } from '../../src/core/snapshot/ports.js'
import { runSnapshot } from '../../src/core/snapshot/run.js'
import { createGitPort } from '../../src/tools/git.js'
import { nodeFiles } from '../../src/tools/files.js'
import { runToolkit } from '../../src/tools/toolkit-runner.js'
import { Cleanup } from './cleanup.js'
import { PLATFORM_STATE, TOOLKIT_INPUTS } from './fake-toolkit.js'
import { git, type CreateRepoOptions } from './git-repos.js'
import { startGitServer, type GitServer } from './git-server.js'

export interface CoreRun {
  workspace: string
  error?: Error
  log: string[]
  outputs: Record<string, string>
  summaries: Summary[]
}

export interface CoreRunOptions {
  config: unknown
  inputs?: Partial<Record<SnapshotInputName, string>>
  /** Environment for the fake toolkit: FAKE_PLATFORM_STATE (default: the fixture), switches. */
  toolkitEnv?: Record<string, string>
  /** Called before each push of ours: how a test makes someone else push first. */
  beforePush?: (attempt: number) => Promise<void>
}

export const TEST_IDENTITY = { name: 'Snapshot Bot', email: 'snapshot-bot@example.test' }

/**
 * The suite's own Cleanup (every test file loads this module afresh): the folders of
 * makeWorkspace, runSnapshotCore and pushAsSomeoneElse, and the server of gitServerForSuite, which
 * runs it after the suite's tests. A test takes its other folders from it too (`tempDir`).
 */
export const scratch = new Cleanup()

/** A git server that wants `token`, started before the suite's tests and handed to `started`. */
export function gitServerForSuite(token: string, started: (server: GitServer) => void): void {
  beforeAll(async () => {
    started(scratch.track('git server', await startGitServer({ token })))
  })
  afterAll(() => scratch.run())
}

/**
 * A new repository on the suite's server at each call, named `<prefix>-1`, `<prefix>-2`…, its
 * first commit holding `options.files` (a README.md unless told).
 */
export function repoMaker(
  server: () => GitServer,
  prefix: string,
  options?: CreateRepoOptions,
): () => Promise<string> {
  let made = 0
  return async () => {
    const name = `${prefix}-${++made}`
    await server().createRepo(name, options)
    return name
  }
}

/** A workspace with the configuration written to res/snapshot-config.json. */
export async function makeWorkspace(config: unknown): Promise<string> {
  const workspace = await scratch.tempDir('snapshot-ws-')
  await mkdir(path.join(workspace, 'res'))
  await writeFile(path.join(workspace, 'res/snapshot-config.json'), JSON.stringify(config, null, 2))
  return workspace
}

export async function runSnapshotCore(options: CoreRunOptions): Promise<CoreRun> {
  const workspace = await makeWorkspace(options.config)
  const redactor = new Redactor()
  const r = (text: string): string => redactor.redact(text)
  const run: CoreRun = { workspace, log: [], outputs: {}, summaries: [] }
  const say = (prefix: string) => (message: string) => run.log.push(`${prefix}${r(message)}`)
  const raw = withDefaults(snapshotDefinition, { ...TOOLKIT_INPUTS, ...options.inputs })
  redactor.add(raw['draw-password'])
  const tools: SnapshotPorts = {
    logger: {
      info: say(''),
      warning: say('warning: '),
      error: say('error: '),
      debug: () => undefined,
      group: async (title, body) => {
        run.log.push(`== ${r(title)}`)
        return body()
      },
    },
    reporter: {
      setOutput: (name, value) => (run.outputs[name] = r(value)),
      summary: (summary) => {
        run.summaries.push(summary)
        return Promise.resolve()
      },
    },
    registerSecret: (value) => redactor.add(value),
    redact: r,
    git: racingGit(createGitPort({ redact: r }), options.beforePush),
    runToolkit: (command, args, o) =>
      runToolkit(command, args, {
        ...o,
        env: { FAKE_PLATFORM_STATE: PLATFORM_STATE, ...options.toolkitEnv, ...o.env },
      }),
    files: nodeFiles,
    variable: () => undefined,
    clock: { now: () => new Date(2026, 2, 4, 5, 6, 7), sleep: () => Promise.resolve() },
    random: () => 0,
  }
  try {
    const checked = await checkSnapshot(raw, { workspace }, tools)
    await runSnapshot(checked, { workspace, actor: TEST_IDENTITY }, tools)
  } catch (error) {
    run.error = error as Error
  }
  return run
}

function racingGit(inner: GitPort, beforePush: CoreRunOptions['beforePush']): GitPort {
  if (!beforePush) return inner
  let attempt = 0
  return {
    branchTip: (repo, branch) => inner.branchTip(repo, branch),
    async clone(repo, branch, dir, identity) {
      const worktree = await inner.clone(repo, branch, dir, identity)
      const wrapped: GitWorktree = {
        dir: worktree.dir,
        stage: (p) => worktree.stage(p),
        commit: (m) => worktree.commit(m),
        syncTo: (b) => worktree.syncTo(b),
        push: async (b) => {
          await beforePush(++attempt)
          await worktree.push(b)
        },
      }
      return wrapped
    },
  }
}

const OTHER = ['-c', 'user.name=Someone Else', '-c', 'user.email=else@example.test']

/** Someone else's push: clone, let `change` edit the clone, commit everything, push. */
export async function pushAsSomeoneElse(
  url: string,
  subject: string,
  change: (clone: string) => Promise<void>,
): Promise<void> {
  const clone = await scratch.tempDir('someone-else-')
  const env = { ...process.env, GIT_TERMINAL_PROMPT: '0' }
  await git(['clone', '--quiet', '--depth', '1', url, clone], { env })
  await change(clone)
  await git(['add', '--all'], { cwd: clone, env })
  await git([...OTHER, 'commit', '--quiet', '-m', subject], { cwd: clone, env })
  await git(['push', '--quiet', 'origin', 'HEAD'], { cwd: clone, env })
}
