import type * as v from 'valibot'

/**
 * The one description of an action's public contract. action.yml files, the guides' tables, GitLab
 * `spec: inputs`, the CLI's flags and help, and the typed inputs object the core receives are
 * all derived from it: each input is named once, with its parser.
 */
export type InputType = 'string' | 'boolean' | 'number' | 'choice'

/** What a parser may need besides the text: the YAML parser, loaded only when an input needs it. */
export interface ParseTools {
  parseYaml: (text: string) => unknown
}

/** Turns an input's text (defaults filled in) into its value, or one problem as the issue. */
export type InputSchema<T> = v.GenericSchema<string, T>
/** A schema, or one made with the tools (see ParseTools). */
export type InputParser<T> = InputSchema<T> | ((tools: ParseTools) => InputSchema<T>)

/**
 * What of an input is secret, read from the same parse as its value. The platform masks all of
 * it, in every form (see leakForms), before the first line of the log; messages and the Inputs
 * group show the text through `shown`.
 */
export interface SecretParts<T = unknown> {
  /** Said in the warning for a command-line flag that holds one: "holds <said>". */
  said: string
  /** The secret parts of the value the parser returned; `inputs` are the action's other texts. */
  parts(value: T, raw: string, inputs: Readonly<Record<string, string>>): readonly string[]
  /** What looks secret in a text the parser refused: never less than `parts` would find. */
  unparsed(raw: string, inputs: Readonly<Record<string, string>>): readonly string[]
  /** The text as messages and the Inputs group show it, its secret parts replaced by `***`. */
  shown(raw: string): string
  /** The whole text is secret too: never shown, and on GitLab a CI/CD variable, not an input. */
  whole?: boolean
}

export interface InputSpec<T = unknown> {
  description: string
  /** As in action.yml: a string; '' or absent means "no default". */
  default?: string
  required?: boolean
  /**
   * What of the input is secret, beside `parse`, so that both come from one reading of the text:
   * - `secret: true`: the whole text (a token, a password).
   * - `secret: urlCredentials` (src/core/shared/url-credentials.ts): for any input that may carry
   *   `user:password@` in a URL (one address, or a list): its credentials, found by the rule
   *   `parseCredentialUrl` parses with, which the input's parser calls. Nothing else to write:
   *   the credentials are masked even when the parse fails, never quoted, and a command-line
   *   flag that holds them is warned about.
   * - `secret: secretParts({...})`: the parts of the parsed value that are secret (a value of
   *   `build-secrets`, the Basic form of a login), and what to mask when the parse fails.
   */
  secret?: true | SecretParts<T>
  type?: InputType
  options?: readonly string[]
  /** Multi-line inputs (lists, YAML) read better as a block in examples. */
  multiline?: boolean
  parse: InputParser<T>
}

/** What the documents (action.yml, GitLab `spec: inputs`, the guides) say of an input. */
export type InputDocs = Omit<InputSpec, 'parse'>

export interface OutputSpec {
  description: string
  /**
   * A list, one item per line. Where a value must fit on one line (GitLab's dotenv report), its
   * items are joined with commas, as list inputs read them.
   */
  list?: true
}

export interface ActionDefinition<I extends string = string, O extends string = string> {
  /**
   * The action's folder (actions/<id>, dist/<id>, src/core/<id>), its command and its GitLab
   * template: one of the ids of src/core/action-list.ts (`ActionId`), which lists the actions.
   */
  id: string
  name: string
  description: string
  inputs: Record<I, InputSpec>
  outputs: Record<O, OutputSpec>
}

export type RawInputs<I extends string = string> = Record<I, string>

/** `webhook-url` → `webhookUrl`: how the core names an input. */
export type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S

export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())
}

type ParsedBy<P> = P extends (tools: ParseTools) => infer S
  ? S extends v.GenericSchema
    ? v.InferOutput<S>
    : never
  : P extends v.GenericSchema
    ? v.InferOutput<P>
    : never

type ValueOf<D extends ActionDefinition, K extends keyof D['inputs']> = ParsedBy<
  D['inputs'][K]['parse']
>

/** The inputs whose parser may give no value (an optional input left empty). */
type MaybeUnset<D extends ActionDefinition> = {
  [K in keyof D['inputs'] & string]: undefined extends ValueOf<D, K> ? K : never
}[keyof D['inputs'] & string]

/**
 * The typed inputs of an action: each input by its camelCase name, as its parser returns it;
 * optional where the parser may give no value.
 */
export type InputValues<D extends ActionDefinition> = {
  [K in Exclude<keyof D['inputs'] & string, MaybeUnset<D>> as CamelCase<K>]: ValueOf<D, K>
} & {
  [K in MaybeUnset<D> as CamelCase<K>]?: ValueOf<D, K>
}

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

/** Whether the whole text of an input is secret (see InputSpec.secret). */
export function isWholeSecret(spec: Pick<InputSpec, 'secret'>): boolean {
  return spec.secret === true || spec.secret?.whole === true
}

/** An input's text as the log and messages show it: undefined when it is secret whole. */
export function shownText(spec: Pick<InputSpec, 'secret'>, raw: string): string | undefined {
  if (isWholeSecret(spec)) return undefined
  return typeof spec.secret === 'object' ? spec.secret.shown(raw) : raw
}

/**
 * The inputs as the step received them, for its log: secrets masked, empty ones left out. A
 * value of several lines shows quoted, redacted before: quoting escapes `\` and `"`, and a secret
 * that holds one would no longer be the text the redactor (or the runner) masks.
 */
export function describeInputs<I extends string>(
  definition: ActionDefinition<I>,
  raw: RawInputs<I>,
  redact: (text: string) => string,
): string {
  const lines = inputNames(definition)
    .filter((name) => raw[name] !== '')
    .map((name) => {
      const value = redact(shownText(definition.inputs[name], raw[name]) ?? '***')
      return `${name}: ${value.includes('\n') ? JSON.stringify(value) : value}`
    })
  return lines.length > 0 ? lines.join('\n') : '(no inputs given)'
}
