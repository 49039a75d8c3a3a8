export type Platform = 'github' | 'gitlab' | 'local'

/** The facts about the CI run that actions need, read once from the environment. */
export interface CiContext {
  platform: Platform
  workspace: string
  /** push, pull_request, workflow_dispatch, schedule… on GitHub; CI_PIPELINE_SOURCE on GitLab. */
  event: string
  isPullRequest: boolean
  branch?: string
  defaultBranch?: string
  sha?: string
  runId?: string
  /** owner/name on GitHub, group/project on GitLab. */
  repository?: string
  repositoryUrl?: string
  /** The CI's own container registry, where the project's images live: CI_REGISTRY on GitLab. */
  containerRegistry?: string
  actor?: { name: string; email: string }
  /**
   * What to check when a registry refuses the login, in this platform's words: where the user
   * name and password come from there. The platform says it; the core does not guess.
   */
  registryLoginHelp: string
  /**
   * Where a pipeline's templates take `registry-password` from, and how to set it, for a
   * `registry-username` given without it (GitLab: its CI/CD variables); unset where the step's
   * own inputs are all there is.
   */
  registryPasswordFrom?: string
}
