// The job bodies of the GitLab templates: each job runs the same committed bundle as the GitHub
// action, fetched by version with npx, its inputs passed as INPUT_<NAME_WITH_UNDERSCORES>.
import { dotenvKey, inputEnvName, type ActionDefinition } from '../../src/core/definition.js'
import { secretVariable } from './gitlab-inputs.js'

export const PACKAGE_NAME = 'olympe-deploy-actions'

export type Rule = {
  if?: string
  when?: 'never' | 'manual' | 'on_success'
  allow_failure?: boolean
}
export type Job = Record<string, unknown>

export const input = (name: string): string => `$[[ inputs.${name} ]]`
export const inputEnv = inputEnvName

// Spec 1.3 rule 7: images and deploys come from the default branch only, never from a merge
// request; a scheduled pipeline is for the snapshot and must not redeploy as a side effect.
const MERGE_REQUESTS: Rule = { if: '$CI_PIPELINE_SOURCE == "merge_request_event"', when: 'never' }
const SCHEDULES: Rule = { if: '$CI_PIPELINE_SOURCE == "schedule"', when: 'never' }
const DEFAULT_BRANCH = '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH'

export const DEFAULT_BRANCH_RULES: Rule[] = [MERGE_REQUESTS, SCHEDULES, { if: DEFAULT_BRANCH }]
export const SCHEDULE_RULES: Rule[] = [{ if: '$CI_PIPELINE_SOURCE == "schedule"' }]

/**
 * Runs on its own when the switch is on; when it is off, a manual job that blocks nothing
 * (spec 1.3 rule 7). Default branch only, as the other image jobs.
 */
export function automaticOrManualRules(booleanInput: string): Rule[] {
  return [
    MERGE_REQUESTS,
    SCHEDULES,
    { if: `"${input(booleanInput)}" == "true" && ${DEFAULT_BRANCH}` },
    { if: DEFAULT_BRANCH, when: 'manual', allow_failure: true },
  ]
}

export interface ActionCall {
  definition: ActionDefinition
  dotenv: string
  /** Inputs this job sets itself instead of taking them from a template input. */
  fixed?: Record<string, string>
  /** Shell lines before and after the action (project build, dotenv clean-up). */
  before?: string[]
  after?: string[]
}

/**
 * Variables and script of a job that runs one action. String and number inputs are job
 * variables; boolean inputs are exported in the script, because GitLab keeps an input's type
 * when it is a whole YAML value and rejects a boolean variable. Secrets come from CI/CD variables.
 */
export function actionJob(call: ActionCall): Pick<Job, 'variables' | 'script'> {
  const variables: Record<string, string> = { OLYMPE_NPM_REGISTRY: input('npm-registry') }
  const exports: string[] = []
  for (const [name, spec] of Object.entries(call.definition.inputs)) {
    const fixed = call.fixed?.[name]
    if (fixed !== undefined && spec.type === 'boolean') exports.push(`${inputEnv(name)}=${fixed}`)
    else if (fixed !== undefined) variables[inputEnv(name)] = fixed
    else if (spec.secret) variables[inputEnv(name)] = `$${secretVariable(name)}`
    else if (spec.type === 'boolean') exports.push(`${inputEnv(name)}=${input(name)}`)
    else variables[inputEnv(name)] = input(name)
  }
  const script = [
    // An empty npm_config_registry would hide the runner's own npm configuration.
    '[ -z "$OLYMPE_NPM_REGISTRY" ] || export npm_config_registry="$OLYMPE_NPM_REGISTRY"',
    ...(exports.length > 0 ? [`export ${exports.join(' ')}`] : []),
    ...(call.before ?? []),
    `npx --yes ${PACKAGE_NAME}@${input('version')} ${call.definition.id} --dotenv ${call.dotenv}`,
    ...(call.after ?? []),
  ]
  return { variables, script }
}

export function dotenvReport(file: string): Job {
  return { reports: { dotenv: file } }
}

/**
 * Keeps (or drops) the dotenv lines of one output group, e.g. OLYMPE_BUILD_IMAGES_CODEASDATA_*:
 * two jobs that hand the same names to one later job must not both write them, since GitLab
 * sets no order between their dotenv reports.
 */
export function filterDotenvLines(
  file: string,
  actionId: string,
  outputPrefix: string,
  mode: 'keep' | 'drop',
): string {
  return `sed -i '/^${dotenvKey(actionId, outputPrefix)}/${mode === 'keep' ? '!' : ''}d' ${file}`
}

/** Docker images have no Node.js: add it where the image can (Alpine), say so otherwise. */
export const ENSURE_NODE =
  'command -v npx >/dev/null 2>&1 || apk add --no-cache nodejs npm || { echo "The job image needs Node.js 20+ with npm (or apk to install it)." >&2; exit 1; }'

/** A collapsible GitLab log section around one shell command. */
export function section(id: string, title: string, command: string): string[] {
  return [
    `printf '\\e[0Ksection_start:%s:${id}\\r\\e[0K${title}\\n' "$(date +%s)"`,
    command,
    `printf '\\e[0Ksection_end:%s:${id}\\r\\e[0K\\n' "$(date +%s)"`,
  ]
}
