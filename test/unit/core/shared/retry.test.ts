import { describe, expect, test } from '@jest/globals'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import {
  connectTimeoutMs,
  MAX_ATTEMPTS,
  retry,
  type AttemptOutcome,
  type RetryPolicy,
} from '../../../../src/core/shared/retry.js'

type Outcome = AttemptOutcome<string, string>
const done = (value: string): Outcome => ({ kind: 'done', value })
const failed = (failure: string, retry = true, waitMs?: number): Outcome => ({
  kind: 'failed',
  failure,
  retry,
  waitMs,
})

/** A clock that moves only when slept on, and a script of outcomes, one per attempt. */
function scripted(outcomes: Outcome[]): {
  clock: { now: () => Date; sleep: (ms: number) => Promise<void> }
  attempt: (number: number, remainingMs: number) => Promise<Outcome>
  calls: Array<[number, number]>
  waits: number[]
  told: string[]
  policy: RetryPolicy<string>
} {
  let now = 0
  const calls: Array<[number, number]> = []
  const waits: number[] = []
  const told: string[] = []
  const clock = {
    now: () => new Date(now),
    sleep: (ms: number) => {
      waits.push(ms)
      now += ms
      return Promise.resolve()
    },
  }
  return {
    clock,
    calls,
    waits,
    told,
    attempt: (number, remainingMs) => {
      calls.push([number, remainingMs])
      return Promise.resolve(outcomes[number - 1] ?? done('late'))
    },
    policy: {
      attempts: 3,
      backoffMs: (attempt) => attempt * 100,
      sleep: clock.sleep,
      onRetry: (failure, waitMs, attempt) => told.push(`${attempt}: ${failure}, ${waitMs} ms`),
    },
  }
}

describe('retry', () => {
  test('done at once: one attempt, no wait', async () => {
    const run = scripted([done('ok')])
    expect(await retry(run.attempt, run.policy)).toEqual({ kind: 'done', value: 'ok', attempts: 1 })
    expect(run.waits).toEqual([])
  })

  test('a failure that may be retried: told, then the backoff, then the next attempt', async () => {
    const run = scripted([failed('refused'), failed('refused'), done('ok')])
    expect(await retry(run.attempt, run.policy)).toEqual({ kind: 'done', value: 'ok', attempts: 3 })
    expect(run.waits).toEqual([100, 200])
    expect(run.told).toEqual(['1: refused, 100 ms', '2: refused, 200 ms'])
  })

  test('a wait the failure asks for replaces the backoff', async () => {
    const run = scripted([failed('busy', true, 3000), done('ok')])
    await retry(run.attempt, run.policy)
    expect(run.waits).toEqual([3000])
  })

  test('a failure judged final ends it at once', async () => {
    const run = scripted([failed('refused'), failed('forbidden', false)])
    expect(await retry(run.attempt, run.policy)).toEqual({
      kind: 'failed',
      failure: 'forbidden',
      attempts: 2,
      stop: 'final',
      waitMs: 200,
    })
    expect(run.waits).toEqual([100])
  })

  test('no attempt beyond the policy’s number', async () => {
    const run = scripted([failed('a'), failed('b'), failed('c'), done('never')])
    const retried = await retry(run.attempt, run.policy)
    expect(retried).toMatchObject({ kind: 'failed', failure: 'c', attempts: 3, stop: 'attempts' })
    expect(run.calls).toHaveLength(3)
  })

  test('what an attempt throws is not caught', async () => {
    const policy = scripted([]).policy
    await expect(retry(() => Promise.reject(new Error('broken')), policy)).rejects.toThrow('broken')
  })

  describe('within a deadline', () => {
    test('each attempt is told the time left when it starts', async () => {
      const run = scripted([failed('a'), done('ok')])
      const deadline = startDeadline(run.clock, 1)
      await retry(run.attempt, { ...run.policy, deadline })
      expect(run.calls).toEqual([
        [1, 1000],
        [2, 900],
      ])
    })

    test('a wait that would end at or past the deadline is not made', async () => {
      const run = scripted([failed('busy', true, 1000), done('ok')])
      const deadline = startDeadline(run.clock, 1)
      expect(await retry(run.attempt, { ...run.policy, deadline })).toEqual({
        kind: 'failed',
        failure: 'busy',
        attempts: 1,
        stop: 'deadline',
        waitMs: 1000,
      })
      expect(run.waits).toEqual([])
    })

    test('no attempt starts once it is spent', async () => {
      const run = scripted([done('ok')])
      const deadline = startDeadline(run.clock, 0)
      expect(await retry(run.attempt, { ...run.policy, deadline })).toEqual({
        kind: 'out-of-time',
        attempts: 0,
      })
      expect(run.calls).toEqual([])
    })
  })
})

describe('connectTimeoutMs', () => {
  const clock = { now: () => new Date(0) }

  test('a third of the time, so that every attempt can connect within it', () => {
    const deadline = startDeadline(clock, 12)
    expect(connectTimeoutMs(deadline, 12_000) * MAX_ATTEMPTS).toBe(12_000)
  })

  test('at most 10 s, and never more than the time left', () => {
    expect(connectTimeoutMs(startDeadline(clock, 600), 600_000)).toBe(10_000)
    expect(connectTimeoutMs(startDeadline(clock, 12), 1500)).toBe(1500)
  })
})
