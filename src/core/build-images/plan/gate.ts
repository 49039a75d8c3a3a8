import type { CiContext } from '../../shared/context.js'
import { escapeRegExp } from '../../shared/regexp.js'

/** Used when the default branch is unknown: locally, or on a runner that does not say. */
export const FALLBACK_DEFAULT_BRANCH = 'main'

export type GateDecision =
  { build: true; branch: string; branches: string[] } | { build: false; reason: string }

/**
 * As in Olympe's documented CI examples, images are built for the configured branches only, and never for pull or
 * merge requests, whose code is not yet accepted.
 */
export function decideGate(context: CiContext, configured?: readonly string[]): GateDecision {
  const branches = configured?.length
    ? [...configured]
    : [context.defaultBranch ?? FALLBACK_DEFAULT_BRANCH]
  const wanted = branches.map((branch) => `'${branch}'`).join(', ')
  if (context.isPullRequest) {
    return {
      build: false,
      reason: `this run is for a pull or merge request (event '${context.event}'), and images are built only for the branches ${wanted}, once the change is merged`,
    }
  }
  const branch = context.branch
  if (branch === undefined) {
    const where =
      context.platform === 'local'
        ? 'git could not name the branch (run it in a git checkout, on a branch)'
        : `this run is not on a branch (event '${context.event}', for example a tag)`
    return {
      build: false,
      reason: `${where}, and images are built only on the branches ${wanted}`,
    }
  }
  if (!branches.some((pattern) => branchMatches(pattern, branch))) {
    return {
      build: false,
      reason: `branch '${branch}' is not one of the branches to build (${wanted}); set 'branches' to build on it`,
    }
  }
  return { build: true, branch, branches }
}

/** `release/*` style patterns: `*` matches any characters, `/` included; the rest is literal. */
export function branchMatches(pattern: string, branch: string): boolean {
  const source = pattern.split('*').map(escapeRegExp).join('.*')
  return new RegExp(`^${source}$`).test(branch)
}
