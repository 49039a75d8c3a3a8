import { describe, expect, test } from '@jest/globals'
import {
  PATTERN_BOUND_MS,
  PATTERN_TRIES,
  patternSyntaxProblem,
  testWithin,
  unmatchedImages,
} from '../../../../src/core/deploy/patterns.js'

/** Exponential on a run of 'a' that ends in another character: 2^40 paths. */
const SLOW = '(a+)+$'
const LONG = `reg.example.com/shop/api:${'a'.repeat(40)}-1`

describe('the users’ regular expressions', () => {
  test.each(['.*', '^(?!legacy).*$', 'api|worker', '^reg\\.example\\.com/', '(?<=shop/)api'])(
    '%j compiles, look-around included',
    (pattern) => {
      expect(patternSyntaxProblem(pattern)).toBeUndefined()
    },
  )

  test.each([
    ['(api', "'(api' is not a valid regular expression (Unterminated group)"],
    ['*api', "'*api' is not a valid regular expression (Nothing to repeat)"],
    ['[z-a]', "'[z-a]' is not a valid regular expression (Range out of order in character class)"],
  ])('%j is refused with the reason and how to fix it', (pattern, problem) => {
    expect(patternSyntaxProblem(pattern)).toBe(
      `${problem}; write it in JavaScript syntax, and escape characters meant literally, such as '\\.' or '\\('`,
    )
  })

  test('an evaluation matches, or not, as RegExp.test does', () => {
    expect(testWithin('^reg\\.example\\.com/', LONG, PATTERN_BOUND_MS)).toBe(true)
    expect(testWithin('^(?!reg).*$', LONG, PATTERN_BOUND_MS)).toBe(false)
  })

  test('a backtracking evaluation is stopped at the bound, not left to run', () => {
    expect(testWithin(SLOW, LONG, PATTERN_BOUND_MS)).toBe('too-slow')
    // The sandbox is still usable afterwards.
    expect(testWithin('api', LONG, PATTERN_BOUND_MS)).toBe(true)
  })

  test('no time left: nothing is evaluated', () => {
    expect(testWithin('api', LONG, 0)).toBe('too-slow')
  })
})

describe('unmatchedImages', () => {
  const plenty = (): number => 60_000

  test('lists the images no source matches, in order', () => {
    expect(
      unmatchedImages(['r.io/api:1', 'r.io/worker:1', 'r.io/cron:1'], ['api', 'cron'], plenty),
    ).toEqual({ unmatched: ['r.io/worker:1'] })
  })

  test('stops at the first match: a later slow source is never run', () => {
    expect(unmatchedImages([LONG], ['api', SLOW], plenty)).toEqual({ unmatched: [] })
  })

  test('a slow source is reported with its rule, its image and the bound', () => {
    expect(unmatchedImages(['r.io/worker:1', LONG], ['worker', SLOW], plenty)).toEqual({
      tooSlow: {
        rule: 1,
        pattern: SLOW,
        subject: LONG,
        boundMs: PATTERN_BOUND_MS,
        stepTimeout: false,
      },
    })
  })

  test('each evaluation gets at most what is left of the step', () => {
    expect(unmatchedImages([LONG], [SLOW], () => 30)).toEqual({
      tooSlow: { rule: 0, pattern: SLOW, subject: LONG, boundMs: 30, stepTimeout: true },
    })
  })

  test('a loaded machine that stalls one try does not refuse a sane pattern', () => {
    const bounds: number[] = []
    const stallOnce = (
      _pattern: string,
      _subject: string,
      boundMs: number,
    ): boolean | 'too-slow' => {
      bounds.push(boundMs)
      return bounds.length === 1 ? 'too-slow' : true
    }
    expect(unmatchedImages(['r.io/api:1'], ['api'], plenty, stallOnce)).toEqual({ unmatched: [] })
    expect(bounds).toEqual([PATTERN_BOUND_MS, PATTERN_BOUND_MS])
  })

  test(`a pattern stopped on each of ${PATTERN_TRIES} tries is refused`, () => {
    let tries = 0
    const alwaysSlow = (): 'too-slow' => {
      tries++
      return 'too-slow'
    }
    expect(unmatchedImages(['r.io/api:1'], ['api'], plenty, alwaysSlow)).toMatchObject({
      tooSlow: { rule: 0, stepTimeout: false },
    })
    expect(tries).toBe(PATTERN_TRIES)
  })
})
