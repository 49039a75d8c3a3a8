import { describe, expect, test } from '@jest/globals'
import type { CiContext } from '../../../../../src/core/shared/context.js'
import { branchMatches, decideGate } from '../../../../../src/core/build-images/plan/gate.js'

const push: CiContext = {
  platform: 'github',
  workspace: '/ws',
  event: 'push',
  isPullRequest: false,
  branch: 'main',
  defaultBranch: 'main',
  registryLoginHelp: 'Check the login.',
}

describe('branch gate', () => {
  test.each<[string, Partial<CiContext>, string[] | undefined, string]>([
    ['the default branch', {}, undefined, 'main'],
    ['another default branch', { branch: 'trunk', defaultBranch: 'trunk' }, undefined, 'trunk'],
    ['unknown default branch falls back to main', { defaultBranch: undefined }, undefined, 'main'],
    ['a configured branch', { branch: 'develop' }, ['main', 'develop'], 'develop'],
    ['a configured pattern', { branch: 'release/2.1' }, ['release/*'], 'release/2.1'],
    ['a manual run on main', { event: 'workflow_dispatch' }, undefined, 'main'],
  ])('builds on %s', (_name, context, branches, branch) => {
    expect(decideGate({ ...push, ...context }, branches)).toMatchObject({ build: true, branch })
  })

  test.each<[string, Partial<CiContext>, string[] | undefined, string]>([
    [
      'a pull request, even from main',
      { event: 'pull_request', isPullRequest: true },
      undefined,
      "pull or merge request (event 'pull_request')",
    ],
    [
      'a GitLab merge request',
      { platform: 'gitlab', event: 'merge_request_event', isPullRequest: true, branch: 'feat' },
      ['*'],
      'pull or merge request',
    ],
    [
      'another branch',
      { branch: 'feature/x' },
      undefined,
      "branch 'feature/x' is not one of the branches to build ('main')",
    ],
    [
      'a default branch other than main when it is unknown',
      { branch: 'master', defaultBranch: undefined },
      undefined,
      "('main')",
    ],
    ['a tag push', { branch: undefined, event: 'push' }, undefined, 'not on a branch'],
    [
      'a local run outside git',
      { platform: 'local', event: 'local', branch: undefined },
      undefined,
      'git could not name the branch',
    ],
    ['a branch the pattern does not cover', { branch: 'release' }, ['release/*'], "'release/*'"],
  ])('skips %s', (_name, context, branches, reason) => {
    const decision = decideGate({ ...push, ...context }, branches)
    expect(decision.build).toBe(false)
    expect(!decision.build && decision.reason).toContain(reason)
  })

  // Each pattern, with the branches it matches (true) or not (false).
  const matches: Record<string, Record<string, boolean>> = {
    main: { main: true, main2: false },
    'release/*': { 'release/1.2': true, 'release/a/b': true },
    '*': { 'anything/at/all': true },
    'v1.*': { v1x: false, 'v1.2': true },
    'feat-(x)': { 'feat-(x)': true },
  }
  test.each(
    Object.entries(matches).flatMap(([pattern, branches]) =>
      Object.entries(branches).map(([branch, expected]) => [pattern, branch, expected] as const),
    ),
  )('pattern %j matches %j: %s', (pattern, branch, expected) => {
    expect(branchMatches(pattern, branch)).toBe(expected)
  })
})
