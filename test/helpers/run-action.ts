import type { ChildProcess } from 'node:child_process'
import { chown, readFile, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { parse } from 'yaml'
import type { ActionId } from '../../src/core/action-list.js'
import { withCleanup } from './cleanup.js'
import { NODE24 } from './node-binaries.js'
import { capture } from './run-process.js'

export const ROOT = resolve(import.meta.dirname, '../..')
export type { ActionId }

export interface RunOptions {
  inputs: Record<string, string>
  node?: string
  cwd?: string
  /** Extra environment: GITHUB_* / CI_* context, test-only switches. */
  env?: Record<string, string>
  /** The GitHub event: its name and payload (written to GITHUB_EVENT_PATH). */
  event?: { name: string; payload?: object; ref?: string }
  timeoutMs?: number
  /** The step's process, as soon as it runs: how a test cancels it (SIGINT, as the runner does). */
  onSpawn?: (child: ChildProcess) => void
  /**
   * Run the step as this user, not root (rootless.ts): its temporary folder is given to it, and
   * HOME and PATH are its own.
   */
  user?: RunAs
}

/** A user the steps can run as: its ids, its home, and what it runs. */
export interface RunAs {
  uid: number
  gid: number
  home: string
  /** Where it runs Node and the bundle from (rootless.ts); the checkout's own when unset. */
  runtime?: UserRuntime
}

/** A copy of Node 24 and of the bundle, laid out as in the checkout under `root`. */
export interface UserRuntime {
  node: string
  root: string
}

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
  /** Step outputs (GitHub) or dotenv values (CLI), by output name. */
  outputs: Record<string, string>
  summary: string
  /** Every file the run wrote for the user to see, for secret scans. */
  files: Record<string, string>
}

/** What a step with 'check-only' true says once its inputs (and the files they name) pass. */
export const CHECKED =
  "The inputs are valid, and so are the files they name that exist before the run. Nothing else was done: 'check-only' is true."

/** `{ code, tail }` for `toEqual({ code: 0, tail: '' })`: a failed run shows the end of its stdout. */
export const runOutcome = (run: Pick<RunResult, 'code' | 'stdout'>): RunOutcome => ({
  code: run.code,
  tail: run.code === 0 ? '' : run.stdout.slice(-3000),
})

export interface RunOutcome {
  code: number | null
  tail: string
}

interface ActionYml {
  inputs: Record<string, { default?: string }>
  runs: { main: string }
}

/**
 * Runs the committed bundle as the GitHub runner does: action.yml defaults applied to
 * INPUT_<NAME> (upper-cased, hyphens kept), GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, node24.
 */
export async function runAsGithub(action: ActionId, options: RunOptions): Promise<RunResult> {
  const actionDir = join(ROOT, 'actions', action)
  const metadata = parse(await readFile(join(actionDir, 'action.yml'), 'utf8')) as ActionYml
  return withCleanup(async (cleanup) => {
    const temp = await cleanup.tempDir('olympe-gh-')
    if (options.user) await chown(temp, options.user.uid, options.user.gid)
    const files = {
      output: join(temp, 'output'),
      summary: join(temp, 'summary.md'),
      event: join(temp, 'event.json'),
    }
    await writeFile(files.output, '')
    await writeFile(files.summary, '')
    await writeFile(files.event, JSON.stringify(options.event?.payload ?? {}))
    if (options.user)
      for (const file of Object.values(files)) await chown(file, options.user.uid, options.user.gid)
    const env: Record<string, string> = {
      ...baseEnv(options.user),
      GITHUB_ACTIONS: 'true',
      CI: 'true',
      GITHUB_OUTPUT: files.output,
      GITHUB_STEP_SUMMARY: files.summary,
      GITHUB_EVENT_PATH: files.event,
      GITHUB_EVENT_NAME: options.event?.name ?? 'push',
      GITHUB_REF: options.event?.ref ?? 'refs/heads/main',
      GITHUB_WORKSPACE: options.cwd ?? temp,
      RUNNER_TEMP: temp,
      ...options.env,
    }
    // The runner names the workflow that runs, with its repository: a provenance's builder.
    if (env.GITHUB_REPOSITORY && env.GITHUB_WORKFLOW_REF === undefined)
      env.GITHUB_WORKFLOW_REF = `${env.GITHUB_REPOSITORY}/.github/workflows/build.yml@${env.GITHUB_REF}`
    for (const [name, spec] of Object.entries(metadata.inputs)) {
      env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] =
        options.inputs[name] ?? spec.default ?? ''
    }
    const main = resolve(actionDir, metadata.runs.main)
    const run = await runNode(main, [], env, options.cwd ?? temp, options)
    const outputText = await readFile(files.output, 'utf8')
    const summary = await readFile(files.summary, 'utf8')
    return {
      ...run,
      outputs: parseOutputFile(outputText),
      summary,
      files: { GITHUB_OUTPUT: outputText, GITHUB_STEP_SUMMARY: summary },
    }
  })
}

/** Runs `olympe-deploy <action>` as a GitLab job or a person would: INPUT_<NAME_WITH_UNDERSCORES>. */
export async function runCli(
  action: ActionId,
  options: RunOptions & { args?: string[] },
): Promise<RunResult> {
  return withCleanup(async (cleanup) => {
    const temp = await cleanup.tempDir('olympe-cli-')
    if (options.user) await chown(temp, options.user.uid, options.user.gid)
    const dotenv = join(temp, 'outputs.env')
    const env: Record<string, string> = { ...baseEnv(options.user), ...options.env }
    for (const [name, value] of Object.entries(options.inputs))
      env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] = value
    const args = [action, '--dotenv', dotenv, ...(options.args ?? [])]
    const cli = join(ROOT, 'bin/olympe-deploy.js')
    const run = await runNode(cli, args, env, options.cwd ?? temp, options)
    const dotenvText = await readFile(dotenv, 'utf8').catch(() => '')
    return {
      ...run,
      outputs: parseDotenv(dotenvText, action),
      summary: '',
      files: { dotenv: dotenvText },
    }
  })
}

/**
 * The script under the chosen Node (24 unless told), bounded by the run's timeout; as another
 * user, from the copy of the checkout it can read.
 */
async function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  options: Pick<RunOptions, 'node' | 'timeoutMs' | 'onSpawn' | 'user'>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [node, file] = nodeAndScript(script, options.user, options.node)
  const { code, stdout, stderr } = await capture(node, [file, ...args], {
    env,
    cwd,
    timeoutMs: options.timeoutMs ?? 120_000,
    onSpawn: options.onSpawn,
    ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
  })
  return { code, stdout, stderr }
}

/**
 * The Node binary and the path of a script of the checkout, as `user` reaches them: from its
 * runtime copy when it has one (rootless.ts). `node` chooses another binary.
 */
export function nodeAndScript(script: string, user?: RunAs, node?: string): [string, string] {
  const runtime = user?.runtime
  if (!runtime) return [node ?? NODE24, script]
  return [node ?? runtime.node, join(runtime.root, relative(ROOT, script))]
}

/** The system's own folders: another user cannot look into root's (~/.cargo/bin…). */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

function baseEnv(user?: RunAs): Record<string, string> {
  const env: Record<string, string> = {
    PATH: user ? SYSTEM_PATH : (process.env.PATH ?? ''),
    HOME: user ? user.home : (process.env.HOME ?? '/root'),
    LANG: 'C.UTF-8',
  }
  if (process.env.DOCKER_HOST) env.DOCKER_HOST = process.env.DOCKER_HOST
  return env
}

export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const pattern = /^([^\n<]+)<<(ghadelimiter_[0-9a-f-]+)\n([\s\S]*?)\n\2$/gm
  for (const match of text.matchAll(pattern)) outputs[match[1] ?? ''] = match[3] ?? ''
  return outputs
}

function parseDotenv(text: string, action: ActionId): Record<string, string> {
  const prefix = `OLYMPE_${action.toUpperCase().replace(/-/g, '_')}_`
  const outputs: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=')
    if (eq <= 0) continue
    const key = line.slice(0, eq)
    outputs[
      key.startsWith(prefix) ? key.slice(prefix.length).toLowerCase().replace(/_/g, '-') : key
    ] = line.slice(eq + 1)
  }
  return outputs
}

export const fixture = (...parts: string[]): string => join(ROOT, 'test/fixtures', ...parts)
