import type { CiContext, Platform } from '../core/shared/context.js'
import type { Env } from '../core/shared/env.js'
import type { Exec } from '../core/shared/exec.js'
import { quote } from '../core/shared/errors.js'

/**
 * The facts about this run, read once. GitHub's come from @actions/github's context (loaded only
 * on GitHub: it brings Octokit); GitLab's and a local run's are what @actions/github cannot know.
 */
export async function detectContext(env: Env, cwd: string, exec: Exec): Promise<CiContext> {
  switch (whichCi(env)) {
    case 'github':
      return githubContext(env, cwd)
    case 'gitlab':
      return gitlabContext(env, cwd)
    case 'local':
      return localContext(cwd, exec)
  }
}

/** Which CI runs this job, from the variable each sets in every job. */
export function whichCi(env: Env): Platform {
  if (env.GITHUB_ACTIONS === 'true') return 'github'
  if (env.GITLAB_CI === 'true') return 'gitlab'
  return 'local'
}

const PLATFORM_NAMES: Record<Platform, string> = {
  github: 'GitHub Actions',
  gitlab: 'GitLab CI',
  local: 'local command line',
}

/**
 * The step's first line: the platform it takes itself to run on, and the variables that decided
 * it, so that a run that is not where it seems (gitlab-ci-local sets GITLAB_CI to 'false') shows
 * it at once. `commandLine`: started by `olympe-deploy`, not as a step of the runner.
 */
export function platformLine(env: Env, commandLine: boolean): string {
  const ci = whichCi(env)
  const said = (name: 'GITHUB_ACTIONS' | 'GITLAB_CI'): string => {
    const value = env[name]
    return value === undefined ? `${name} is not set` : `${name} is ${quote(value, 40)}`
  }
  const why =
    ci === 'github'
      ? said('GITHUB_ACTIONS')
      : ci === 'gitlab'
        ? said('GITLAB_CI')
        : `${said('GITLAB_CI')}, ${said('GITHUB_ACTIONS')}`
  const how = ci !== 'local' && commandLine ? ', command line' : ''
  const hint =
    ci === 'local' && env.GITLAB_CI !== undefined
      ? ". GitLab sets GITLAB_CI to 'true' in every job, and gitlab-ci-local to 'false': to run a job there as on GitLab, give it --variable GITLAB_CI=true"
      : ''
  return `Platform: ${PLATFORM_NAMES[ci]}${how} (${why})${hint}.`
}

/**
 * What to check when a registry refuses the login, as each platform gives the user name and
 * password (see CiContext.registryLoginHelp).
 */
export const REGISTRY_LOGIN_HELP: Record<Platform, string> = {
  github:
    "Check the step's 'registry-username' and 'registry-password' inputs, and that 'registry' names the right host. With secrets.GITHUB_TOKEN as the password, the job needs 'permissions: packages: write', and a package that exists already must give this repository write access (its Manage Actions access settings)",
  gitlab:
    "On GitLab the templates log in as $CI_REGISTRY_USER with $CI_REGISTRY_PASSWORD, the job token, which may push to this project's own registry only: check that the project's container registry is enabled and that 'registry' is $CI_REGISTRY. For another registry or account, set 'registry' and 'registry-username', and the password in the masked CI/CD variable INPUT_REGISTRY_PASSWORD",
  local:
    "Check the INPUT_REGISTRY_USERNAME and INPUT_REGISTRY_PASSWORD variables (or the '--registry-username' flag), and that 'registry' names the right host",
}

/**
 * On GitLab the templates give `registry-username` and `registry-password` the job's
 * CI_REGISTRY_USER and CI_REGISTRY_PASSWORD (GitLab sets both, or neither where the project's
 * container registry is off); a project or group variable INPUT_REGISTRY_PASSWORD wins over the
 * template's job variable. One without the other is a variable that did not reach the job.
 */
export const GITLAB_REGISTRY_PASSWORD =
  "on GitLab the templates give it the CI/CD variable CI_REGISTRY_PASSWORD (GitLab's job token, beside CI_REGISTRY_USER), or, for another registry or account, the masked CI/CD variable INPUT_REGISTRY_PASSWORD: define the one that goes with that user name"

const GITHUB_PR_EVENTS = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'merge_group',
])

const GITHUB_BOT = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com',
}

interface GithubPayload {
  repository?: { default_branch?: string }
  pull_request?: { head?: { ref?: string } }
}

async function githubContext(env: Env, cwd: string): Promise<CiContext> {
  const { context } = await import('@actions/github')
  const payload = context.payload as GithubPayload
  // Unset outside a runner (@github/local-action with a hand-written env file): say so.
  const event =
    (context.eventName as string | undefined) || 'unknown (GITHUB_EVENT_NAME is not set)'
  const isPullRequest = GITHUB_PR_EVENTS.has(event)
  // The context's fields are plain copies of GITHUB_* variables: absent outside a runner.
  const ref = (context.ref as string | undefined) ?? ''
  const branch = isPullRequest
    ? payload.pull_request?.head?.ref || env.GITHUB_HEAD_REF || undefined
    : ref.startsWith('refs/heads/')
      ? ref.slice('refs/heads/'.length)
      : undefined
  // context.repo throws without GITHUB_REPOSITORY; a run id is a number only on a runner.
  const repository = env.GITHUB_REPOSITORY
    ? `${context.repo.owner}/${context.repo.repo}`
    : undefined
  const runId = Number.isFinite(context.runId) ? String(context.runId) : undefined
  return {
    platform: 'github',
    workspace: env.GITHUB_WORKSPACE || cwd,
    event,
    isPullRequest,
    branch,
    defaultBranch: payload.repository?.default_branch,
    sha: context.sha || undefined,
    runId,
    repository,
    repositoryUrl: repository ? webAddress(`${context.serverUrl}/${repository}`) : undefined,
    ...githubRun(env, context.serverUrl, repository, runId),
    actor: GITHUB_BOT,
    registryLoginHelp: REGISTRY_LOGIN_HELP.github,
  }
}

function gitlabContext(env: Env, cwd: string): CiContext {
  const event = env.CI_PIPELINE_SOURCE || 'unknown (CI_PIPELINE_SOURCE is not set)'
  const isPullRequest = event === 'merge_request_event' || Boolean(env.CI_MERGE_REQUEST_IID)
  return {
    platform: 'gitlab',
    workspace: env.CI_PROJECT_DIR || cwd,
    event,
    isPullRequest,
    branch: env.CI_COMMIT_BRANCH || env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME || undefined,
    defaultBranch: env.CI_DEFAULT_BRANCH,
    sha: env.CI_COMMIT_SHA,
    runId: env.CI_PIPELINE_ID,
    repository: env.CI_PROJECT_PATH,
    repositoryUrl: webAddress(env.CI_PROJECT_URL),
    ...gitlabRun(env),
    containerRegistry: env.CI_REGISTRY || undefined,
    actor: env.GITLAB_USER_EMAIL
      ? {
          name: env.GITLAB_USER_NAME || env.GITLAB_USER_LOGIN || 'GitLab CI',
          email: env.GITLAB_USER_EMAIL,
        }
      : undefined,
    registryLoginHelp: REGISTRY_LOGIN_HELP.gitlab,
    registryPasswordFrom: GITLAB_REGISTRY_PASSWORD,
  }
}

/** The facts of a run that a provenance names, each left out when the variable is not as GitHub sets it. */
function githubRun(
  env: Env,
  serverUrl: string,
  repository: string | undefined,
  runId: string | undefined,
): Pick<CiContext, 'ref' | 'workflow' | 'runUrl' | 'builderId'> {
  const server = webAddress(serverUrl)
  const ref = gitRef(env.GITHUB_REF)
  // `owner/repo/.github/workflows/build.yml@refs/heads/main`
  const workflow = /^[\w.-]+\/[\w.-]+\/\S+@refs\/\S+$/.test(env.GITHUB_WORKFLOW_REF ?? '')
    ? env.GITHUB_WORKFLOW_REF
    : undefined
  const attempt = /^\d+$/.test(env.GITHUB_RUN_ATTEMPT ?? '') ? env.GITHUB_RUN_ATTEMPT : undefined
  const run =
    server && repository && runId
      ? `${server}/${repository}/actions/runs/${runId}${attempt ? `/attempts/${attempt}` : ''}`
      : undefined
  return {
    ...(ref ? { ref } : {}),
    ...(workflow ? { workflow } : {}),
    ...(run ? { runUrl: run } : {}),
    ...(server && workflow ? { builderId: `${server}/${workflow}` } : {}),
  }
}

/** The same facts on GitLab: the ref made from the pipeline's tag, merge request or branch. */
function gitlabRun(env: Env): Pick<CiContext, 'ref' | 'workflow' | 'runUrl' | 'builderId'> {
  const ref = gitRef(
    env.CI_COMMIT_TAG
      ? `refs/tags/${env.CI_COMMIT_TAG}`
      : /^\d+$/.test(env.CI_MERGE_REQUEST_IID ?? '')
        ? `refs/merge-requests/${env.CI_MERGE_REQUEST_IID ?? ''}/head`
        : env.CI_COMMIT_REF_NAME
          ? `refs/heads/${env.CI_COMMIT_BRANCH || env.CI_COMMIT_REF_NAME}`
          : undefined,
  )
  const workflow =
    env.CI_CONFIG_PATH && !/[\s\0]/.test(env.CI_CONFIG_PATH) ? env.CI_CONFIG_PATH : undefined
  const run = webAddress(env.CI_PIPELINE_URL)
  const job = webAddress(env.CI_JOB_URL)
  return {
    ...(ref ? { ref } : {}),
    ...(workflow ? { workflow } : {}),
    ...(run ? { runUrl: run } : {}),
    ...(job ? { builderId: job } : {}),
  }
}

/** A full git ref with no space or control character in it, else undefined. */
function gitRef(ref: string | undefined): string | undefined {
  return ref && /^refs\/[^\s\0]+$/.test(ref) ? ref : undefined
}

/** An http(s) address without credentials, query or fragment, as written (no trailing slash); else undefined. */
function webAddress(value: string | undefined): string | undefined {
  if (!value) return undefined
  try {
    const url = new URL(value)
    const plain = !url.username && !url.password && !url.search && !url.hash
    return (url.protocol === 'https:' || url.protocol === 'http:') && plain
      ? value.replace(/\/+$/, '')
      : undefined
  } catch {
    return undefined
  }
}

/**
 * Run by hand, there is no CI to say which branch and commit this is: ask git, so that the
 * branch gate and `{short-sha}` work as they would in CI. Outside a git repository both stay
 * unknown, and whoever needs them says so.
 */
async function localContext(cwd: string, exec: Exec): Promise<CiContext> {
  const [sha, branch] = await gitFacts(cwd, exec)
  return {
    platform: 'local',
    workspace: cwd,
    event: 'local',
    isPullRequest: false,
    branch,
    sha,
    registryLoginHelp: REGISTRY_LOGIN_HELP.local,
  }
}

/** `git rev-parse HEAD --abbrev-ref HEAD`: the commit, then the branch (HEAD when detached). */
async function gitFacts(cwd: string, exec: Exec): Promise<Array<string | undefined>> {
  try {
    const result = await exec('git', ['rev-parse', 'HEAD', '--abbrev-ref', 'HEAD'], { cwd })
    if (result.code !== 0) return []
    return result.stdout
      .split('\n')
      .map((line) => line.trim())
      .map((answer) => (answer === '' || answer === 'HEAD' ? undefined : answer))
  } catch {
    return []
  }
}
