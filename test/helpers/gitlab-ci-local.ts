// gitlab-ci-local (under Node 24, every job in the host shell) on a temporary GitLab project that
// includes our generated templates, as a consumer would. The templates are copied into the
// project's templates/ folder, the catalog layout, so `include: component:` at the current commit
// resolves locally.
import { expect } from '@jest/globals'
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { parseAllDocuments } from 'yaml'
import { startOwning } from './cleanup.js'
import { NODE24 } from './node-binaries.js'
import { ROOT } from './run-action.js'
import { capture, run, type Captured } from './run-process.js'
import { GITLAB_LOG } from './secrets.js'

const GITLAB_CI_LOCAL = join(ROOT, 'node_modules/gitlab-ci-local/dist/index.js')
export const PROJECT_PATH = 'acme/shop'

/** `include:` line for one of our templates, as a catalog component at the current commit. */
export const component = (name: string): string =>
  `$CI_SERVER_FQDN/${PROJECT_PATH}/${name}@$CI_COMMIT_SHA`

/** One `include:` entry of a .gitlab-ci.yml: a component and its inputs (YAML values as written). */
export interface Included {
  component: string
  inputs?: Record<string, string>
}

/** A project's .gitlab-ci.yml: its stages, the components it includes, then its own `jobs` lines. */
export function ciFile(stages: string[], included: Included[], jobs: string[] = []): string {
  const includes = included.flatMap(({ component: name, inputs = {} }) => [
    `  - component: ${name}`,
    ...(Object.keys(inputs).length > 0 ? ['    inputs:'] : []),
    ...Object.entries(inputs).map(([input, value]) => `      ${input}: ${value}`),
  ])
  return [`stages: [${stages.join(', ')}]`, 'include:', ...includes, ...jobs, ''].join('\n')
}

export interface GitlabProject {
  dir: string
  /**
   * npm cache of this project's jobs. npx keys its cache by package spec, so a shared one would
   * run the olympe-deploy-actions@<version> of an earlier build instead of this one.
   */
  npmCache: string
  stop(): Promise<void>
}

export interface GitlabProjectOptions {
  /** The branch the commit is on, when it is not the default branch. */
  branch?: string
  /** The project's default branch, where `origin/HEAD` points: `main` unless told. */
  defaultBranch?: string
  copyFrom?: Record<string, string>
  /** URL of `origin`, which names the project (`<group>/<project>`) and its GitLab host. */
  origin?: string
  /** Copy gitlab/*.yml into templates/ (default true); false for a project without them. */
  templates?: boolean
}

/**
 * A git repository with an `origin` remote and `origin/HEAD` pointing at the default branch
 * (`main` unless told; gitlab-ci-local reads CI_DEFAULT_BRANCH there, as GitLab knows it), our
 * templates in templates/, and the given files committed on `branch`.
 */
export function createGitlabProject(
  files: Record<string, string>,
  options: GitlabProjectOptions = {},
): Promise<GitlabProject> {
  return startOwning(async (owned) => {
    const dir = await owned.tempDir('olympe-gitlab-')
    await initRepository(dir, files, options)
    const npmCache = await owned.tempDir('olympe-gitlab-npm-')
    return { dir, npmCache, stop: () => owned.run() }
  })
}

async function initRepository(
  dir: string,
  files: Record<string, string>,
  options: GitlabProjectOptions,
): Promise<void> {
  const git = (...args: string[]): Promise<unknown> =>
    run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    })
  const defaultBranch = options.defaultBranch ?? 'main'
  await git('init', '-q', '-b', defaultBranch)
  const origin = options.origin ?? `https://gitlab.example.com/${PROJECT_PATH}.git`
  await git('remote', 'add', 'origin', origin)
  if (options.templates !== false) await copyTemplates(dir)
  for (const [target, source] of Object.entries(options.copyFrom ?? {}))
    await cp(source, join(dir, target), { recursive: true })
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), content)
  }
  const ignored = files['.gitignore'] ?? ''
  await writeFile(join(dir, '.gitignore'), `.gitlab-ci-local/\nnode_modules/\n*.env\n${ignored}`)
  await git('add', '-A')
  await git('commit', '-q', '-m', 'sample project')
  await git('update-ref', `refs/remotes/origin/${defaultBranch}`, 'HEAD')
  await git('symbolic-ref', 'refs/remotes/origin/HEAD', `refs/remotes/origin/${defaultBranch}`)
  if (options.branch && options.branch !== defaultBranch)
    await git('checkout', '-q', '-b', options.branch)
}

async function copyTemplates(dir: string): Promise<void> {
  await mkdir(join(dir, 'templates'))
  for (const file of await readdir(join(ROOT, 'gitlab'))) {
    if (file.endsWith('.yml')) await cp(join(ROOT, 'gitlab', file), join(dir, 'templates', file))
  }
}

export interface PipelineOptions {
  /** CI/CD variables (`--variable KEY=value`): secrets, pipeline source… */
  variables?: Record<string, string>
  /** Predefined variables to remove, such as CI_COMMIT_BRANCH in a merge request pipeline. */
  unset?: string[]
  /** Pipeline-level inputs (`spec: inputs` of .gitlab-ci.yml), as the "Run pipeline" form sets them. */
  inputs?: Record<string, string>
  /** Manual jobs to run as if someone clicked them. */
  manual?: string[]
  /** Environment of gitlab-ci-local and so of the shell jobs (npm registry, Docker…). */
  env?: Record<string, string>
  /**
   * Project CI/CD variables file (`--variables-file`), the only way to give a variable of type
   * File: `NAME: { type: file, values: { '*': content } }`. Keep it outside the project.
   */
  variablesFile?: string
  /** Run these jobs only (and not the jobs they need). */
  jobs?: string[]
  /**
   * Keep gitlab-ci-local's own GITLAB_CI ('false'), as someone trying the templates gets it;
   * by default the jobs see GITLAB_CI=true, as on GitLab.
   */
  gitlabCiLocalDefaults?: boolean
  /**
   * Each job in a folder of its own (`.gitlab-ci-local/builds/<job>`) with the repository's files
   * and the artifacts of the jobs it needs, and nothing else, as on a real runner
   * (`--shell-isolation`): no node_modules left by an earlier job, and the jobs' `cache:` kept
   * between pipelines as a runner keeps it.
   */
  isolated?: boolean
  timeoutMs?: number
  /**
   * Run each job in its `image:` with gitlab-ci-local's Docker executor instead of in the host's
   * shell; CI_PROJECT_DIR is then the container's /builds/<group>/<project>.
   */
  docker?: DockerExecutor
}

/** How gitlab-ci-local's Docker executor runs the job containers, as a runner's config would. */
export interface DockerExecutor {
  /** The image of the container that copies the project in and artifacts out: sh, bash, rsync. */
  helperImage: string
  /** `host`: the jobs reach the servers on the host's loopback, as the runner itself does. */
  network?: string
  /** `source:target[:ro]` mounts, such as the Docker socket. */
  volumes?: string[]
  privileged?: boolean
}

export interface PipelineRun {
  code: number | null
  /** gitlab-ci-local's whole output, job lines included. */
  output: string
  /** Each job's log file, by job name. */
  jobLogs: Record<string, string>
  /**
   * Each job's dotenv report (`artifacts:reports:dotenv`) as GitLab keeps it, by
   * `<job>/<file>`: later jobs get its variables, and anyone who may see the job may download it.
   */
  dotenvReports: Record<string, string>
}

function executorArgs(options: PipelineOptions): string[] {
  const { docker } = options
  if (!docker) return ['--force-shell-executor']
  const args = ['--helper-image', docker.helperImage]
  if (docker.network) args.push('--network', docker.network)
  for (const volume of docker.volumes ?? []) args.push('--volume', volume)
  if (docker.privileged) args.push('--privileged')
  return args
}

function cliArgs(project: GitlabProject, options: PipelineOptions): string[] {
  const args = [...executorArgs(options), '--no-color', '--max-job-name-padding', '0']
  if (options.isolated && !options.docker) args.push('--shell-isolation')
  const variables = {
    // gitlab-ci-local says GITLAB_CI=false so that scripts can tell; the bundle must see GitLab.
    ...(options.gitlabCiLocalDefaults ? {} : { GITLAB_CI: 'true' }),
    // A job with `image:` keeps the container path (/builds/<path>) even when forced into the
    // shell; a real runner's CI_PROJECT_DIR is the folder the job runs in. Isolated, that is a
    // folder per job, which one variable cannot name: `.`, the folder the job runs in. (Not
    // empty: gitlab-ci-local strips `${CI_PROJECT_DIR}/` from artifact paths.)
    ...(options.docker ? {} : { CI_PROJECT_DIR: options.isolated ? '.' : project.dir }),
    ...options.variables,
  }
  for (const [key, value] of Object.entries(variables)) args.push('--variable', `${key}=${value}`)
  // Overriding predefined variables (the pipeline source…) is the point here: no warning.
  args.push('--ignore-predefined-vars', Object.keys(variables).join(','))
  for (const name of options.unset ?? []) args.push('--unset-variable', name)
  for (const job of options.manual ?? []) args.push('--manual', job)
  for (const [key, value] of Object.entries(options.inputs ?? {}))
    args.push('--input', `${key}=${value}`)
  if (options.variablesFile) args.push('--variables-file', options.variablesFile)
  return [...args, ...(options.jobs ?? [])]
}

function environment(project: GitlabProject, options: PipelineOptions): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    LANG: 'C.UTF-8',
    npm_config_cache: project.npmCache,
    ...options.env,
  }
}

export async function runPipeline(
  project: GitlabProject,
  options: PipelineOptions = {},
): Promise<PipelineRun> {
  const result = await gitlabCiLocal(project, [], options, 150_000)
  return {
    code: result.code,
    output: result.stdout + result.stderr,
    jobLogs: await jobLogs(project.dir),
    dotenvReports: await dotenvReports(project.dir),
  }
}

/** The pipelines a suite ran, kept for the leak scan of its last test. */
export interface PipelineRecord {
  readonly runs: readonly PipelineRun[]
  /** Runs a pipeline and keeps it, whatever its outcome. */
  run(project: GitlabProject, options?: PipelineOptions): Promise<PipelineRun>
  /** Runs a pipeline, keeps it, and expects it to succeed (a failure shows its output's end). */
  passing(project: GitlabProject, options?: PipelineOptions): Promise<PipelineRun>
  /** `logsOf` the kept runs. */
  logs(): Record<string, string>
}

export function pipelineRecord(): PipelineRecord {
  const runs: PipelineRun[] = []
  const kept = async (project: GitlabProject, options?: PipelineOptions): Promise<PipelineRun> => {
    const run = await runPipeline(project, options)
    runs.push(run)
    return run
  }
  return {
    runs,
    run: kept,
    passing: async (project, options) => {
      const run = await kept(project, options)
      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      return run
    },
    logs: () => logsOf(runs),
  }
}

/** gitlab-ci-local under Node 24 in the project, with the options' variables and environment. */
function gitlabCiLocal(
  project: GitlabProject,
  args: string[],
  options: PipelineOptions,
  timeoutMs: number,
): Promise<Captured> {
  return capture(NODE24, [GITLAB_CI_LOCAL, ...args, ...cliArgs(project, options)], {
    env: environment(project, options),
    cwd: project.dir,
    timeoutMs: options.timeoutMs ?? timeoutMs,
  })
}

/** What `gitlab-ci-local <option>` printed, where the option lists rather than runs. */
async function listing(
  project: GitlabProject,
  option: string,
  options: PipelineOptions,
): Promise<string> {
  const result = await gitlabCiLocal(project, [option], options, 60_000)
  if (result.code !== 0) throw new Error(`gitlab-ci-local ${option} failed: ${result.stderr}`)
  return result.stdout
}

async function jobLogs(dir: string): Promise<Record<string, string>> {
  const folder = join(dir, '.gitlab-ci-local/output')
  const logs: Record<string, string> = {}
  for (const file of await readdir(folder).catch(() => [])) {
    logs[file.replace(/\.log$/, '')] = await readFile(join(folder, file), 'utf8')
  }
  return logs
}

// gitlab-ci-local keeps a job's dotenv report at artifacts/<job>/.gitlab-ci-reports/dotenv/<file>.
async function dotenvReports(dir: string): Promise<Record<string, string>> {
  const artifacts = join(dir, '.gitlab-ci-local/artifacts')
  const reports: Record<string, string> = {}
  for (const job of await readdir(artifacts).catch(() => [])) {
    const folder = join(artifacts, job, '.gitlab-ci-reports/dotenv')
    const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => [])
    for (const entry of entries.filter((each) => each.isFile())) {
      const file = join(entry.parentPath, entry.name)
      reports[`${job}/${relative(folder, file)}`] = await readFile(file, 'utf8')
    }
  }
  return reports
}

export interface ListedJob {
  name: string
  stage: string
  when: string
  /** `allow_failure`: true, false, or the exit codes it allows. */
  allowFailure: boolean | { exit_codes: number | number[] }
}

/** The jobs a pipeline would have, with their `when`, without running any. */
export async function listJobs(
  project: GitlabProject,
  options: PipelineOptions = {},
): Promise<ListedJob[]> {
  const stdout = await listing(project, '--list-json', options)
  // Warnings (about overridden predefined variables…) come before the JSON line.
  const jobs = JSON.parse(stdout.slice(stdout.search(/^\[/m))) as {
    name: string
    stage: string
    when: string
    allow_failure: ListedJob['allowFailure']
  }[]
  return jobs
    .filter((job) => job.when !== 'never')
    .map((job) => ({
      name: job.name,
      stage: job.stage,
      when: job.when,
      allowFailure: job.allow_failure,
    }))
}

/**
 * Each job's environment as `gitlab-ci-local --list` shows it (the GitLab environment a deploy
 * job records its deployments in), by job name; jobs without one are left out.
 */
export async function listEnvironments(
  project: GitlabProject,
  options: PipelineOptions = {},
): Promise<Record<string, string>> {
  const stdout = await listing(project, '--list', options)
  // Rows are `name [description] stage when allow_failure [environment] [[needs]]`, padded to
  // widths that the header does not always share: read the environment after allow_failure
  // (`true`, `false`, or the exit codes it allows, `[80]`).
  const environments: Record<string, string> = {}
  for (const line of stdout.split('\n')) {
    const row = /^(\S+)\s.*?\s(?:true|false|\[[\d,]+\])\s+(.*?)\s*(?:\[[^\]]*\])?\s*$/.exec(line)
    if (row?.[1] && row[2] && row[1] !== 'name') environments[row[1]] = row[2]
  }
  return environments
}

/**
 * The pipeline as GitLab reads it once includes and inputs are resolved (`--preview`), parsed:
 * the jobs by name, with what their `environment:` and `artifacts:` became.
 */
export async function previewPipeline(
  project: GitlabProject,
  options: PipelineOptions = {},
): Promise<Record<string, unknown>> {
  const stdout = await listing(project, '--preview', options)
  // Warnings (about overridden predefined variables…) may come before the YAML.
  const documents = parseAllDocuments(stdout.slice(stdout.search(/^[\w$.-]+:/m)))
  return (documents[0]?.toJS() ?? {}) as Record<string, unknown>
}

const FILE_VARIABLES = /^gitlab-ci-local-file-variables-/

/**
 * gitlab-ci-local writes each variable of type File to
 * /tmp/gitlab-ci-local-file-variables-<project slug>-<job id>/<NAME> and leaves it there. Removes
 * the folders whose files all hold `marker`, a secret only the calling suite made, so nothing of
 * another suite's goes.
 */
export async function removeFileVariables(marker: string): Promise<void> {
  for (const name of (await readdir('/tmp')).filter((entry) => FILE_VARIABLES.test(entry))) {
    const folder = join('/tmp', name)
    const files = await readdir(folder).catch(() => [])
    const texts = await Promise.all(files.map((file) => readFile(join(folder, file), 'utf8')))
    if (texts.length > 0 && texts.every((text) => text.includes(marker)))
      await rm(folder, { recursive: true, force: true })
  }
}

/**
 * Every run's output, job logs and dotenv reports, named for a secret scan's report (all of them
 * shown or kept as they are: see GITLAB_LOG in secrets.ts).
 */
export function logsOf(runs: PipelineRun[]): Record<string, string> {
  const logs: Record<string, string> = {}
  runs.forEach((run, index) => {
    logs[`${GITLAB_LOG} run ${index} output`] = run.output
    for (const [job, log] of Object.entries(run.jobLogs))
      logs[`${GITLAB_LOG} run ${index} ${job}.log`] = log
    for (const [report, text] of Object.entries(run.dotenvReports))
      logs[`${GITLAB_LOG} run ${index} dotenv report ${report}`] = text
  })
  return logs
}

const SAMPLE = join(ROOT, 'test/fixtures/sample-project')

/** What a sample project needs besides its files. */
export interface SampleProjectOptions extends Pick<GitlabProjectOptions, 'origin'> {
  /**
   * Packages from the npm registry (name: version range), as the template's webpack and babel
   * are: the project then commits no lock file, and `npm install` resolves them.
   */
  registryDependencies?: Record<string, string>
}

/**
 * An Olympe project to build from scratch: `npm ci` installs a stand-in toolkit from a local
 * folder (offline), `build:draw` and `build:node` lay out dist/web and dist/node, and
 * `npx olympe buildCodeAsData` dist/codeAsData, all from the build-images sample's files.
 */
export function sampleOlympeProject(
  gitlabCi: string,
  options: SampleProjectOptions = {},
): Promise<GitlabProject> {
  const { registryDependencies, ...projectOptions } = options
  const toolkitPackage = {
    name: '@olympeio/toolkit',
    version: '0.0.0-fake',
    bin: { olympe: 'olympe.js' },
  }
  const packageJson = {
    name: 'sample-olympe-project',
    version: '1.4.0',
    private: true,
    type: 'module',
    scripts: { 'build:draw': 'node build.js web', 'build:node': 'node build.js node' },
    devDependencies: { '@olympeio/toolkit': 'file:tools/toolkit', ...registryDependencies },
  }
  const lock = {
    name: packageJson.name,
    version: packageJson.version,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': {
        name: packageJson.name,
        version: packageJson.version,
        devDependencies: packageJson.devDependencies,
      },
      'node_modules/@olympeio/toolkit': { resolved: 'tools/toolkit', link: true },
      'tools/toolkit': { ...toolkitPackage, dev: true },
    },
  }
  const copy = "import { cpSync } from 'node:fs'\n"
  const lockFile: Record<string, string> = registryDependencies
    ? {}
    : { 'package-lock.json': JSON.stringify(lock, null, 2) }
  return createGitlabProject(
    {
      '.gitlab-ci.yml': gitlabCi,
      '.gitignore': 'dist/\nnode_modules/\n',
      'package.json': JSON.stringify(packageJson, null, 2),
      ...lockFile,
      'build.js': `${copy}cpSync(\`prebuilt/\${process.argv[2]}\`, \`dist/\${process.argv[2]}\`, { recursive: true })\n`,
      'tools/toolkit/package.json': JSON.stringify(toolkitPackage, null, 2),
      'tools/toolkit/olympe.js': [
        '#!/usr/bin/env node',
        copy,
        "if (process.argv[2] !== 'buildCodeAsData') process.exit(2)",
        "console.log('fake toolkit: buildCodeAsData')",
        "cpSync('prebuilt/codeAsData', 'dist/codeAsData', { recursive: true })",
        '',
      ].join('\n'),
    },
    {
      ...projectOptions,
      copyFrom: {
        docker: join(SAMPLE, 'docker'),
        'prebuilt/web': join(SAMPLE, 'dist/web'),
        'prebuilt/node': join(SAMPLE, 'dist/node'),
        'prebuilt/codeAsData': join(SAMPLE, 'dist/codeAsData'),
      },
    },
  )
}

/**
 * What gitlab-ci-local's summary says of a job: PASS, WARN (it failed with an exit code its
 * `allow_failure` allows: "passed with warnings") or FAIL; undefined when it did not run. Read it
 * rather than the process's exit code for a job with `allow_failure: exit_codes`: gitlab-ci-local
 * 4.75 exits 0, and runs the later stages, after such a job whatever its exit code, where GitLab
 * fails the job and the pipeline on any code it does not list.
 */
export function jobState(run: PipelineRun, job: string): 'PASS' | 'WARN' | 'FAIL' | undefined {
  const escaped = job.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const found = new RegExp(`^ (PASS|WARN|FAIL) .*? ${escaped}(?: |$)`, 'm').exec(run.output)
  return found?.[1] as 'PASS' | 'WARN' | 'FAIL' | undefined
}

/** `{code, tail}` for `toEqual({code: 0, tail: ''})`: a failure shows the end of the output. */
export function outcome(run: PipelineRun): { code: number | null; tail: string } {
  return { code: run.code, tail: run.code === 0 ? '' : run.output.slice(-4000) }
}
