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
  /** The repository's web page: `https://github.com/acme/shop`, GitLab's CI_PROJECT_URL. */
  repositoryUrl?: string
  /**
   * The full git ref the run is for: `refs/heads/main`, `refs/tags/v1.2.0`, `refs/pull/7/merge`
   * (GitHub's GITHUB_REF; on GitLab, made from the tag, merge request or branch of the pipeline).
   */
  ref?: string
  /**
   * The definition that runs: GitHub's workflow at its ref (GITHUB_WORKFLOW_REF,
   * `acme/shop/.github/workflows/build.yml@refs/heads/main`), GitLab's pipeline configuration
   * (CI_CONFIG_PATH, `.gitlab-ci.yml`).
   */
  workflow?: string
  /** This run's web page: GitHub's run at its attempt, GitLab's pipeline (CI_PIPELINE_URL). */
  runUrl?: string
  /**
   * Who builds, as a provenance names it (SLSA's `builder.id`): GitHub's workflow file at its ref,
   * as a URL; GitLab's job (CI_JOB_URL: the project and the job).
   */
  builderId?: string
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
