import { createContext, Script, type Context } from 'node:vm'
import { errorMessage, quote } from '../shared/errors.js'

/**
 * The one home of the users' regular expressions (`deploy-rules` sources and targets, from the
 * input or from `payload-file`): whether one compiles, and evaluating one against a subject.
 * The platform's syntax is JavaScript's (look-ahead included), so no linear-time engine can take
 * its place; instead every evaluation runs in a `vm` context with a timeout, which V8 honours
 * even in the middle of a backtracking match.
 */

/** How long one evaluation may run: a sane pattern needs microseconds on an image name. */
export const PATTERN_BOUND_MS = 250

/** Why a pattern does not compile as a JavaScript regular expression, or undefined. */
export function patternSyntaxProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern)
    return undefined
  } catch (error) {
    // V8 says "Invalid regular expression: /<pattern>/: <reason>"; the pattern is quoted apart.
    const message = errorMessage(error)
    const prefix = `Invalid regular expression: /${pattern}/: `
    const reason = message.startsWith(prefix) ? message.slice(prefix.length) : message
    return `${quote(pattern, 100)} is not a valid regular expression (${reason}); write it in JavaScript syntax, and escape characters meant literally, such as '\\.' or '\\('`
  }
}

interface Sandbox {
  context: Context
  script: Script
}
let sandbox: Sandbox | undefined

/** Made on first use: importing the module costs nothing. */
function theSandbox(): Sandbox {
  sandbox ??= {
    context: createContext({ pattern: '', subject: '' }),
    script: new Script('new RegExp(pattern).test(subject)'),
  }
  return sandbox
}

/** Whether `pattern` matches `subject`, or 'too-slow' when it ran for `boundMs` and was stopped. */
export function testWithin(
  pattern: string,
  subject: string,
  boundMs: number,
): boolean | 'too-slow' {
  if (boundMs < 1) return 'too-slow'
  const { context, script } = theSandbox()
  context.pattern = pattern
  context.subject = subject
  try {
    return script.runInContext(context, { timeout: Math.floor(boundMs) }) === true
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'too-slow'
    throw error
  }
}

/** A source that was stopped: which rule, on which image, and whether the step's time ran out. */
export interface TooSlow {
  rule: number
  pattern: string
  subject: string
  boundMs: number
  /** True when what stopped it was the end of 'timeout-seconds', not the per-pattern bound. */
  stepTimeout: boolean
  /** A rule's target, matched against a backend's name; else its source, against an image. */
  field?: 'target'
}

/**
 * A stopped evaluation is tried again before the pattern is refused: the bound is wall-clock
 * time, and a loaded machine can pause the step for longer than it on a match of microseconds.
 * A pattern that backtracks is stopped every time.
 */
export const PATTERN_TRIES = 3

/**
 * The backend images that no rule's source matches (with a catch-all rule the platform would deploy
 * them nowhere). Each evaluation gets the per-pattern bound, or what is left of the step's
 * time if that is less; the first one stopped on every try ends the check.
 */
export function unmatchedImages(
  images: readonly string[],
  sources: readonly string[],
  remainingMs: () => number,
  test: typeof testWithin = testWithin,
): { unmatched: string[] } | { tooSlow: TooSlow } {
  const unmatched: string[] = []
  for (const image of images) {
    let matched = false
    for (const [rule, pattern] of sources.entries()) {
      const result = evaluate(pattern, image, remainingMs, test)
      if (typeof result === 'object') return { tooSlow: { rule, ...result } }
      if (result) {
        matched = true
        break
      }
    }
    if (!matched) unmatched.push(image)
  }
  return { unmatched }
}

/**
 * Whether `pattern` matches `subject`, each try bounded as unmatchedImages bounds it; what was
 * stopped on every try, or when the step's time ran out.
 */
export function evaluate(
  pattern: string,
  subject: string,
  remainingMs: () => number,
  test: typeof testWithin = testWithin,
): boolean | Omit<TooSlow, 'rule'> {
  for (let tried = 0; ; tried++) {
    const remaining = remainingMs()
    const boundMs = Math.min(PATTERN_BOUND_MS, remaining)
    const result = test(pattern, subject, boundMs)
    if (result !== 'too-slow') return result
    const stepTimeout = remaining < PATTERN_BOUND_MS
    if (stepTimeout || tried + 1 >= PATTERN_TRIES) return { pattern, subject, boundMs, stepTimeout }
  }
}

/** What is wrong with a stopped source, for the message that names the rule and the input. */
export function tooSlowProblem(slow: TooSlow, limit: string): string {
  const subject = slow.field === 'target' ? 'backend name' : 'backend image'
  const what = `the regular expression ${quote(slow.pattern, 100)} against the ${subject} ${quote(slow.subject, 100)}`
  if (slow.stepTimeout)
    return `matching ${what} did not finish within ${limit}, so the step stopped and sent nothing; simplify the pattern, or raise 'timeout-seconds'`
  return `matching ${what} took more than ${PATTERN_BOUND_MS} ms on each of ${PATTERN_TRIES} tries and was stopped: the pattern backtracks catastrophically (nested quantifiers such as '(a+)+', or alternatives that overlap such as '(a|ab)*'); rewrite it so that each part of an image name can match in only one way, for example '^reg\\.example\\.com/shop/api:'`
}
