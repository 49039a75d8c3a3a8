// The example GitHub workflows (examples/github/*.yml) run here as the runner would run them,
// job by job and step by step, so a test proves what the files say rather than a retelling:
// `run:` steps in bash with GITHUB_OUTPUT, our actions as their committed bundles
// (runAsGithub), local reusable workflows, `needs`, `if`, job outputs and environments with
// secrets and variables of their own, and the link (`environment.url`) each job gives its own.
// A job with `strategy.matrix` runs once per leg (workflow-matrix.ts), one after the other, each
// with its `matrix` context and a record of its own; a job that needs it sees one result for all
// its legs, and outputs merged as GitHub merges them (each leg writes over the ones before it:
// the "last leg wins" of actions/runner#1835, here in the order of the legs).
// GitHub's own actions are played by what they document: a job starts in an empty workspace, and
// actions/checkout makes it the project's (the test's `workspace`, shared by the jobs that check
// out); actions/setup-node writes the .npmrc of its `registry-url` (src/authutil.ts) and fails a
// `cache: npm` without a lock file; actions/upload-artifact and download-artifact keep the run's
// artifacts in a folder of the run's own (workflow-artifacts.ts).
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parse } from 'yaml'
import { withCleanup } from './cleanup.js'
import { ROOT, runAsGithub, type ActionId } from './run-action.js'
import { capture } from './run-process.js'
import {
  downloadArtifact,
  readArtifacts,
  uploadArtifact,
  type ArtifactStep,
  type Artifacts,
} from './workflow-artifacts.js'
import {
  asText,
  condition,
  interpolate,
  type ExpressionScope,
  type Value,
} from './workflow-expressions.js'
import { expandMatrix, legName, type Leg } from './workflow-matrix.js'

export const EXAMPLES_DIR = join(ROOT, 'examples/github')

export interface WorkflowRunOptions {
  /** The checkout: the project the workflow builds, a job's workspace once it checked out. */
  workspace: string
  event: {
    name: 'push' | 'workflow_dispatch'
    /** The branch pushed or chosen in "Run workflow". */
    branch: string
    defaultBranch: string
    /** workflow_dispatch inputs, as the form sends them (strings). */
    inputs?: Record<string, string>
  }
  sha: string
  repository: string
  actor: string
  vars?: Record<string, string>
  /** Repository secrets (GITHUB_TOKEN included when a test needs it). */
  secrets?: Record<string, string>
  /** Each environment's own secrets, which win over the repository's in its jobs. */
  environments?: Record<string, Record<string, string>>
  /** Each environment's own variables, which win over the repository's `vars` in its jobs. */
  environmentVars?: Record<string, Record<string, string>>
  /** Environment of every step and action: PATH, HOME, npm cache, DOCKER_CONFIG… */
  env: Record<string, string>
  /**
   * A test's shortcut, not GitHub's: a job whose step of this name succeeded ends there, as a
   * success, without running its later steps (their outputs stay empty, so a job that needs
   * them is skipped by its `if`). For what the first steps decide, without images or deploys.
   */
  untilStep?: string
  /**
   * Another shortcut of a test's: jobs played by their outputs alone, by job id (such as an
   * `images` job whose build needs what the test does not have): each ends as a success, with
   * these outputs, without running a step.
   */
  standIns?: Record<string, Record<string, string>>
}

export interface StepRecord {
  job: string
  step: string
  code: number | null
  /** What the step printed and wrote (outputs, summary), for secret scans and messages. */
  texts: Record<string, string>
}

export interface JobRecord {
  /** `cancelled`: a leg that a failed one stopped (`fail-fast`, true unless told). */
  result: 'success' | 'failure' | 'skipped' | 'cancelled'
  outputs: Record<string, string>
  /** Why the job could not start, in GitHub's words where it has some (a matrix it refuses). */
  error?: string
  /** A matrix job's legs, by the names their records have in `jobs`. */
  legs?: string[]
  environment?: string
  /** The environment's link, `environment.url` evaluated once the job's steps ran (as GitHub does). */
  environmentUrl?: string
  /** `cache` as actions/setup-node received it, and the .npmrc it wrote. */
  setupNode?: { cache: string; npmrc?: string }
}

export interface WorkflowRun {
  jobs: Record<string, JobRecord>
  steps: StepRecord[]
  /** Every artifact the run's jobs uploaded, by name: its files' relative paths and text. */
  artifacts: Artifacts
}

/** Each job's result, by its id in `run.jobs`: what the run's overview page shows. */
export function jobResults(run: WorkflowRun): Record<string, JobRecord['result']> {
  return Object.fromEntries(Object.entries(run.jobs).map(([id, job]) => [id, job.result]))
}

interface Step {
  id?: string
  name?: string
  if?: string | boolean
  uses?: string
  run?: string
  with?: Record<string, unknown>
  env?: Record<string, unknown>
}
interface Job {
  name?: string
  needs?: string | string[]
  if?: string | boolean
  strategy?: { matrix?: unknown; 'fail-fast'?: boolean | string; 'max-parallel'?: unknown }
  environment?: string | { name: string; url?: string }
  uses?: string
  with?: Record<string, unknown>
  secrets?: Record<string, unknown> | 'inherit'
  outputs?: Record<string, string>
  steps?: Step[]
}
interface InputSpec {
  type?: string
  default?: unknown
}
interface Workflow {
  on: {
    workflow_call?: {
      inputs?: Record<string, InputSpec>
      outputs?: Record<string, { value: string }>
    }
    workflow_dispatch?: { inputs?: Record<string, InputSpec> }
  }
  jobs: Record<string, Job>
}

const ACTION = /^your-org\/olympe-deploy-actions(?:\/actions\/([a-z-]+))?@v1$/

/** Runs examples/github/<file> for the event; resolves when every job ended or was skipped. */
export async function runWorkflow(file: string, options: WorkflowRunOptions): Promise<WorkflowRun> {
  const workflow = await loadWorkflow(file)
  const inputs = typedInputs(
    workflow.on.workflow_dispatch?.inputs ?? {},
    options.event.name === 'workflow_dispatch' ? (options.event.inputs ?? {}) : {},
  )
  const run: WorkflowRun = { jobs: {}, steps: [], artifacts: {} }
  // The run's artifacts last as long as the run: the test reads them from the record.
  await withCleanup(async (cleanup) => {
    const artifacts = await cleanup.tempDir('olympe-workflow-artifacts-')
    const frame = { inputs, secrets: options.secrets ?? {}, prefix: '', artifacts }
    await runJobs(workflow, frame, options, run)
    run.artifacts = await readArtifacts(artifacts)
  })
  return run
}

/** A file of examples/github/, or any workflow file by its absolute path. */
export async function loadWorkflow(file: string): Promise<Workflow> {
  return parse(await readFile(resolve(EXAMPLES_DIR, file), 'utf8')) as Workflow
}

interface CallFrame {
  inputs: Record<string, Value>
  secrets: Record<string, string>
  /** `<caller job>/` for the jobs of a reusable workflow. */
  prefix: string
  /** The run's artifact store, which a called workflow shares (it is the same run). */
  artifacts: string
}

function typedInputs(
  specs: Record<string, InputSpec>,
  given: Record<string, Value>,
): Record<string, Value> {
  const inputs: Record<string, Value> = {}
  for (const [name, spec] of Object.entries(specs)) {
    const value = given[name] ?? (spec.default as Value | undefined) ?? null
    inputs[name] = spec.type === 'boolean' ? value === true || value === 'true' : value
  }
  return inputs
}

function githubContext(options: WorkflowRunOptions): Value {
  const { event } = options
  const repository = { default_branch: event.defaultBranch, full_name: options.repository }
  return {
    event_name: event.name,
    ref: `refs/heads/${event.branch}`,
    ref_name: event.branch,
    sha: options.sha,
    repository: options.repository,
    actor: options.actor,
    event:
      event.name === 'workflow_dispatch'
        ? { inputs: event.inputs ?? {}, ref: `refs/heads/${event.branch}`, repository }
        : { ref: `refs/heads/${event.branch}`, repository },
  }
}

async function runJobs(
  workflow: Workflow,
  frame: CallFrame,
  options: WorkflowRunOptions,
  run: WorkflowRun,
): Promise<Record<string, JobRecord>> {
  const done: Record<string, JobRecord> = {}
  const pending = Object.entries(workflow.jobs)
  while (pending.length > 0) {
    const index = pending.findIndex(([, job]) => needsOf(job).every((name) => done[name]))
    const [entry] = index < 0 ? [] : pending.splice(index, 1)
    if (!entry) throw new Error(`Jobs wait for each other: ${pending.map(([id]) => id).join(', ')}`)
    const [id, job] = entry
    done[id] = await runJob(id, job, done, frame, options, run)
    run.jobs[frame.prefix + id] = done[id]
  }
  return done
}

const needsOf = (job: Job): string[] =>
  job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs]

async function runJob(
  id: string,
  job: Job,
  done: Record<string, JobRecord>,
  frame: CallFrame,
  options: WorkflowRunOptions,
  run: WorkflowRun,
): Promise<JobRecord> {
  const needs = Object.fromEntries(
    needsOf(job).map((name) => [
      name,
      { outputs: done[name]?.outputs ?? {}, result: done[name]?.result ?? null },
    ]),
  )
  const skipped: JobRecord = { result: 'skipped', outputs: {} }
  const results = needsOf(job).map((name) => done[name]?.result)
  const needsStatus = results.includes('failure')
    ? 'failure'
    : results.every((result) => result === 'success')
      ? 'success'
      : 'skipped'
  const base: Record<string, Value> = {
    github: githubContext(options),
    inputs: frame.inputs,
    vars: options.vars ?? {},
    needs,
    secrets: frame.secrets,
  }
  // A job's `if` comes before its matrix: it cannot read `matrix`.
  if (!condition(job.if, scopeOf(base, options, {}, needsStatus))) return skipped
  const standIn = options.standIns?.[frame.prefix + id]
  if (standIn) return { result: 'success', outputs: { ...standIn } }
  if (job.uses) {
    const { secrets, vars } = environmentOf(job, base, options, frame)
    return callWorkflow(id, job, scopeOf(base, options, { secrets, vars }), frame, options, run)
  }
  if (job.strategy?.matrix === undefined)
    return runLeg(frame.prefix + id, job, base, frame, options, run)
  return runMatrix(id, job, base, frame, options, run)
}

function scopeOf(
  base: Record<string, Value>,
  options: WorkflowRunOptions,
  contexts: Record<string, Value>,
  status: ExpressionScope['status'] = 'success',
): ExpressionScope {
  return { contexts: { ...base, ...contexts }, workspace: options.workspace, status }
}

/** The job's environment (an empty name is none, as GitHub reads it), its secrets and variables. */
function environmentOf(
  job: Job,
  base: Record<string, Value>,
  options: WorkflowRunOptions,
  frame: CallFrame,
): { environment?: string; secrets: Record<string, string>; vars: Record<string, string> } {
  const named = typeof job.environment === 'object' ? job.environment.name : job.environment
  const environment = asText(interpolate(named ?? '', scopeOf(base, options, {}))) || undefined
  const secrets = { ...frame.secrets, ...(environment ? options.environments?.[environment] : {}) }
  const vars = { ...options.vars, ...(environment ? options.environmentVars?.[environment] : {}) }
  return { environment, secrets, vars }
}

/**
 * Each leg of the job's matrix in turn, recorded as `<job> (<values>)` (or as its evaluated
 * `name:`); with `fail-fast` (the default), the legs after a failed one are cancelled. The job's
 * result is a failure when a leg failed; its outputs, each leg's written over the earlier ones'.
 */
async function runMatrix(
  id: string,
  job: Job,
  base: Record<string, Value>,
  frame: CallFrame,
  options: WorkflowRunOptions,
  run: WorkflowRun,
): Promise<JobRecord> {
  let legs: Leg[]
  try {
    legs = expandMatrix(job.strategy?.matrix, scopeOf(base, options, {}))
  } catch (error) {
    return {
      result: 'failure',
      outputs: {},
      error: `Error when evaluating 'strategy' for job '${id}'. ${(error as Error).message}`,
    }
  }
  const failFast = String(job.strategy?.['fail-fast'] ?? true) !== 'false'
  const record: JobRecord = { result: 'success', outputs: {}, legs: [] }
  for (const leg of legs) {
    const contexts = { ...base, matrix: leg }
    const named =
      job.name === undefined ? undefined : interpolate(job.name, scopeOf(contexts, options, {}))
    const name = frame.prefix + (named === undefined ? legName(id, leg) : asText(named))
    record.legs?.push(name)
    const ran: JobRecord =
      record.result === 'failure' && failFast
        ? { result: 'cancelled', outputs: {} }
        : await runLeg(name, job, contexts, frame, options, run)
    run.jobs[name] = ran
    if (ran.result === 'failure') record.result = 'failure'
    Object.assign(record.outputs, ran.outputs)
  }
  return record
}

/** One run of a job's steps (a job without a matrix, or one leg of it), as `name`. */
async function runLeg(
  name: string,
  job: Job,
  contexts: Record<string, Value>,
  frame: CallFrame,
  options: WorkflowRunOptions,
  run: WorkflowRun,
): Promise<JobRecord> {
  const { environment, secrets, vars } = environmentOf(job, contexts, options, frame)
  const scope = (
    added: Record<string, Value>,
    status?: ExpressionScope['status'],
  ): ExpressionScope => scopeOf(contexts, options, added, status)
  // The runner's temp folder (RUNNER_TEMP) and the job's own empty workspace last as long as
  // the job. After a failed step, only the steps whose `if` asks for it run (`!cancelled()`…).
  const state = await withCleanup(async (cleanup) => {
    const temp = await cleanup.tempDir('olympe-workflow-job-')
    const state: JobState = {
      id: name,
      env: {},
      steps: {},
      workspace: await cleanup.tempDir('olympe-workflow-workspace-'),
      artifacts: frame.artifacts,
      record: { result: 'success', outputs: {}, environment },
    }
    for (const step of job.steps ?? []) {
      const stepScope = {
        ...scope(
          { secrets, vars, steps: state.steps, runner: { temp } },
          state.record.result === 'failure' ? 'failure' : 'success',
        ),
        workspace: state.workspace,
      }
      if (!condition(step.if, stepScope)) continue
      const record = await runStep(step, stepScope, state, temp, options)
      run.steps.push(record)
      if (record.code !== 0) state.record.result = 'failure'
      else if (record.step === options.untilStep && state.record.result === 'success') break
    }
    return state
  })
  const url = typeof job.environment === 'object' ? job.environment.url : undefined
  if (url !== undefined)
    state.record.environmentUrl = asText(interpolate(url, scope({ vars, steps: state.steps })))
  if (state.record.result === 'failure') return state.record
  const outputs = scope({ secrets, steps: state.steps })
  for (const [output, value] of Object.entries(job.outputs ?? {}))
    state.record.outputs[output] = asText(interpolate(value, outputs))
  return state.record
}

interface JobState {
  id: string
  /** What earlier steps added to the job's environment (setup-node's NPM_CONFIG_USERCONFIG). */
  env: Record<string, string>
  /** An empty folder of the job's own until actions/checkout makes it the project. */
  workspace: string
  /** The run's artifact store (workflow-artifacts.ts). */
  artifacts: string
  steps: Record<string, Value>
  record: JobRecord
}

async function callWorkflow(
  id: string,
  job: Job,
  scope: ExpressionScope,
  caller: CallFrame,
  options: WorkflowRunOptions,
  run: WorkflowRun,
): Promise<JobRecord> {
  const file = /^\.\/\.github\/workflows\/([\w.-]+\.yml)$/.exec(job.uses ?? '')?.[1]
  if (!file)
    throw new Error(`Job ${id}: only local reusable workflows run here, not '${job.uses ?? ''}'`)
  const called = await loadWorkflow(file)
  const given = Object.fromEntries(
    Object.entries(job.with ?? {}).map(([name, value]) => [
      name,
      interpolate(String(value), scope),
    ]),
  )
  const passed =
    job.secrets === 'inherit'
      ? (scope.contexts.secrets as Record<string, string>)
      : Object.fromEntries(
          Object.entries(job.secrets ?? {}).map(([name, value]) => [
            name,
            asText(interpolate(String(value), scope)),
          ]),
        )
  // GitHub gives every called workflow its own GITHUB_TOKEN, whatever the caller passes.
  const token = options.secrets?.GITHUB_TOKEN
  const frame = {
    inputs: typedInputs(called.on.workflow_call?.inputs ?? {}, given),
    secrets: token === undefined ? passed : { ...passed, GITHUB_TOKEN: token },
    prefix: `${id}/`,
    artifacts: caller.artifacts,
  }
  const jobs = await runJobs(called, frame, options, run)
  const failed = Object.values(jobs).some((each) => each.result === 'failure')
  const outputs: Record<string, string> = {}
  const jobsScope = { ...scope, contexts: { ...scope.contexts, jobs: jobs as unknown as Value } }
  for (const [name, output] of Object.entries(called.on.workflow_call?.outputs ?? {}))
    outputs[name] = asText(interpolate(output.value, jobsScope))
  return { result: failed ? 'failure' : 'success', outputs }
}

async function runStep(
  step: Step,
  scope: ExpressionScope,
  state: JobState,
  temp: string,
  options: WorkflowRunOptions,
): Promise<StepRecord> {
  const name = step.name ?? step.id ?? step.uses ?? step.run ?? ''
  const withValues = Object.fromEntries(
    Object.entries(step.with ?? {}).map(([key, value]) => [
      key,
      asText(interpolate(String(value), scope)),
    ]),
  )
  const stepEnv = Object.fromEntries(
    Object.entries(step.env ?? {}).map(([key, value]) => [
      key,
      asText(interpolate(String(value), scope)),
    ]),
  )
  const record = { job: state.id, step: name }
  if (step.uses?.startsWith('actions/checkout@')) {
    state.workspace = options.workspace
    return { ...record, code: 0, texts: {} }
  }
  if (step.uses?.startsWith('actions/setup-node@'))
    return { ...record, ...(await setupNode(withValues, state, temp, state.workspace)) }
  const artifactStep = ARTIFACT_ACTIONS.find(([prefix]) => step.uses?.startsWith(prefix))?.[1]
  if (artifactStep) {
    const result = await artifactStep(withValues, state.workspace, state.artifacts)
    if (step.id) state.steps[step.id] = { outputs: result.outputs }
    return { ...record, code: result.code, texts: result.texts }
  }
  const action = step.uses === undefined ? undefined : ACTION.exec(step.uses)
  if (action) {
    const id = (action[1] ?? 'deploy') as ActionId
    const result = await runAsGithub(id, {
      cwd: state.workspace,
      inputs: withValues,
      env: { ...options.env, ...state.env, ...stepEnv, ...actionContext(options) },
      event: eventOf(options),
    })
    if (step.id) state.steps[step.id] = { outputs: result.outputs }
    return {
      ...record,
      code: result.code,
      texts: { stdout: result.stdout, stderr: result.stderr, ...result.files },
    }
  }
  if (step.run === undefined)
    throw new Error(`Step '${name}' uses '${step.uses ?? ''}', which does not run here`)
  const result = await runScript(
    step.run,
    { ...options.env, ...state.env, ...actionContext(options), ...stepEnv },
    temp,
    state.workspace,
  )
  if (step.id) state.steps[step.id] = { outputs: result.outputs }
  return { ...record, code: result.code, texts: result.texts }
}

const ARTIFACT_ACTIONS: Array<
  [
    string,
    (inputs: Record<string, string>, workspace: string, store: string) => Promise<ArtifactStep>,
  ]
> = [
  ['actions/upload-artifact@', uploadArtifact],
  ['actions/download-artifact@', downloadArtifact],
]

/** The GITHUB_* facts the runner gives every step (the rest come with runAsGithub). */
function actionContext(options: WorkflowRunOptions): Record<string, string> {
  return {
    GITHUB_SHA: options.sha,
    GITHUB_REPOSITORY: options.repository,
    GITHUB_ACTOR: options.actor,
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_REF_NAME: options.event.branch,
  }
}

function eventOf(options: WorkflowRunOptions): { name: string; ref: string; payload: object } {
  const github = githubContext(options) as { event: object }
  return {
    name: options.event.name,
    ref: `refs/heads/${options.event.branch}`,
    payload: github.event,
  }
}

/** What actions/setup-node does with `cache` and `registry-url` (its authutil.ts). */
async function setupNode(
  inputs: Record<string, string>,
  state: JobState,
  temp: string,
  workspace: string,
): Promise<{ code: number; texts: Record<string, string> }> {
  const cache = inputs.cache ?? ''
  state.record.setupNode = { cache }
  const locks = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock']
  if (cache === 'npm' && !locks.some((lock) => existsSync(join(workspace, lock)))) {
    const message = `Dependencies lock file is not found in ${workspace}. Supported file patterns: ${locks.join(',')}`
    return { code: 1, texts: { stderr: `##[error]${message}` } }
  }
  let url = inputs['registry-url'] ?? ''
  if (url === '') return { code: 0, texts: {} }
  if (!url.endsWith('/')) url += '/'
  const scope = inputs.scope
    ? `${inputs.scope.startsWith('@') ? '' : '@'}${inputs.scope.toLowerCase()}:`
    : ''
  const npmrc = `${url.replace(/^\w+:/, '')}:_authToken=\${NODE_AUTH_TOKEN}\n${scope}registry=${url}`
  const file = join(temp, '.npmrc')
  await writeFile(file, npmrc)
  state.env.NPM_CONFIG_USERCONFIG = file
  state.record.setupNode.npmrc = npmrc
  return { code: 0, texts: { npmrc } }
}

/** A `run:` step: `bash --noprofile --norc -eo pipefail <file>`, as the runner runs it. */
async function runScript(
  script: string,
  env: Record<string, string>,
  temp: string,
  cwd: string,
): Promise<{
  code: number | null
  texts: Record<string, string>
  outputs: Record<string, string>
}> {
  const file = join(temp, 'step.sh')
  const output = join(temp, 'step-output')
  await writeFile(file, script)
  await writeFile(output, '')
  const result = await capture('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], {
    cwd,
    env: {
      ...env,
      GITHUB_OUTPUT: output,
      RUNNER_TEMP: temp,
      GITHUB_WORKSPACE: cwd,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
    },
    timeoutMs: 240_000,
  })
  const written = await readFile(output, 'utf8')
  const outputs = commandFile(written)
  return {
    code: result.code,
    outputs,
    texts: { stdout: result.stdout, stderr: result.stderr, GITHUB_OUTPUT: written },
  }
}

/**
 * The values of a file such as GITHUB_OUTPUT, as the runner reads it: `name=value` lines, and
 * `name<<DELIMITER`, the value's lines, then `DELIMITER` alone for a value of several lines.
 */
export function commandFile(text: string): Record<string, string> {
  const values: Record<string, string> = {}
  const lines = text.split('\n')
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? ''
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line)
    if (heredoc && (!line.includes('=') || line.indexOf('<<') < line.indexOf('='))) {
      const [, name = '', delimiter = ''] = heredoc
      const end = lines.indexOf(delimiter, index + 1)
      if (end < 0) throw new Error(`Matching delimiter not found '${delimiter}'`)
      values[name] = lines.slice(index + 1, end).join('\n')
      index = end
    } else if (line.includes('=')) {
      values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1)
    }
  }
  return values
}

/** Every step's texts, named `<job> / <step> <what>`, for a secret scan. */
export function stepTexts(runs: WorkflowRun[]): Record<string, string> {
  const texts: Record<string, string> = {}
  runs.forEach((run, index) => {
    for (const step of run.steps)
      for (const [what, text] of Object.entries(step.texts))
        texts[`run ${index} ${step.job} / ${step.step} ${what}`] = text
  })
  return texts
}
