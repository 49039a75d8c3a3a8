// A job's `strategy.matrix`, expanded into its legs as GitHub documents it ("Using a matrix for
// your jobs"): every key but `include` and `exclude` is a vector, and the legs are their product,
// in the order the keys are written; an `exclude` entry removes each leg that has all of its
// values; then each `include` entry is added to every leg whose original values it does not
// change (overwriting what an earlier entry added), or becomes a leg of its own when it fits none.
// Any part may be an expression (`${{ fromJSON(needs.plan.outputs.matrix) }}`), evaluated first.
import { asText, interpolate, type ExpressionScope, type Value } from './workflow-expressions.js'

/** One leg: its value for each key of the matrix, `matrix.<key>` in its expressions. */
export type Leg = Record<string, Value>

const isObject = (value: Value | undefined): value is Record<string, Value> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Each string in the tree with its expressions evaluated (a whole expression keeps its type). */
function evaluated(value: unknown, scope: ExpressionScope): Value {
  if (typeof value === 'string') return interpolate(value, scope)
  if (Array.isArray(value)) return value.map((item) => evaluated(item, scope))
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, evaluated(item, scope)]),
    )
  return value as Value
}

const same = (left: Value | undefined, right: Value | undefined): boolean =>
  JSON.stringify(left) === JSON.stringify(right)

const entries = (value: Value | undefined, key: string): Leg[] => {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value) || !value.every(isObject))
    throw new Error(`Matrix '${key}' must be a list of mappings, not ${asText(value)}`)
  return value
}

/**
 * The legs of a job's matrix, each a mapping of key to value; an error, in GitHub's words where it
 * has some, for a matrix GitHub would refuse (a vector that is not a list, or an empty one).
 */
export function expandMatrix(matrix: unknown, scope: ExpressionScope): Leg[] {
  const value = evaluated(matrix, scope)
  if (!isObject(value)) throw new Error(`The matrix is not a mapping: ${asText(value)}`)
  const { include, exclude, ...vectors } = value
  let legs: Leg[] = Object.keys(vectors).length > 0 ? [{}] : []
  for (const [key, vector] of Object.entries(vectors)) {
    if (!Array.isArray(vector))
      throw new Error(`Matrix vector '${key}' is not a list: ${asText(vector)}`)
    if (vector.length === 0) throw new Error(`Matrix vector '${key}' does not contain any values`)
    legs = legs.flatMap((leg) => vector.map((item) => ({ ...leg, [key]: item })))
  }
  const removed = entries(exclude, 'exclude')
  legs = legs.filter(
    (leg) =>
      !removed.some((entry) => Object.keys(entry).every((key) => same(leg[key], entry[key]))),
  )
  const originals = legs.map((leg) => ({ ...leg }))
  const added: Leg[] = []
  for (const entry of entries(include, 'include')) {
    const fits = legs.filter((_, index) => {
      const original = originals[index] ?? {}
      return Object.keys(entry).every(
        (key) => !Object.hasOwn(original, key) || same(original[key], entry[key]),
      )
    })
    for (const leg of fits) Object.assign(leg, entry)
    if (fits.length === 0) added.push({ ...entry })
  }
  legs.push(...added)
  if (legs.length === 0) throw new Error('The matrix has no legs')
  return legs
}

/** How GitHub names a leg: the job's name, then the leg's values in parentheses. */
export function legName(job: string, leg: Leg): string {
  return `${job} (${Object.values(leg).map(asText).join(', ')})`
}
