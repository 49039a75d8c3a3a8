/**
 * The one description of an action's public contract. action.yml files, README tables, GitLab
 * `spec: inputs` and the CLI's flags and help are all generated from it.
 */
export type InputType = 'string' | 'boolean' | 'number' | 'choice'

export interface InputSpec {
  description: string
  /** As in action.yml: a string; '' or absent means "no default". */
  default?: string
  required?: boolean
  secret?: boolean
  type?: InputType
  options?: readonly string[]
  /** Multi-line inputs (lists, YAML) read better as a block in examples. */
  multiline?: boolean
}

export interface OutputSpec {
  description: string
}

export interface ActionDefinition<I extends string = string, O extends string = string> {
  /** The folder, bundle and CLI command name. */
  id: 'deploy' | 'build-images' | 'snapshot'
  name: string
  description: string
  inputs: Record<I, InputSpec>
  outputs: Record<O, OutputSpec>
}

export type RawInputs<I extends string = string> = Record<I, string>

/** Fills in definition defaults for empty inputs, as the GitHub runner does from action.yml. */
export function withDefaults<I extends string>(
  definition: ActionDefinition<I>,
  given: Partial<Record<I, string | undefined>>,
): RawInputs<I> {
  const raw = {} as RawInputs<I>
  for (const name of inputNames(definition)) {
    const value = given[name]?.trim() ?? ''
    raw[name] = value === '' ? (definition.inputs[name].default ?? '') : value
  }
  return raw
}

export function inputNames<I extends string>(definition: ActionDefinition<I>): I[] {
  return Object.keys(definition.inputs) as I[]
}

export function secretInputs<I extends string>(definition: ActionDefinition<I>): I[] {
  return inputNames(definition).filter((name) => definition.inputs[name].secret === true)
}

/**
 * The environment variables that carry an input. The GitHub runner keeps hyphens
 * (INPUT_FRONTEND-IMAGE); shells and GitLab variables cannot hold them, so GitLab jobs and people
 * use the underscored form (INPUT_FRONTEND_IMAGE), which is also the one to write.
 */
export function inputEnvNames(name: string): [hyphenated: string, underscored: string] {
  const upper = `INPUT_${name.toUpperCase()}`
  return [upper, upper.replace(/-/g, '_')]
}

/** The variable a GitLab job or a person sets for an input: INPUT_<NAME_WITH_UNDERSCORES>. */
export function inputEnvName(name: string): string {
  return inputEnvNames(name)[1]
}

/** An output's key in the dotenv report (GitLab `artifacts:reports:dotenv`): OLYMPE_<ACTION>_<OUTPUT>. */
export function dotenvKey(actionId: string, output: string): string {
  return `OLYMPE_${actionId}_${output}`.toUpperCase().replace(/[^A-Z0-9_]/g, '_')
}

/** The inputs as the step received them, for its log: secrets masked, empty ones left out. */
export function describeInputs<I extends string>(
  definition: ActionDefinition<I>,
  raw: RawInputs<I>,
): string {
  const lines = inputNames(definition)
    .filter((name) => raw[name] !== '')
    .map((name) => {
      const value = raw[name]
      const shown = definition.inputs[name].secret
        ? '***'
        : value.includes('\n')
          ? JSON.stringify(value)
          : value
      return `${name}: ${shown}`
    })
  return lines.length > 0 ? lines.join('\n') : '(no inputs given)'
}
