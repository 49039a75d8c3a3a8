import { describe, expect, test } from '@jest/globals'
import { startDeadline } from '../../../../src/core/shared/deadline.js'

/** A clock whose time moves only when the test says so. */
function manualClock(): { now: () => Date; advance: (ms: number) => void } {
  let now = 1_000_000
  return { now: () => new Date(now), advance: (ms) => (now += ms) }
}

describe('startDeadline', () => {
  test('counts down from its start, and names the input in messages by default', () => {
    const clock = manualClock()
    const deadline = startDeadline(clock, 60)
    expect(deadline.limit).toBe("'timeout-seconds' (60 s)")
    expect(deadline.totalMs).toBe(60_000)
    expect(deadline.remainingMs()).toBe(60_000)
    clock.advance(59_000)
    expect(deadline.remainingMs()).toBe(1000)
    clock.advance(2000)
    expect(deadline.remainingMs()).toBe(-1000)
  })

  test('a limit of its own words the messages', () => {
    expect(startDeadline(manualClock(), 2, 'the test limit').limit).toBe('the test limit')
  })
})

describe('Deadline.slice', () => {
  test('takes its share of what is left when it is cut, and words it from that', () => {
    const clock = manualClock()
    const step = startDeadline(clock, 60)
    clock.advance(20_000)
    const check = step.slice(0.5, (ms) => `the ${ms / 1000} s the check had`)
    expect(check.totalMs).toBe(20_000)
    expect(check.remainingMs()).toBe(20_000)
    expect(check.limit).toBe('the 20 s the check had')
    clock.advance(20_000)
    // The check's time is spent; the step keeps the other half for what follows.
    expect(check.remainingMs()).toBe(0)
    expect(step.remainingMs()).toBe(20_000)
  })

  test('never ends after the deadline it is cut from', () => {
    const clock = manualClock()
    const step = startDeadline(clock, 10)
    const whole = step.slice(1, () => 'all of it')
    clock.advance(10_000)
    expect([whole.remainingMs(), step.remainingMs()]).toEqual([0, 0])
  })

  test('a slice of a spent deadline has no time at all', () => {
    const clock = manualClock()
    const step = startDeadline(clock, 1)
    clock.advance(5000)
    const slice = step.slice(0.5, (ms) => `${ms} ms`)
    expect([slice.totalMs, slice.remainingMs(), slice.limit]).toEqual([0, 0, '0 ms'])
  })

  test('a slice can be cut again', () => {
    const clock = manualClock()
    const quarter = startDeadline(clock, 8)
      .slice(0.5, () => 'half')
      .slice(0.5, () => 'a quarter')
    expect([quarter.totalMs, quarter.limit]).toEqual([2000, 'a quarter'])
  })
})
