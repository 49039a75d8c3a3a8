import { readFileSync } from 'node:fs'
import type { CiContext, Platform } from '../core/shared/context.js'

export type { CiContext, Platform }

type Env = Record<string, string | undefined>

export function detectContext(env: Env, cwd: string): CiContext {
  if (env.GITHUB_ACTIONS === 'true') return githubContext(env, cwd)
  if (env.GITLAB_CI === 'true') return gitlabContext(env, cwd)
  return { platform: 'local', workspace: cwd, event: 'local', isPullRequest: false }
}

const GITHUB_PR_EVENTS = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'merge_group',
])

function githubContext(env: Env, cwd: string): CiContext {
  const event = env.GITHUB_EVENT_NAME ?? ''
  const isPullRequest = GITHUB_PR_EVENTS.has(event)
  const ref = env.GITHUB_REF ?? ''
  const branch = isPullRequest
    ? env.GITHUB_HEAD_REF || undefined
    : ref.startsWith('refs/heads/')
      ? ref.slice('refs/heads/'.length)
      : undefined
  const server = env.GITHUB_SERVER_URL ?? 'https://github.com'
  return {
    platform: 'github',
    workspace: env.GITHUB_WORKSPACE || cwd,
    event,
    isPullRequest,
    branch,
    defaultBranch: githubDefaultBranch(env.GITHUB_EVENT_PATH),
    sha: env.GITHUB_SHA,
    runId: env.GITHUB_RUN_ID,
    repository: env.GITHUB_REPOSITORY,
    repositoryUrl: env.GITHUB_REPOSITORY ? `${server}/${env.GITHUB_REPOSITORY}` : undefined,
    actor: {
      name: 'github-actions[bot]',
      email: '41898282+github-actions[bot]@users.noreply.github.com',
    },
  }
}

/** The event payload is the only place a JavaScript action learns the default branch. */
function githubDefaultBranch(eventPath: string | undefined): string | undefined {
  if (!eventPath) return undefined
  try {
    const event = JSON.parse(readFileSync(eventPath, 'utf8')) as {
      repository?: { default_branch?: string }
    }
    return event.repository?.default_branch
  } catch {
    return undefined
  }
}

function gitlabContext(env: Env, cwd: string): CiContext {
  const event = env.CI_PIPELINE_SOURCE ?? ''
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
    repositoryUrl: env.CI_PROJECT_URL,
    actor: env.GITLAB_USER_EMAIL
      ? {
          name: env.GITLAB_USER_NAME || env.GITLAB_USER_LOGIN || 'GitLab CI',
          email: env.GITLAB_USER_EMAIL,
        }
      : undefined,
  }
}
