import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { simpleGit, type SimpleGit } from 'simple-git'
import { endDescendants } from './process-tree.js'
import { parseNameStatus } from '../core/snapshot/changes.js'
import { classifyGitMessage, cleanGitMessage } from '../core/snapshot/git-errors.js'
import {
  GitFailure,
  type GitIdentity,
  type GitPort,
  type GitWorktree,
  type RemoteRepo,
} from '../core/snapshot/ports.js'

export interface GitToolOptions {
  /** Applied to every git message before it leaves this module. */
  redact: (text: string) => string
  /** A git command silent for this long is killed (a hung server must not hang the job). */
  blockTimeoutMs?: number
  /** A cancelled step: git and every process it started are ended, and no other starts. */
  signal?: AbortSignal
}

/** Certificate settings corporate runners rely on; plain data, so safe to pass to git. */
const PASSED_GIT_VARIABLES = ['GIT_SSL_CAINFO', 'GIT_SSL_CAPATH']
const CONFIG_VARIABLES = ['GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0']
// simple-git refuses these when present in an env we hand it; git does not need them here.
const DROPPED_VARIABLES = new Set(['editor', 'pager', 'prefix', 'ssh_askpass', 'visual'])

/**
 * Git through simple-git, built so that credentials never reach argv or a message: the URL is
 * credential-free, and the token travels as an `http.<url>.extraheader` set through git's
 * GIT_CONFIG_* environment (a `-c` argument would show in every process listing of the machine;
 * the environment is readable by the job's own user only, and simple-git does not keep it on
 * `GitError.task`). Every error becomes a GitFailure carrying only a cleaned, redacted message.
 */
export function createGitPort(options: GitToolOptions): GitPort {
  // Before simple-git's own listener, which kills git alone: git's remote helpers (git
  // remote-http, send-pack), which carry the token and hold the step's output, would be handed
  // to init and go on pushing after the step ended. They are found first, then ended together.
  options.signal?.addEventListener('abort', () => void endDescendants(), { once: true })
  const git = (repo: RemoteRepo, identity: GitIdentity, baseDir: string): SimpleGit =>
    client(repo, identity, baseDir, options)
  return {
    async branchTip(repo, branch) {
      const ref = `refs/heads/${branch}`
      const out = await guard(options, () =>
        git(repo, {}, process.cwd()).listRemote([repo.url, ref]),
      )
      for (const line of out.split('\n')) {
        const [sha, name] = line.trim().split('\t')
        if (name === ref && sha) return sha
      }
      return undefined
    },
    async clone(repo, branch, dir, identity) {
      await mkdir(dirname(dir), { recursive: true })
      const args = ['--depth', '1', '--branch', branch, '--single-branch', '--no-tags', '--quiet']
      await guard(options, () => git(repo, identity, dirname(dir)).clone(repo.url, dir, args))
      return worktree(git(repo, identity, dir), dir, options)
    },
  }
}

function worktree(git: SimpleGit, dir: string, options: GitToolOptions): GitWorktree {
  const raw = (args: string[]): Promise<string> => guard(options, () => git.raw(args))
  const head = async (): Promise<string> => (await raw(['rev-parse', 'HEAD'])).trim()
  return {
    dir,
    async stage(path) {
      // `literal` so that a folder name with glob characters means only itself.
      const spec = `:(literal)${path}`
      const status = await raw(['status', '--porcelain', '-z', '--untracked-files=all', '--', spec])
      if (status === '') return []
      await raw(['add', '--all', '--', spec])
      const diff = ['diff', '--cached', '--name-status', '--no-renames', '-z', 'HEAD', '--', spec]
      return parseNameStatus(await raw(diff))
    },
    async commit(message) {
      await raw(['commit', '--quiet', '--no-verify', '--message', message])
      return head()
    },
    async push(branch) {
      await raw(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`])
    },
    async syncTo(branch) {
      const tracking = `refs/remotes/origin/${branch}`
      await raw(['fetch', '--quiet', '--depth', '1', 'origin', `+refs/heads/${branch}:${tracking}`])
      await raw(['reset', '--quiet', '--hard', tracking])
      return head()
    },
  }
}

function client(
  repo: RemoteRepo,
  identity: GitIdentity,
  baseDir: string,
  options: GitToolOptions,
): SimpleGit {
  const config = [
    // No stored or prompted credentials: the header is the only one, so a bad token fails fast.
    'credential.helper=',
    'commit.gpgsign=false',
  ]
  if (identity.name) config.push(`user.name=${identity.name}`)
  if (identity.email) config.push(`user.email=${identity.email}`)
  return simpleGit({
    baseDir,
    config,
    allowEnvironment: [...CONFIG_VARIABLES, 'GIT_TERMINAL_PROMPT', ...PASSED_GIT_VARIABLES],
    unsafe: { allowUnsafeCredentialHelper: true, allowUnsafeConfigEnvCount: true },
    timeout: { block: options.blockTimeoutMs ?? 10 * 60_000 },
    abort: options.signal,
  }).env({
    ...childEnv(),
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `http.${repo.url}.extraheader`,
    GIT_CONFIG_VALUE_0: `Authorization: ${repo.authorization}`,
  })
}

/** The job's environment without the variables simple-git guards, plus no prompts, English. */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue
    const lower = name.toLowerCase()
    const passed = PASSED_GIT_VARIABLES.includes(name)
    if (!passed && (lower.startsWith('git_') || DROPPED_VARIABLES.has(lower))) continue
    env[name] = value
  }
  return { ...env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' }
}

/** Never lets a raw GitError out: its `task.commands` would print whatever argv held. */
async function guard<T>(options: GitToolOptions, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error)
    // Redacted before it is cleaned: a token cut or escaped there would no longer match the mask.
    throw new GitFailure(classifyGitMessage(raw), cleanGitMessage(options.redact(raw)))
  }
}
