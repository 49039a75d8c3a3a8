/**
 * The facts about the run that building images needs. The platform's CiContext has this shape;
 * the core names only what it uses so that it never depends on the platform layer.
 */
export interface BuildContext {
  platform: 'github' | 'gitlab' | 'local'
  workspace: string
  event: string
  isPullRequest: boolean
  branch?: string
  defaultBranch?: string
  sha?: string
  runId?: string
  repository?: string
  repositoryUrl?: string
}
