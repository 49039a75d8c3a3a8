/**
 * Why something could not be had, in a sentence for the user: the other side of every result that
 * is "a value or a problem" (`Value | Problem`). A problem that also says which input it is about
 * extends it (see KeyProblem, LoginProblem).
 */
export interface Problem {
  problem: string
}

/**
 * What `isProblem` takes: anything but an object whose own `problem` field is not a Problem's
 * (optional, or not a string), which the guard could tell from a Problem only by its content at
 * run time. An object whose `problem` is a string is a Problem to TypeScript too, so the guard puts
 * it on the problem's side at compile time as at run time.
 */
export type Unmistakable =
  | string
  | number
  | boolean
  | bigint
  | symbol
  | null
  | undefined
  | Problem
  | (object & { readonly problem?: NoField })

/**
 * The type of a `problem` field that a value may not have: no string fits it. Not `never` nor
 * `undefined`: against those TypeScript splits a `problem?: string` into a string, which a Problem
 * takes, and an `undefined`, which this takes, and lets it through.
 */
type NoField = never[]

/** Whether a result is the problem rather than the value: an object with a string `problem`. */
export function isProblem<R extends Unmistakable>(result: R): result is Extract<R, Problem> {
  return (
    typeof result === 'object' &&
    result !== null &&
    typeof (result as { problem?: unknown }).problem === 'string'
  )
}
