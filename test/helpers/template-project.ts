// The official Olympe project template as a team adopts it (test/fixtures/olympe-project-template):
// a private registry that serves the stand-in @olympeio packages to signed-in users only, a git
// repository of the fixture on `master`, and the team's own steps, each run as a person runs it:
// `npm install` (the template has no lock file), `npm run build:draw`, `npm run build:node` and
// `npx olympe buildCodeAsData`.
import { randomBytes } from 'node:crypto'
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { startOwning } from './cleanup.js'
import { fixture } from './run-action.js'
import { capture, run } from './run-process.js'
import { publishStandIns } from './stand-in-packages.js'
import { startVerdaccio, type Verdaccio } from './verdaccio.js'

export { STAND_IN_VERSIONS } from './stand-in-packages.js'

export const TEMPLATE_FIXTURE = fixture('olympe-project-template')
/** The template's branch: teams that create a project from it keep `master`. */
export const TEMPLATE_BRANCH = 'master'
/** The variable the project's .npmrc reads the registry token from, as CI secrets provide it. */
export const NPM_TOKEN_VARIABLE = 'OLYMPE_NPM_TOKEN'

export interface TemplateRegistry {
  verdaccio: Verdaccio
  /** `http://127.0.0.1:PORT/`. */
  url: string
  user: string
  password: string
  /** The user's token, from the registry's login API. */
  token: string
  /** `name@version` of every package published to it. */
  packages: string[]
  /**
   * The project's .npmrc: every package from this registry (`@olympeio` scoped, as with Olympe's
   * own), with `_authToken=${VARIABLE}` ('env'; OLYMPE_NPM_TOKEN unless named, e.g.
   * NODE_AUTH_TOKEN as actions/setup-node writes it) or no credentials at all ('none').
   */
  npmrc(credentials: 'env' | 'none', variable?: string): string
  /** What no captured text may hold, in any form. */
  secrets: string[]
  stop(): Promise<void>
}

/** Starts the authenticated registry, signs in, and publishes the stand-ins with the token. */
export async function startTemplateRegistry(): Promise<TemplateRegistry> {
  const user = 'olympe-team'
  const password = `npm-${randomBytes(12).toString('hex')}`
  const verdaccio = await startVerdaccio({ auth: { user, password } })
  try {
    const token = await verdaccio.login(user, password)
    const packages = await publishStandIns(verdaccio, token)
    const host = new URL(verdaccio.url).host
    return {
      verdaccio,
      url: verdaccio.url,
      user,
      password,
      token,
      packages,
      npmrc: (credentials, variable = NPM_TOKEN_VARIABLE) =>
        [
          `registry=${verdaccio.url}`,
          `@olympeio:registry=${verdaccio.url}`,
          ...(credentials === 'env' ? [`//${host}/:_authToken=\${${variable}}`] : []),
          '',
        ].join('\n'),
      secrets: [token, password],
      stop: () => verdaccio.stop(),
    }
  } catch (error) {
    await verdaccio.stop()
    throw error
  }
}

export interface TemplateProject {
  /** The work tree: a git repository of the fixture, one commit on `master`. */
  dir: string
  branch: string
  sha: string
  /** The version in its package.json, which the build writes into dist/*\/version.json. */
  appVersion: string
  /** HOME and npm cache of the steps, outside the work tree (no ~/.npmrc of this machine). */
  home: string
  remove(): Promise<void>
}

export interface TemplateProjectOptions {
  /** The team's own version for package.json (the template ships 2.15.0). */
  appVersion?: string
  /** Files the team adds before its first commit, such as `.npmrc` or a CI file. */
  files?: Record<string, string>
  /** The branch of the first commit: `master` as in the template, or a team's `main`. */
  branch?: string
  /**
   * A `package-lock.json` to commit, as a team that follows docs/pipelines.md does: the line of the
   * template's .gitignore that ignores it goes.
   */
  lockFile?: string
}

/** Copies the fixture into a new repository (on `master` unless told) and commits it, as a team would. */
export async function createTemplateProject(
  options: TemplateProjectOptions = {},
): Promise<TemplateProject> {
  return startOwning(async (owned) => {
    const root = await owned.tempDir('olympe-template-')
    const dir = join(root, 'project')
    const home = join(root, 'home')
    await cp(TEMPLATE_FIXTURE, dir, { recursive: true })
    await mkdir(home)
    const manifestFile = join(dir, 'package.json')
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as { version: string }
    if (options.appVersion) {
      manifest.version = options.appVersion
      await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)
    }
    for (const [name, text] of Object.entries(options.files ?? {})) {
      await mkdir(dirname(join(dir, name)), { recursive: true })
      await writeFile(join(dir, name), text)
    }
    if (options.lockFile !== undefined) await commitLockFile(dir, options.lockFile)
    const branch = options.branch ?? TEMPLATE_BRANCH
    const sha = await commitAll(dir, branch)
    return { dir, branch, sha, appVersion: manifest.version, home, remove: () => owned.run() }
  })
}

/** `git init` on `branch`, everything committed as the team would: resolves to the commit. */
async function commitAll(dir: string, branch: string): Promise<string> {
  const git = (args: string[]): Promise<{ stdout: string }> =>
    run('git', ['-c', 'user.name=Olympe Team', '-c', 'user.email=team@example.test', ...args], {
      cwd: dir,
    })
  await git(['init', '--quiet', '--initial-branch', branch])
  await git(['add', '--all'])
  await git(['commit', '--quiet', '--message', 'Project from the Olympe template 2.15.0'])
  return (await git(['rev-parse', 'HEAD'])).stdout.trim()
}

/** Writes the lock file and takes `package-lock.json` out of the template's .gitignore. */
async function commitLockFile(dir: string, lockFile: string): Promise<void> {
  const ignore = join(dir, '.gitignore')
  const lines = (await readFile(ignore, 'utf8')).split('\n')
  const kept = lines.filter((line) => line.trim() !== 'package-lock.json')
  if (kept.length === lines.length) throw new Error(`${ignore} no longer ignores package-lock.json`)
  await writeFile(ignore, kept.join('\n'))
  await writeFile(join(dir, 'package-lock.json'), lockFile)
}

/**
 * The lock file a team commits: `npm install --package-lock-only` on a copy of the template,
 * through the registry with its token (so its `resolved` addresses are the registry's).
 */
export async function templateLockFile(registry: TemplateRegistry): Promise<string> {
  const project = await createTemplateProject({ files: { '.npmrc': registry.npmrc('env') } })
  try {
    const step = await runStep(project, 'npm', ['install', '--package-lock-only'], {
      token: registry.token,
    })
    if (step.code !== 0) throw new Error(`${step.step} failed: ${step.stderr.slice(-2000)}`)
    return await readFile(join(project.dir, 'package-lock.json'), 'utf8')
  } finally {
    await project.remove()
  }
}

export interface StepRun {
  /** The command line, for messages: `npm install`, `npm run build:draw`... */
  step: string
  code: number | null
  stdout: string
  stderr: string
  /** Wall time of the step, for reports (tests never assert on it). */
  ms: number
}

/**
 * Runs one of the team's commands in the project with the machine's node and npm, a HOME and
 * npm cache of the project's own, and the token in OLYMPE_NPM_TOKEN when given. Never rejects.
 */
export async function runStep(
  project: TemplateProject,
  command: 'npm' | 'npx',
  args: string[],
  options: { token?: string; env?: Record<string, string> } = {},
): Promise<StepRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: project.home,
    npm_config_cache: join(project.home, '.npm'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    ...(options.token ? { [NPM_TOKEN_VARIABLE]: options.token } : {}),
    ...options.env,
  }
  const started = Date.now()
  const { code, stdout, stderr } = await capture(command, args, {
    env,
    cwd: project.dir,
    timeoutMs: 180_000,
  })
  return { step: [command, ...args].join(' '), code, stdout, stderr, ms: Date.now() - started }
}

/** The steps of a template project's CI, in order; stops at the first that fails. */
export async function installAndBuild(
  project: TemplateProject,
  token: string,
  env: Record<string, string> = {},
): Promise<StepRun[]> {
  const steps: ['npm' | 'npx', string[]][] = [
    ['npm', ['install']],
    ['npm', ['run', 'build:draw']],
    ['npm', ['run', 'build:node']],
    ['npx', ['olympe', 'buildCodeAsData']],
  ]
  const runs: StepRun[] = []
  for (const [command, args] of steps) {
    const step = await runStep(project, command, args, { token, env })
    runs.push(step)
    if (step.code !== 0) break
  }
  return runs
}

/** `{step, code, tail}` per step for `toEqual`: a failure shows the end of its output. */
export function outcomes(runs: StepRun[]): { step: string; code: number | null; tail: string }[] {
  return runs.map(({ step, code, stdout, stderr }) => ({
    step,
    code,
    tail: code === 0 ? '' : `${stdout}\n${stderr}`.slice(-3000),
  }))
}
