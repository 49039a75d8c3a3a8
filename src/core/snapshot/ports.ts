import type { CommonPorts } from '../shared/ports.js'

/** A remote repository with its credentials taken out of the URL. */
export interface RemoteRepo {
  /** Without credentials: what git is given and what the clone's config keeps. */
  url: string
  /** `https://***@host/path`, for messages. */
  display: string
  /** `Basic …`: sent as an `http.extraheader`, never on a command line. */
  authorization: string
  /** Every form of the credential that must be masked. */
  secrets: string[]
}

export interface GitIdentity {
  name?: string
  email?: string
}

export type ChangeKind = 'added' | 'modified' | 'deleted'

export interface FileChange {
  kind: ChangeKind
  path: string
}

/**
 * Why a git command failed. `auth`: the server refused the credentials; `not-found`: no such
 * repository; `rejected`: a push lost a race with another push (retrying can help); `identity`:
 * no author identity. The message is already stripped of credentials.
 */
export type GitFailureKind = 'auth' | 'not-found' | 'rejected' | 'identity' | 'other'

export class GitFailure extends Error {
  override readonly name = 'GitFailure'
  constructor(
    readonly kind: GitFailureKind,
    message: string,
  ) {
    super(message)
  }
}

/** Git as the snapshot needs it; implementations throw only GitFailure. */
export interface GitPort {
  /** The branch tip's commit, or undefined when the branch does not exist. */
  branchTip(repo: RemoteRepo, branch: string): Promise<string | undefined>
  /** A shallow, single-branch clone into `dir` (which must not exist). */
  clone(repo: RemoteRepo, branch: string, dir: string, identity: GitIdentity): Promise<GitWorktree>
}

export interface GitWorktree {
  readonly dir: string
  /** Stages every change under `path` (added, modified, deleted) and lists what differs from HEAD. */
  stage(path: string): Promise<FileChange[]>
  /** Commits what is staged; returns the new commit's sha. */
  commit(message: string): Promise<string>
  /** Pushes HEAD to the branch, fast-forward only. */
  push(branch: string): Promise<void>
  /** Fetches the branch and resets onto its tip, dropping local commits and staged changes. */
  syncTo(branch: string): Promise<string>
}

export interface ToolkitRunOptions {
  cwd: string
  /** Added to (not replacing) the environment the toolkit inherits. */
  env: Record<string, string>
  /** After this long, the toolkit and every process it started are stopped. */
  timeoutMs: number
  /** Each output line as it arrives (stdout and stderr). */
  onLine: (line: string) => void
}

/** Why a toolkit run was stopped: its time ran out, or the step was cancelled (a signal to us). */
export type ToolkitStop = { reason: 'timeout' } | { reason: 'cancelled'; signal: string }

export interface ToolkitExit {
  /** The exit code; 1 when a signal ended it. */
  code: number
  stopped?: ToolkitStop
  /** How long the processes had between SIGTERM and SIGKILL, for messages. */
  graceMs: number
  /** What became of the processes it started; none left running when absent. */
  processes?: ToolkitProcesses
}

/**
 * The processes a toolkit run started, once the run is over. A process that calls setsid leaves
 * the toolkit's process group, and with it the reach of the group's signal: the run looks for
 * such processes by parent and by a variable they inherit, and, where it may, keeps them all in a
 * cgroup of its own.
 */
export interface ToolkitProcesses {
  /** Every process it started was in the run's cgroup: none can have been missed. */
  contained: boolean
  /** Processes found outside its process group that were still running when it was ended. */
  escaped: number
  /** Processes still running after SIGKILL (not ours to signal, or stuck in the kernel). */
  survivors: ReadonlyArray<{ pid: number; name: string }>
  /** Its output was still open after every process found had ended: one that was not found holds it. */
  outputHeld: boolean
}

/** A run that left no process running (or never started one). */
export const NOTHING_LEFT: ToolkitProcesses = {
  contained: true,
  escaped: 0,
  survivors: [],
  outputHeld: false,
}

/**
 * Runs the toolkit in a process group of its own, so that stopping it (timeout, cancellation)
 * stops every process it started, not only the first. Throws only when it cannot start.
 */
export type ToolkitRunner = (
  command: string,
  args: readonly string[],
  options: ToolkitRunOptions,
) => Promise<ToolkitExit>

/** What the snapshot needs besides the common ports. */
export interface SnapshotPorts extends CommonPorts {
  git: GitPort
  runToolkit: ToolkitRunner
  /** `${NAME}` in `git.repo` reads this (the job's environment). */
  variable: (name: string) => string | undefined
  /** Spreads the retries of runs that collided (0 <= random() < 1). */
  random: () => number
}
