import * as v from 'valibot'
import type { ActionDefinition, InputSpec, RawInputs } from '../definition.js'
import { unique } from './collections.js'
import { InputError, quote } from './errors.js'

/**
 * Validates raw input strings with the action's valibot schema. Every problem is reported at
 * once, one line per input, naming the input and its value (hidden when secret).
 */
export function parseInputs<I extends string, TOut>(
  definition: ActionDefinition<I>,
  schema: v.GenericSchema<RawInputs<I>, TOut>,
  raw: RawInputs<I>,
): TOut {
  const result = v.safeParse(schema, raw)
  if (result.success) return result.output
  const lines = result.issues.map((issue) =>
    describeInputProblem(definition, raw, inputOf(issue), issue.message),
  )
  throw new InputError(inputOf(result.issues[0]), unique(lines).join('\n'))
}

function inputOf(issue: v.BaseIssue<unknown>): string {
  const key = issue.path?.[0]?.key
  return typeof key === 'string' ? key : ''
}

export function describeInputProblem<I extends string>(
  definition: ActionDefinition<I>,
  raw: RawInputs<I>,
  input: string,
  problem: string,
): string {
  const spec = definition.inputs[input as I] as InputSpec | undefined
  const value = raw[input as I] as string | undefined
  const shown = spec?.secret ? '(value hidden: secret)' : quote(value ?? '')
  return `Invalid input '${input}' ${shown}: ${problem}.`
}

/** A string input converted by a function that may fail with a sentence, the input's issue. */
export function refine<T>(
  convert: (raw: string) => T | { problem: string },
): v.GenericSchema<string, T> {
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

function isProblem(value: unknown): value is { problem: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    'problem' in value &&
    Object.keys(value).length === 1
  )
}
