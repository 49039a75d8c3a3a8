// Bare repositories for the test git server: running git, seeding history with fast-import,
// reading what a push left behind, and the hook that tells fast-forwards from force pushes.
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { captureBytes } from './run-process.js'

const SEED_IDENTITY = 'Test Seeder <seeder@example.test>'
const SEED_EPOCH = 1_700_000_000
const REF_UPDATES_LOG = 'ref-updates.log'

export interface GitResult {
  code: number
  stdout: string
  stderr: string
}

export interface RunGitOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  input?: string | Buffer | Readable
}

export interface CommitInfo {
  sha: string
  subject: string
  authorName: string
  authorEmail: string
  committerName: string
  committerEmail: string
}

export type RefUpdateKind = 'create' | 'delete' | 'fast-forward' | 'force'

export interface RefUpdate {
  repo: string
  ref: string
  oldSha: string
  newSha: string
  kind: RefUpdateKind
}

export interface CreateRepoOptions {
  branch?: string
  /** Contents of the first commit (default: a README.md). */
  files?: Record<string, string>
  /** Total commits on the branch (default 1); 0 leaves the repository without any branch. */
  commits?: number
}

export interface LargeHistoryOptions extends CreateRepoOptions {
  commits: number
  largeFileBytes: number
  /** How many large files (default 3); each is deleted one commit later, so only history has it. */
  largeFiles?: number
}

/** Runs git and resolves with its exit code and output; never rejects on a non-zero exit. */
export async function runGit(args: string[], opts: RunGitOptions = {}): Promise<GitResult> {
  const result = await runGitBuffered(args, opts)
  return { ...result, stdout: result.stdout.toString('utf8') }
}

/** Runs git and returns stdout; the error carries git's stderr so failures explain themselves. */
export async function git(args: string[], opts: RunGitOptions = {}): Promise<string> {
  const result = await runGit(args, opts)
  if (result.code !== 0) {
    throw new Error(`git ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`)
  }
  return result.stdout
}

async function runGitBuffered(
  args: string[],
  opts: RunGitOptions,
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const result = await captureBytes('git', args, opts)
  return { code: result.code ?? 1, stdout: result.stdout, stderr: result.stderr.toString() }
}

/**
 * A working checkout in `dir`: `git init` with `init`'s options, `files` written and committed,
 * then each of `after` run (git commands, such as `update-index --index-version 4`).
 */
export async function commitCheckout(
  dir: string,
  files: Record<string, string>,
  options: { init?: string[]; after?: string[][] } = {},
): Promise<void> {
  const inDir = (args: string[]): Promise<string> =>
    git(['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    })
  await inDir(['init', '-q', ...(options.init ?? [])])
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await writeFile(path.join(dir, file), text)
  }
  await inDir(['add', '-A'])
  await inDir(['commit', '-q', '--allow-empty', '-m', 'checkout'])
  for (const args of options.after ?? []) await inDir(args)
}

// Fast-import seeding does not run hooks, so the log holds only what clients pushed.
const POST_RECEIVE_HOOK = `#!/bin/sh
zero=0000000000000000000000000000000000000000
while read -r old new ref; do
  if [ "$old" = "$zero" ]; then kind=create
  elif [ "$new" = "$zero" ]; then kind=delete
  elif git merge-base --is-ancestor "$old" "$new"; then kind=fast-forward
  else kind=force; fi
  printf '%s %s %s %s\\n' "$ref" "$old" "$new" "$kind" >> ${REF_UPDATES_LOG}
done
`

/** A bare repository that accepts pushes over HTTP and logs every accepted ref update. */
export async function initBareRepo(dir: string, branch: string): Promise<void> {
  await git(['init', '--bare', '--quiet', '-b', branch, dir])
  // http-backend allows pushes only when REMOTE_USER is set unless this is on; be explicit.
  await git(['config', 'http.receivepack', 'true'], { cwd: dir })
  await writeFile(path.join(dir, 'hooks', 'post-receive'), POST_RECEIVE_HOOK, { mode: 0o755 })
}

function fastImportData(content: string | Buffer): Buffer[] {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content
  return [Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n')]
}

// One `commit` command per commit; changing one small file keeps 5,000 commits under a second.
function* fastImportStream(opts: LargeHistoryOptions & { branch: string }): Generator<Buffer> {
  const total = opts.commits
  const largeFiles = opts.largeFileBytes > 0 ? Math.min(opts.largeFiles ?? 3, total) : 0
  const largeEvery = largeFiles > 0 ? Math.max(1, Math.floor(total / largeFiles)) : 0
  const initialFiles = opts.files ?? { 'README.md': '# test repository\n' }
  let largeAdded = 0
  for (let i = 1; i <= total; i++) {
    const when = `${SEED_EPOCH + i * 60} +0000`
    yield Buffer.from(`commit refs/heads/${opts.branch}\nmark :${i}\n`)
    yield Buffer.from(`author ${SEED_IDENTITY} ${when}\ncommitter ${SEED_IDENTITY} ${when}\n`)
    yield* fastImportData(i === 1 ? 'Initial commit' : `Seed commit ${i}`)
    if (i > 1) yield Buffer.from(`from :${i - 1}\n`)
    const changes: Array<[string, string | Buffer]> =
      i === 1 ? Object.entries(initialFiles) : [['history.log', `commit ${i}\n`]]
    if (largeAdded > 0 && i === (largeAdded - 1) * largeEvery + 2) {
      yield Buffer.from(`D assets/large-${largeAdded}.bin\n`)
    }
    if (largeAdded < largeFiles && i === largeAdded * largeEvery + 1) {
      largeAdded++
      changes.push([`assets/large-${largeAdded}.bin`, randomBytes(opts.largeFileBytes)])
    }
    for (const [file, content] of changes) {
      yield Buffer.from(`M 100644 inline ${file}\n`)
      yield* fastImportData(content)
    }
  }
}

/** Writes `opts.commits` commits to `opts.branch` of a bare repository in one fast-import run. */
export async function seedHistory(
  dir: string,
  opts: LargeHistoryOptions & { branch: string },
): Promise<void> {
  if (opts.commits <= 0) return
  await git(['fast-import', '--quiet'], { cwd: dir, input: Readable.from(fastImportStream(opts)) })
}

export async function readLog(dir: string, branch: string): Promise<CommitInfo[]> {
  const format = '%H%x00%s%x00%an%x00%ae%x00%cn%x00%ce%x1e'
  const out = await git(['log', `--format=${format}`, `refs/heads/${branch}`, '--'], { cwd: dir })
  return out
    .split('\x1e')
    .map((record) => record.trim())
    .filter(Boolean)
    .map((record) => {
      const [sha = '', subject = '', authorName = '', authorEmail = '', ...committer] =
        record.split('\0')
      const [committerName = '', committerEmail = ''] = committer
      return { sha, subject, authorName, authorEmail, committerName, committerEmail }
    })
}

function parseCatFileBatch(output: Buffer, paths: string[]): Record<string, string> {
  const files: Record<string, string> = {}
  let offset = 0
  for (const file of paths) {
    const newline = output.indexOf(0x0a, offset)
    const size = Number(output.subarray(offset, newline).toString().split(' ')[2])
    files[file] = output.subarray(newline + 1, newline + 1 + size).toString('utf8')
    offset = newline + 1 + size + 1
  }
  return files
}

/** Blob contents at the branch tip, keyed by path from the repository root. */
export async function readTreeFiles(
  dir: string,
  branch: string,
  subdir?: string,
): Promise<Record<string, string>> {
  const pathspec = subdir ? [subdir] : []
  const listing = await git(['ls-tree', '-r', '-z', `refs/heads/${branch}`, '--', ...pathspec], {
    cwd: dir,
  })
  const blobs = listing
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta = '', file = ''] = line.split('\t')
      return { sha: meta.split(' ')[2] ?? '', file }
    })
  const input = blobs.map((b) => `${b.sha}\n`).join('')
  const batch = await runGitBuffered(['cat-file', '--batch'], { cwd: dir, input })
  if (batch.code !== 0) throw new Error(`git cat-file --batch failed: ${batch.stderr.trim()}`)
  const files = blobs.map((b) => b.file)
  return parseCatFileBatch(batch.stdout, files)
}

export function readRefUpdates(dir: string, repo: string): RefUpdate[] {
  const logFile = path.join(dir, REF_UPDATES_LOG)
  if (!existsSync(logFile)) return []
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [ref = '', oldSha = '', newSha = '', kind = ''] = line.split(' ')
      return { repo, ref, oldSha, newSha, kind: kind as RefUpdateKind }
    })
}
