import * as v from 'valibot'
import {
  camelCase,
  shownText,
  type ActionDefinition,
  type InputParser,
  type InputSchema,
  type InputSpec,
  type InputValues,
  type ParseTools,
  type RawInputs,
} from '../definition.js'
import { unique } from './collections.js'
import { errorMessage, InputError, quote } from './errors.js'
import { isProblem, type Problem, type Unmistakable } from './problem.js'

/** Without a YAML parser, YAML that is not also JSON reads as a syntax error. */
export const JSON_ONLY: ParseTools = { parseYaml: JSON.parse }

/**
 * Every input of the action through its own parser, into the typed object the core receives.
 * Every problem is reported at once, one line per input, naming the input and its value (hidden
 * when secret).
 */
export function parseInputs<D extends ActionDefinition>(
  definition: D,
  raw: RawInputs<keyof D['inputs'] & string>,
  tools: ParseTools = JSON_ONLY,
): InputValues<D> {
  const specs: Readonly<Record<string, InputSpec>> = definition.inputs
  const schema = v.object(
    Object.fromEntries(
      Object.entries(specs).map(([name, spec]) => [name, schemaOf(spec.parse, tools)]),
    ),
  )
  const result = v.safeParse(schema, raw)
  if (!result.success) {
    const lines = result.issues.map((issue) =>
      describeInputProblem(definition, raw, inputOf(issue), issue.message),
    )
    throw new InputError(inputOf(result.issues[0]), unique(lines).join('\n'))
  }
  return Object.fromEntries(
    Object.entries(result.output).map(([name, value]) => [camelCase(name), value]),
  ) as InputValues<D>
}

/** The input's schema, made with the tools when it needs them. */
export function schemaOf(parse: InputParser<unknown>, tools: ParseTools): InputSchema<unknown> {
  return typeof parse === 'function' ? parse(tools) : parse
}

function inputOf(issue: v.BaseIssue<unknown>): string {
  const key = issue.path?.[0]?.key
  return typeof key === 'string' ? key : ''
}

/** `Invalid input '<name>' '<value>': <problem>.`, the one wording of an input's problem. */
export function describeInputProblem(
  definition: ActionDefinition,
  raw: Partial<RawInputs>,
  input: string,
  problem: string,
): string {
  const spec: InputSpec | undefined = definition.inputs[input]
  const value = raw[input] ?? ''
  const shown = spec ? shownText(spec, value) : value
  return `Invalid input '${input}' ${shown === undefined ? '(value hidden: secret)' : quote(shown)}: ${problem}.`
}

/**
 * Problems found across inputs, once each had its own parser's say: noted as they are found, and
 * reported together, as the parsers' problems are, so that one run names every one of them.
 */
export class InputProblems {
  private readonly lines: string[] = []
  private first = ''

  constructor(
    private readonly definition: ActionDefinition,
    private readonly raw: Partial<RawInputs>,
  ) {}

  add(input: string, problem: string): void {
    if (this.lines.length === 0) this.first = input
    this.lines.push(describeInputProblem(this.definition, this.raw, input, problem))
  }

  /** The value, or `fallback` once its problem is noted. */
  take<T extends Unmistakable>(input: string, result: T | Problem, fallback: T): T {
    if (!isProblem(result)) return result
    this.add(input, result.problem)
    return fallback
  }

  throwIfAny(): void {
    if (this.lines.length > 0) throw new InputError(this.first, this.lines.join('\n'))
  }
}

/** A string input converted by a function that may fail with a sentence, the input's issue. */
export function refine<T extends Unmistakable>(
  convert: (raw: string) => T | Problem,
): InputSchema<T> {
  return v.pipe(
    v.string(),
    v.rawTransform<string, T>(({ dataset, addIssue, NEVER }) => {
      const result = convert(dataset.value)
      if (isProblem(result)) {
        addIssue({ message: result.problem })
        return NEVER
      }
      return result
    }),
  )
}

/**
 * An input written in JSON or YAML (`deploy-rules`, `backends`): YAML is a superset of JSON, and
 * the YAML parser comes with the tools, so JSON users never load it.
 */
export function parseJsonOrYaml(
  raw: string,
  parseYaml: ParseTools['parseYaml'],
): { document: unknown } | Problem {
  try {
    return { document: parseYaml(raw) }
  } catch (error) {
    return { problem: `is neither JSON nor YAML (${errorMessage(error).split('\n')[0]})` }
  }
}

/**
 * The schema of an optional input written in JSON or YAML: empty is unset, anything else goes
 * through `parse` with the tools' YAML parser.
 */
export function jsonOrYamlInput<T extends Unmistakable>(
  parse: (raw: string, parseYaml: ParseTools['parseYaml']) => T | Problem,
): (tools: ParseTools) => InputSchema<T | undefined> {
  return (tools) => refine((raw) => (raw === '' ? undefined : parse(raw, tools.parseYaml)))
}

/** Splits a list input written one item per line or comma-separated; blank items are dropped. */
export function parseList(raw: string): string[] {
  return raw
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
}

/** Lines only: for items that may hold commas (`type=registry,ref=…`, `NAME=a,b`). */
export function parseLines(raw: string): string[] {
  return raw
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
}

/** A text input with no rule of its own: '' becomes undefined. */
export const text = {
  parse: v.pipe(
    v.string(),
    v.transform((raw) => (raw === '' ? undefined : raw)),
  ),
} as const

export const BOOLEAN_EXPECTED = "expected 'true' or 'false'"

/** Booleans as GitHub users type them: true/false in any case. */
const booleanInput = v.pipe(
  v.string(),
  v.check((raw) => /^(true|false)$/i.test(raw), BOOLEAN_EXPECTED),
  v.transform((raw) => raw.toLowerCase() === 'true'),
)

/** A true/false input and its default. */
export function flag(defaultValue: 'true' | 'false'): {
  type: 'boolean'
  default: string
  parse: InputSchema<boolean>
} {
  return { type: 'boolean', default: defaultValue, parse: booleanInput }
}

/** A whole number from `min` to `max`, and its default. */
export function wholeNumber(
  min: number,
  max: number,
  defaultValue: string,
): { type: 'number'; default: string; parse: InputSchema<number> } {
  const parse = v.pipe(
    v.string(),
    v.check(
      (raw) => /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max,
      `expected a whole number from ${min} to ${max}`,
    ),
    v.transform(Number),
  )
  return { type: 'number', default: defaultValue, parse }
}

/**
 * A number of minutes, decimals allowed (`0.5` is 30 seconds), up to `max`: above 0, or from 0
 * when `zero` says what 0 means. The one reading of "decimal minutes" for every such input.
 */
export function decimalMinutes(options: {
  max: number
  example: number
  zero?: string
}): InputSchema<number> {
  const { max, example, zero } = options
  const range = zero === undefined ? `above 0 and up to ${max}` : `from 0 to ${max}`
  const note = zero === undefined ? '' : `; ${zero}`
  const problem = `expected a number of minutes ${range}, such as ${example} (decimals allowed: 0.5 is 30 seconds${note})`
  return refine<number>((raw) => {
    const minutes = Number(raw)
    const low = zero === undefined ? minutes <= 0 : minutes < 0
    if (!/^\d+(\.\d+)?$/.test(raw) || low || minutes > max) return { problem }
    return minutes
  })
}

/** One of `options`; without a default, '' means "not set" (undefined). */
export function choice<const T extends readonly string[]>(
  options: T,
): { type: 'choice'; options: T; parse: InputSchema<T[number] | undefined> } {
  const parse = v.pipe(
    v.string(),
    v.check((raw) => raw === '' || options.includes(raw), expectedOneOf(options)),
    v.transform((raw) => (raw === '' ? undefined : (raw as T[number]))),
  )
  return { type: 'choice', options, parse }
}

/** One of `options`, `defaultValue` when not given. */
export function choiceWithDefault<const T extends readonly string[]>(
  options: T,
  defaultValue: T[number],
): { type: 'choice'; options: T; default: string; parse: InputSchema<T[number]> } {
  const parse = v.pipe(
    v.string(),
    v.check((raw) => options.includes(raw), expectedOneOf(options)),
    v.transform((raw) => raw as T[number]),
  )
  return { type: 'choice', options, default: defaultValue, parse }
}

function expectedOneOf(options: readonly string[]): string {
  return `expected one of ${options.map((o) => `'${o}'`).join(', ')}`
}

/** Every action's last input: check the inputs as the step would, then stop. */
export const CHECK_ONLY = {
  description:
    "Only check the inputs and the files they name that exist before the run (`payload-file`, the snapshot configuration, the Dockerfiles), as every run does before anything else, report every problem, and stop: nothing is built, sent or written. For a pipeline's first job, so that a missing secret or variable fails it in seconds instead of after the images are built.",
  ...flag('false'),
}
