// The GitLab templates, gitlab/*.yml, are written by hand. `npm run build` rewrites only the lines
// between `# BEGIN GENERATED: <region>` and the next `# END GENERATED` at the same indentation:
//   <action> inputs [without <input>…]           the action's inputs, as `spec: inputs` entries
//   <action> variables [with <input>=<value>…]   its INPUT_<NAME> job variables
//   <action> exports [with <input>=<value>…]     the script line that exports its boolean inputs
//   package.json version                         the `default:` of the `version` input
//   olympe-deploy command                        the script line that sets $OLYMPE_DEPLOY: the
//                                                image's own olympe-deploy when it is the
//                                                version asked, else npx (each job that runs one)
//   not-live exit code                           `allow_failure:` with the command line's exit
//                                                code for a deployment not shown live
// Variables and exports may name several actions, `build-images+deploy`, for a job that runs them
// all: one variable per input name, each `with` item set for every action that has that input,
// and an error if two actions would need different values for the same variable (one shell, one
// environment).
// Secrets are never inputs, whose values anyone who can read the pipeline configuration sees: the
// jobs take them from CI/CD variables.
import { parseAllDocuments, stringify } from 'yaml'
import { ACTION_DEFINITIONS, ACTION_IDS } from '../../src/core/action-list.js'
import { dotenvKey, inputEnvName, isWholeSecret } from '../../src/core/definition.js'
import type { ActionDefinition, InputDocs } from '../../src/core/definition.js'
import { EXIT_CODES } from '../../src/core/shared/exit-codes.js'
import { tableCell } from '../../src/core/shared/markdown.js'

/** gitlab/<name>.yml: a component for each action, and the whole pipeline, which runs them all. */
export const GITLAB_TEMPLATES = [...ACTION_IDS, 'pipeline']

export interface GitlabInput {
  description: string
  type?: 'boolean' | 'number' | 'array'
  default?: string | number | boolean | readonly unknown[]
  options?: string[]
}

/** The CI/CD variable each secret comes from; any other secret `foo-bar` comes from FOO_BAR. */
const SECRET_VARIABLES: Record<string, string> = { 'registry-password': 'CI_REGISTRY_PASSWORD' }
const secretVariable = (name: string): string =>
  SECRET_VARIABLES[name] ?? name.toUpperCase().replace(/-/g, '_')

function action(id: string): ActionDefinition {
  const found = ACTION_DEFINITIONS.find((definition) => definition.id === id)
  if (!found) throw new Error(`There is no action '${id}' in src/core/action-list.ts.`)
  return found
}

// Defaults only GitLab can give, expanded when the job runs: its predefined variables, and the
// references the build-images job wrote to its dotenv report.
function fromImageJob(output: string): string {
  if (!Object.hasOwn(action('build-images').outputs, output))
    throw new Error(`build-images has no output '${output}' any more.`)
  return `$${dotenvKey('build-images', output)}`
}
const GITLAB_DEFAULTS: Record<string, Record<string, string> | undefined> = {
  'build-images': { registry: '$CI_REGISTRY', 'registry-username': '$CI_REGISTRY_USER' },
  deploy: {
    // The image check logs in as build-images pushes.
    registry: '$CI_REGISTRY',
    'registry-username': '$CI_REGISTRY_USER',
    'frontend-image': fromImageJob('frontend-image'),
    'backend-images': fromImageJob('backend-image'),
    'codeasdata-image': fromImageJob('codeasdata-image'),
  },
}

/** The GitLab form of one definition input (a secret has none). */
export function gitlabInput(spec: InputDocs, gitlabDefault?: string): GitlabInput {
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

/** package.json's name, and the command its `bin` installs. */
const PACKAGE_NAME = 'olympe-deploy-actions'
const COMMAND = 'olympe-deploy'

/**
 * The script line, and the comment before it, that sets $OLYMPE_DEPLOY to the command a job runs:
 * the image's own `olympe-deploy` when it is the version the template asks for (the job image,
 * which needs no npm registry), else that version through npx.
 */
export function commandLines(): string[] {
  const version = '$[[ inputs.version ]]'
  const line =
    `OLYMPE_DEPLOY="npx --yes ${PACKAGE_NAME}@${version}"; ` +
    `[ "$(${COMMAND} --version 2>/dev/null)" != ${version} ] || OLYMPE_DEPLOY=${COMMAND}; ` +
    `echo "${COMMAND} ${version} runs as: $OLYMPE_DEPLOY"`
  return [
    `# This release's ${COMMAND}: the image's own when it holds it (the job image), else npx fetches it.`,
    `- '${line}'`,
  ]
}

const yamlLines = (value: object): string[] =>
  Object.keys(value).length === 0 ? [] : stringify(value, { lineWidth: 0 }).trimEnd().split('\n')

/**
 * The lines of one region. A job passes each input as INPUT_<NAME>: its `with` value, else the
 * secret's CI/CD variable, else the template input of that name, else its GitLab default. Booleans
 * are exported in the script: GitLab keeps an input's type when it is a whole YAML value and
 * rejects a boolean variable. `declared` (the template's inputs) is known once its spec is filled.
 */
function regionLines(key: string, version: string, declared?: Set<string>): string[] | undefined {
  if (key === 'package.json version') return yamlLines({ default: version })
  if (key === 'olympe-deploy command') return commandLines()
  if (key === 'not-live exit code')
    return yamlLines({ allow_failure: { exit_codes: [EXIT_CODES.notLive] } })
  const [ids = '', kind = '', word, ...items] = key.split(' ')
  const expected = kind === 'inputs' ? 'without' : 'with'
  if (!['inputs', 'variables', 'exports'].includes(kind) || (word ?? expected) !== expected)
    throw new Error(
      `Unknown generated region '${key}': expected '<action> inputs [without <input>…]', '<action>[+<action>…] variables|exports [with <input>=<value>…]', 'package.json version', 'olympe-deploy command' or 'not-live exit code'.`,
    )
  const members = ids.split('+').map((id) => {
    const { inputs } = action(id)
    const ofRegion = (spec: InputDocs): boolean =>
      kind === 'inputs' ? !isWholeSecret(spec) : (spec.type === 'boolean') === (kind === 'exports')
    return { id, own: Object.entries(inputs).filter(([, spec]) => ofRegion(spec)) }
  })
  if (kind === 'inputs' && members.length > 1)
    throw new Error(`Region '${key}': the spec inputs of one action only.`)
  const names = [...new Set(members.flatMap(({ own }) => own.map(([name]) => name)))]
  const given = new Map(items.map((item) => [item.replace(/=.*/, ''), item.replace(/^[^=]*=/, '')]))
  const stray = [...given.keys()].find((name) => !names.includes(name))
  if (stray !== undefined)
    throw new Error(
      `Region '${key}': '${stray}' is none of the ${ids.replace(/\+/g, ' or ')} inputs it holds (${names.join(', ')}).`,
    )
  if (kind === 'inputs') {
    const { id, own } = members[0] ?? { id: '', own: [] }
    const gitlabDefaults = GITLAB_DEFAULTS[id] ?? {}
    const kept = own.filter(([name]) => !given.has(name))
    const entries = kept.map(
      ([name, spec]) => [name, gitlabInput(spec, gitlabDefaults[name])] as const,
    )
    return yamlLines(Object.fromEntries(entries))
  }
  if (!declared) return undefined
  const passed = (id: string, name: string, spec: InputDocs): string => {
    const fromTemplate = declared.has(name) ? `$[[ inputs.${name} ]]` : GITLAB_DEFAULTS[id]?.[name]
    const value =
      given.get(name) ?? (isWholeSecret(spec) ? `$${secretVariable(name)}` : fromTemplate)
    if (value !== undefined) return value
    throw new Error(
      `Region '${key}' has no value for '${name}': declare that input in spec: inputs, or add '${name}=<value>' to the region.`,
    )
  }
  const pairs = jobVariables(
    key,
    members.map(({ id, own }) => ({
      id,
      pairs: own.map(([name, spec]) => [inputEnvName(name), passed(id, name, spec)] as const),
    })),
  )
  if (kind === 'variables') return yamlLines(Object.fromEntries(pairs))
  return pairs.length === 0 ? [] : yamlLines([`export ${pairs.map((p) => p.join('=')).join(' ')}`])
}

/**
 * The variables of a job that runs the given actions in one environment: each variable once, in
 * the order the actions name them; two different values for one variable are an error.
 */
export function jobVariables(
  key: string,
  actions: Array<{ id: string; pairs: ReadonlyArray<readonly [string, string]> }>,
): Array<[string, string]> {
  const chosen = new Map<string, { id: string; value: string }>()
  for (const { id, pairs } of actions) {
    for (const [variable, value] of pairs) {
      const earlier = chosen.get(variable)
      if (!earlier) chosen.set(variable, { id, value })
      else if (earlier.value !== value)
        throw new Error(
          `Region '${key}': ${earlier.id} needs ${variable}=${earlier.value} and ${id} needs ${variable}=${value}, in one job: give both actions the same value, or run them in jobs of their own.`,
        )
    }
  }
  return [...chosen].map(([variable, { value }]) => [variable, value])
}

// A BEGIN line without its END matches alone, so that it is reported, never skipped.
const REGION =
  /^( *)# BEGIN GENERATED: (.+)\n(?:(?:(?! *# BEGIN GENERATED).*\n)*?\1# END GENERATED\n)?/gm

function fillRegions(text: string, fill: (key: string) => string[] | undefined): string {
  return text.replace(REGION, (region, indent: string, key: string) => {
    if (!region.endsWith('# END GENERATED\n'))
      throw new Error(`'# BEGIN GENERATED: ${key}' has no '# END GENERATED' at its indentation.`)
    const lines = fill(key)?.map((line) => `${indent}${line}\n`)
    return lines
      ? `${indent}# BEGIN GENERATED: ${key}\n${lines.join('')}${indent}# END GENERATED\n`
      : region
  })
}

/** gitlab/<name>.yml as a person wrote it, with its regions filled from the definitions. */
export function renderTemplate(path: string, source: string, version: string): string {
  try {
    const withSpec = fillRegions(source, (key) => regionLines(key, version))
    const declared = new Set(Object.keys(specInputs(withSpec)))
    const template = fillRegions(withSpec, (key) => regionLines(key, version, declared))
    specInputs(template)
    return template
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`, { cause: error })
  }
}

function specInputs(template: string): Record<string, GitlabInput> {
  const documents = parseAllDocuments(template)
  const [problem] = documents.flatMap((document) => document.errors)
  if (problem) throw problem
  const header = documents[0]?.toJS() as { spec?: { inputs?: Record<string, GitlabInput> } } | null
  return header?.spec?.inputs ?? {}
}

const shown = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text === '' ? '`""`' : `\`${text}\``
}

/** The inputs and CI/CD variables tables of one template, for gitlab/README.md. */
export function templateTables(template: string): string {
  const inputs = Object.entries(specInputs(template)).map(([name, input]) => {
    const given = input.default === undefined ? '(mandatory)' : shown(input.default)
    const options = input.options ? ` One of: ${input.options.map(shown).join(', ')}.` : ''
    return `| \`${name}\` | ${input.type ?? 'string'} | ${given} | ${tableCell(input.description)}${options} |`
  })
  const regions = template.match(/(?<=# BEGIN GENERATED: )[\w+-]+(?= variables)/g) ?? []
  const ids = new Set(regions.flatMap((region) => region.split('+')))
  // One row per variable: the pipeline passes CI_REGISTRY_PASSWORD to build-images and deploy.
  const uses = new Map<string, Array<{ id: string; description: string }>>()
  for (const id of ids) {
    for (const [name, spec] of Object.entries(action(id).inputs)) {
      if (!isWholeSecret(spec)) continue
      const variable = secretVariable(name)
      uses.set(variable, [...(uses.get(variable) ?? []), { id, description: spec.description }])
    }
  }
  const secrets = [...uses].map(([variable, list]) => {
    const text =
      list.length === 1
        ? (list[0]?.description ?? '')
        : list.map((use) => `${use.id}: ${use.description}`).join(' ')
    return `| \`${variable}\` | ${tableCell(text)} |`
  })
  const inputsTable = ['| Input | Type | Default | Description |', '|---|---|---|---|', ...inputs]
  const secretsTable = ['| CI/CD variable | What for |', '|---|---|', ...secrets]
  return [...inputsTable, '', ...secretsTable].join('\n')
}
