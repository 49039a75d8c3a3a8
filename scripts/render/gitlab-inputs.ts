// `spec: inputs` for the GitLab templates, derived from the same definitions as the action.yml
// files: same names, GitLab types, options and defaults. Secrets never become inputs: an input's
// value is part of the pipeline configuration, which anyone with read access can see.
import type { ActionDefinition, InputSpec } from '../../src/core/definition.js'
import { dotenvKey } from '../../src/core/definition.js'

export interface GitlabInput {
  description: string
  type?: 'boolean' | 'number' | 'array'
  default?: string | number | boolean | readonly unknown[]
  options?: string[]
  regex?: string
}

export type GitlabInputs = Record<string, GitlabInput>

/** The CI/CD variable each secret comes from; any other secret `foo-bar` comes from FOO_BAR. */
const SECRET_VARIABLES: Record<string, string> = { 'registry-password': 'CI_REGISTRY_PASSWORD' }

export function secretVariable(input: string): string {
  return SECRET_VARIABLES[input] ?? input.toUpperCase().replace(/-/g, '_')
}

/** Defaults that only GitLab can give: its predefined variables, expanded when the job runs. */
const GITLAB_DEFAULTS: Partial<Record<ActionDefinition['id'], Record<string, string>>> = {
  'build-images': { registry: '$CI_REGISTRY', 'registry-username': '$CI_REGISTRY_USER' },
}

/**
 * Deploy's image inputs default to what build-images wrote to its dotenv report (spec 4 rule 3):
 * the variable reaches the deploy job and GitLab expands it there.
 */
export const IMAGE_HANDOVER: Record<string, string> = {
  'frontend-image': 'frontend-image',
  'backend-images': 'backend-image',
  'codeasdata-image': 'codeasdata-image',
}

export function handoverDefaults(buildImages: ActionDefinition): Record<string, string> {
  const defaults: Record<string, string> = {}
  for (const [input, output] of Object.entries(IMAGE_HANDOVER)) {
    if (Object.hasOwn(buildImages.outputs, output))
      defaults[input] = `$${dotenvKey(buildImages.id, output)}`
  }
  return defaults
}

/** The GitLab form of one definition input (a secret has none). */
export function gitlabInput(spec: InputSpec, gitlabDefault?: string): GitlabInput {
  const value = gitlabDefault ?? spec.default ?? ''
  const description = spec.description
  if (spec.type === 'boolean') return { description, type: 'boolean', default: value === 'true' }
  // A number input without a default stays a string: GitLab has no empty number.
  if (spec.type === 'number' && value !== '')
    return { description, type: 'number', default: Number(value) }
  const input: GitlabInput = { description }
  // An input without a default is mandatory on GitLab, as a required one should be.
  if (!(spec.required && value === '')) input.default = value
  // '' stands for "not given" and must be allowed: GitLab checks the default against the options.
  if (spec.options) input.options = value === '' ? ['', ...spec.options] : [...spec.options]
  return input
}

export interface InputSelection {
  /** Inputs the template sets itself (the code-as-data switch of a job, for instance). */
  omit?: readonly string[]
  defaults?: Record<string, string>
}

/** Every non-secret input of a definition, in definition order. */
export function definitionInputs(
  definition: ActionDefinition,
  selection: InputSelection = {},
): GitlabInputs {
  const defaults = { ...GITLAB_DEFAULTS[definition.id], ...selection.defaults }
  const inputs: GitlabInputs = {}
  for (const [name, spec] of Object.entries(definition.inputs)) {
    if (spec.secret || selection.omit?.includes(name)) continue
    inputs[name] = gitlabInput(spec, defaults[name])
  }
  return inputs
}

/** Joins input sets; a name defined twice must mean the same thing, or the generator stops. */
export function mergeInputs(...sets: GitlabInputs[]): GitlabInputs {
  const merged: GitlabInputs = {}
  for (const set of sets) {
    for (const [name, input] of Object.entries(set)) {
      const known = merged[name]
      if (known && JSON.stringify(known) !== JSON.stringify(input))
        throw new Error(`The GitLab input '${name}' is defined twice with different meanings.`)
      merged[name] = input
    }
  }
  return merged
}

// The npm package version and dist-tag shape: it is spliced into the job's command line.
export const VERSION_PATTERN = '^[0-9A-Za-z][0-9A-Za-z.+-]*$'

/** The inputs every job template has besides the action's own. */
export function runnerInputs(version: string, image: string): GitlabInputs {
  return {
    version: {
      description:
        'Version of the `olympe-deploy-actions` npm package the job runs (`npx olympe-deploy-actions@<version>`).',
      default: version,
      regex: VERSION_PATTERN,
    },
    'npm-registry': {
      description:
        'npm registry or mirror to fetch the package from (on-premise instances). Default: the runner’s npm configuration.',
      default: '',
    },
    image: {
      description: 'Container image of the job: it needs Node.js 20 or newer with npm.',
      default: image,
    },
  }
}

export function jobInputs(jobName: string, stage: string): GitlabInputs {
  return {
    'job-name': { description: 'Name of the job.', default: jobName },
    stage: { description: 'Stage of the job; your pipeline must define it.', default: stage },
  }
}
