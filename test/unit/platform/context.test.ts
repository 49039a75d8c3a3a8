import { afterEach, describe, expect, jest, test } from '@jest/globals'
import { readFile } from 'node:fs/promises'
import type { CiContext } from '../../../src/core/shared/context.js'
import type { Env } from '../../../src/core/shared/env.js'
import { exec } from '../../../src/tools/exec.js'
import {
  GITLAB_REGISTRY_PASSWORD,
  platformLine,
  REGISTRY_LOGIN_HELP,
} from '../../../src/platform/context.js'
import { Cleanup } from '../../helpers/cleanup.js'
import { fixture } from '../../helpers/run-action.js'
import { run } from '../../helpers/run-process.js'

/** A fixture environment: KEY=value lines; GITHUB_EVENT_PATH is relative to the fixtures. */
async function fixtureEnv(name: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {}
  for (const line of (await readFile(fixture('ci-env', `${name}.env`), 'utf8')).split('\n')) {
    const eq = line.indexOf('=')
    if (line.startsWith('#') || eq < 0) continue
    env[line.slice(0, eq)] = line.slice(eq + 1)
  }
  if (env.GITHUB_EVENT_PATH) env.GITHUB_EVENT_PATH = fixture('ci-env', env.GITHUB_EVENT_PATH)
  return env
}

const saved = { ...process.env }

/**
 * @actions/github reads process.env once, when it is first imported: each case sets the
 * environment, then imports the platform's context module afresh.
 */
async function detect(env: Env, cwd = '/work'): Promise<CiContext> {
  const kept = Object.entries(saved).filter(([name]) => !/^(GITHUB_|CI_|GITLAB_)/.test(name))
  process.env = { ...Object.fromEntries(kept), ...env }
  jest.resetModules()
  const { detectContext } = await import('../../../src/platform/context.js')
  return detectContext(env, cwd, exec)
}

afterEach(() => {
  process.env = { ...saved }
})

describe('the CI context', () => {
  test('an event the environment does not name: said so, not undefined', async () => {
    const github = await detect({ GITHUB_ACTIONS: 'true' })
    expect(github.event).toBe('unknown (GITHUB_EVENT_NAME is not set)')
    const gitlab = await detect({ GITLAB_CI: 'true' })
    expect(gitlab.event).toBe('unknown (CI_PIPELINE_SOURCE is not set)')
  })

  test('GitHub, a push to the default branch master', async () => {
    expect(await detect(await fixtureEnv('github_push_master'))).toEqual({
      platform: 'github',
      workspace: '/home/runner/work/shop/shop',
      event: 'push',
      isPullRequest: false,
      branch: 'master',
      defaultBranch: 'master',
      sha: '8f3e2a41c9d07b5e6a1f2c3d4e5f60718293a4b5',
      runId: '9876543210',
      repository: 'acme/shop',
      repositoryUrl: 'https://github.com/acme/shop',
      ref: 'refs/heads/master',
      workflow: 'acme/shop/.github/workflows/images.yml@refs/heads/master',
      runUrl: 'https://github.com/acme/shop/actions/runs/9876543210/attempts/2',
      builderId: 'https://github.com/acme/shop/.github/workflows/images.yml@refs/heads/master',
      actor: {
        name: 'github-actions[bot]',
        email: '41898282+github-actions[bot]@users.noreply.github.com',
      },
      registryLoginHelp: REGISTRY_LOGIN_HELP.github,
    })
  })

  test.each([
    [
      'a pull request: its head branch, never the merge ref',
      'github_pull_request',
      {
        event: 'pull_request',
        isPullRequest: true,
        branch: 'feature/login',
        defaultBranch: 'master',
        ref: 'refs/pull/42/merge',
        workflow: 'acme/shop/.github/workflows/images.yml@refs/pull/42/merge',
      },
    ],
    [
      'a manual run on GitHub Enterprise Server',
      'github_workflow_dispatch',
      {
        event: 'workflow_dispatch',
        isPullRequest: false,
        branch: 'main',
        defaultBranch: 'main',
        runId: '77',
        repositoryUrl: 'https://github.acme.internal/acme/shop',
        ref: 'refs/heads/main',
        runUrl: 'https://github.acme.internal/acme/shop/actions/runs/77/attempts/1',
        builderId:
          'https://github.acme.internal/acme/shop/.github/workflows/release.yml@refs/heads/main',
      },
    ],
  ])('GitHub, %s', async (_name, fixture, expected) => {
    expect(await detect(await fixtureEnv(fixture))).toMatchObject(expected)
  })

  test('GitHub, a tag: no branch', async () => {
    const context = await detect(await fixtureEnv('github_tag'))
    expect(context.branch).toBeUndefined()
    expect(context).toMatchObject({ event: 'push', isPullRequest: false, defaultBranch: 'master' })
  })

  test('GitHub outside a runner: nothing is invented', async () => {
    const context = await detect({ GITHUB_ACTIONS: 'true' })
    expect(context).toMatchObject({ platform: 'github', workspace: '/work', isPullRequest: false })
    const facts = ['branch', 'sha', 'runId', 'repository', 'repositoryUrl', 'defaultBranch']
    for (const fact of [...facts, 'ref', 'workflow', 'runUrl', 'builderId'])
      expect(context[fact as keyof CiContext]).toBeUndefined()
  })

  test('GitLab, a branch pipeline: the user who started it commits', async () => {
    expect(await detect(await fixtureEnv('gitlab_branch'))).toEqual({
      platform: 'gitlab',
      workspace: '/builds/acme/shop',
      event: 'push',
      isPullRequest: false,
      branch: 'master',
      defaultBranch: 'master',
      sha: '5e6f708192a3b4c5d6e7f8091a2b3c4d1a2b3c4d',
      runId: '123456',
      repository: 'acme/shop',
      repositoryUrl: 'https://gitlab.example.com/acme/shop',
      ref: 'refs/heads/master',
      workflow: '.gitlab-ci.yml',
      runUrl: 'https://gitlab.example.com/acme/shop/-/pipelines/123456',
      builderId: 'https://gitlab.example.com/acme/shop/-/jobs/987654',
      containerRegistry: 'registry.gitlab.example.com',
      actor: { name: 'Ada Lovelace', email: 'ada@example.com' },
      registryLoginHelp: REGISTRY_LOGIN_HELP.gitlab,
      registryPasswordFrom: GITLAB_REGISTRY_PASSWORD,
    })
  })

  test('GitLab, a merge request: its source branch', async () => {
    expect(await detect(await fixtureEnv('gitlab_merge_request'))).toMatchObject({
      event: 'merge_request_event',
      isPullRequest: true,
      branch: 'feature/login',
      ref: 'refs/merge-requests/17/head',
      actor: { name: 'ada', email: 'ada@example.com' },
    })
  })

  test('GitLab, a tag: no branch, no actor without an e-mail', async () => {
    const context = await detect(await fixtureEnv('gitlab_tag'))
    expect(context.branch).toBeUndefined()
    expect(context.actor).toBeUndefined()
    expect(context.isPullRequest).toBe(false)
    expect(context).toMatchObject({ ref: 'refs/tags/v1.4.0', workflow: 'ci/pipeline.yml' })
  })

  test('GitLab, a schedule', async () => {
    expect(await detect(await fixtureEnv('gitlab_schedule'))).toMatchObject({
      event: 'schedule',
      isPullRequest: false,
      branch: 'master',
    })
  })

  test.each<[string, Env, Partial<CiContext>]>([
    [
      'GitHub: a workflow ref, server or run id not as the runner writes them is left out',
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_REPOSITORY: 'acme/shop',
        GITHUB_SERVER_URL: 'https://user:pw@github.example.com',
        GITHUB_REF: 'refs/heads/main branch',
        GITHUB_WORKFLOW_REF: '.github/workflows/images.yml',
        GITHUB_RUN_ID: 'x1',
      },
      {},
    ],
    [
      'GitLab: addresses that are no http(s) page, and a ref with a space, are left out',
      {
        GITLAB_CI: 'true',
        CI_PROJECT_URL: 'javascript:alert(1)',
        CI_JOB_URL: 'https://gitlab.example.com/acme/shop/-/jobs/1?token=x',
        CI_PIPELINE_URL: 'ftp://gitlab.example.com/acme/shop/-/pipelines/1',
        CI_COMMIT_REF_NAME: 'a b',
        CI_CONFIG_PATH: 'a\nb',
      },
      {},
    ],
  ])('%s', async (_name, env, expected) => {
    const context = await detect(env)
    for (const fact of ['ref', 'workflow', 'runUrl', 'builderId'] as const)
      expect({ fact, value: context[fact] }).toEqual({ fact, value: expected[fact] })
    expect(context.repositoryUrl).toBeUndefined()
  })

  describe('a local run asks git', () => {
    const cleanup = new Cleanup()
    afterEach(() => cleanup.run())

    test('in a checkout on a branch: its name and commit', async () => {
      const repo = await cleanup.tempDir('olympe-context-')
      const git = async (...args: string[]): Promise<string> =>
        (await run('git', args, { cwd: repo })).stdout.trim()
      await git('init', '--quiet', '--initial-branch', 'release/2')
      await git(
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@t',
        'commit',
        '--quiet',
        '--allow-empty',
        '-m',
        'x',
      )
      const sha = await git('rev-parse', 'HEAD')
      expect(await detect({}, repo)).toEqual({
        platform: 'local',
        workspace: repo,
        event: 'local',
        isPullRequest: false,
        branch: 'release/2',
        sha,
        registryLoginHelp: REGISTRY_LOGIN_HELP.local,
      })
    })

    test('outside a git repository: both unknown', async () => {
      const repo = await cleanup.tempDir('olympe-context-')
      const context = await detect({}, repo)
      expect(context.branch).toBeUndefined()
      expect(context.sha).toBeUndefined()
    })
  })
})

describe('the platform line: where the step takes itself to run, and why', () => {
  test.each<[string, Env, boolean, string]>([
    [
      'a GitHub step',
      { GITHUB_ACTIONS: 'true' },
      false,
      "Platform: GitHub Actions (GITHUB_ACTIONS is 'true').",
    ],
    [
      'the command line in a GitHub job',
      { GITHUB_ACTIONS: 'true' },
      true,
      "Platform: GitHub Actions, command line (GITHUB_ACTIONS is 'true').",
    ],
    [
      'a GitLab job',
      { GITLAB_CI: 'true' },
      true,
      "Platform: GitLab CI, command line (GITLAB_CI is 'true').",
    ],
    [
      'a job under gitlab-ci-local, which sets GITLAB_CI to false',
      { GITLAB_CI: 'false' },
      true,
      "Platform: local command line (GITLAB_CI is 'false', GITHUB_ACTIONS is not set). GitLab sets GITLAB_CI to 'true' in every job, and gitlab-ci-local to 'false': to run a job there as on GitLab, give it --variable GITLAB_CI=true.",
    ],
    [
      'a person at a terminal',
      {},
      true,
      'Platform: local command line (GITLAB_CI is not set, GITHUB_ACTIONS is not set).',
    ],
  ])('%s', (_name, env, commandLine, line) => {
    expect(platformLine(env, commandLine)).toBe(line)
  })
})
