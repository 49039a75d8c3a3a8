import { stringify } from 'yaml'
import type { ActionDefinition } from '../../src/core/definition.js'
import { secretVariable, type GitlabInputs } from './gitlab-inputs.js'

/** One file under gitlab/: its `spec: inputs`, its jobs, and what it reads from CI/CD variables. */
export interface Template {
  /** File name under gitlab/, without `.yml`; also the catalog component's name. */
  name: string
  summary: string
  inputs: GitlabInputs
  jobs: Record<string, Record<string, unknown>>
  /** CI/CD variables the jobs read (secrets above all), with what each is for. */
  variables: Record<string, string>
}

export function renderTemplate(template: Template): string {
  const header = [
    `# Olympe ${template.name}: ${template.summary}`,
    '# Generated from src/core/*/definition.ts by `npm run build`: edit those, not this file.',
    '# Usage, inputs and variables: gitlab/README.md.',
  ]
  const spec = stringify({ spec: { inputs: template.inputs } }, { lineWidth: 0 })
  const jobs = stringify(template.jobs, { lineWidth: 0, aliasDuplicateObjects: false })
  return `${header.join('\n')}\n${spec}---\n${jobs}`
}

/** Secret inputs of a definition, by the CI/CD variable each comes from. */
export function secretVariables(definition: ActionDefinition): Record<string, string> {
  const variables: Record<string, string> = {}
  for (const [name, spec] of Object.entries(definition.inputs)) {
    if (spec.secret) variables[secretVariable(name)] = spec.description
  }
  return variables
}
