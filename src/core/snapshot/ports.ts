import type { Exec } from '../shared/exec.js'
import type { Logger, Reporter } from '../shared/ports.js'

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

/** The few file operations the snapshot needs, so that the core stays free of I/O. */
export interface SnapshotFiles {
  kind(path: string): Promise<'file' | 'directory' | 'missing'>
  /** Every `*.json` file under a folder, recursively, in a stable order. */
  listJsonFiles(dir: string): Promise<string[]>
  readText(path: string): Promise<string>
  writeText(path: string, text: string): Promise<void>
  makeTempDir(prefix: string): Promise<string>
  makeDir(path: string): Promise<void>
  /** Makes `to` an exact copy of `from`; a missing `from` leaves `to` missing. */
  replaceDir(from: string, to: string): Promise<void>
  remove(path: string): Promise<void>
}

export interface SnapshotTools {
  logger: Logger
  reporter: Reporter
  /** Masks a value in everything printed from now on. */
  registerSecret: (value: string) => void
  /** Masks the registered secrets in a text kept for later (an error message). */
  redact: (text: string) => string
  git: GitPort
  exec: Exec
  files: SnapshotFiles
  /** `${NAME}` in `git.repo` reads this (the job's environment). */
  variable: (name: string) => string | undefined
  now: () => Date
  sleep: (ms: number) => Promise<void>
  random: () => number
}
