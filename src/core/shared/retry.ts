import type { Deadline } from './deadline.js'

/** How many times a request whose failure may be retried is made at most: once, then twice more. */
export const MAX_ATTEMPTS = 3
/** A server that has not accepted the connection by then is not going to. */
const CONNECT_CAP_MS = 10_000

/**
 * What one attempt came to. Whether another attempt may help, and do no harm, is the caller's
 * judgement (`retry`); `waitMs` is a wait the other side asked for (Retry-After), which replaces
 * the backoff.
 */
export type AttemptOutcome<T, F> =
  { kind: 'done'; value: T } | { kind: 'failed'; failure: F; retry: boolean; waitMs?: number }

export interface RetryPolicy<F> {
  /** Attempts at most, the first included. */
  attempts: number
  /** The wait after failed attempt `attempt` (1, 2…), when the failure asked for none. */
  backoffMs: (attempt: number) => number
  sleep: (ms: number) => Promise<void>
  /** Told before each wait: where the caller says what failed and when it is tried again. */
  onRetry?: (failure: F, waitMs: number, attempt: number) => void
}

/** A policy bounded in time: no attempt starts once the deadline is spent, no wait ends past it. */
export interface TimedRetryPolicy<F> extends RetryPolicy<F> {
  deadline: Deadline
}

export type Retried<T, F> =
  | { kind: 'done'; value: T; attempts: number }
  /**
   * Gave up after `attempts`: `final` when the failure is not worth another try, `attempts` when
   * none is left, `deadline` when waiting `waitMs` would go beyond the deadline.
   */
  | {
      kind: 'failed'
      failure: F
      attempts: number
      stop: 'final' | 'attempts' | 'deadline'
      waitMs: number
    }

/** The deadline was spent before attempt `attempts + 1` could start. */
export type OutOfTime = { kind: 'out-of-time'; attempts: number }

/**
 * Runs `attempt` until it is done, or its failure may not be retried, or the attempts or the
 * time run out; waits the backoff (or the wait the failure asked for) in between. `remainingMs`
 * is the deadline's time left when the attempt starts (Infinity without a deadline). What the
 * attempt throws is not caught: a failure to be retried is returned, never thrown.
 */
export function retry<T, F>(
  attempt: (number: number, remainingMs: number) => Promise<AttemptOutcome<T, F>>,
  policy: TimedRetryPolicy<F>,
): Promise<Retried<T, F> | OutOfTime>
export function retry<T, F>(
  attempt: (number: number, remainingMs: number) => Promise<AttemptOutcome<T, F>>,
  policy: RetryPolicy<F>,
): Promise<Retried<T, F>>
export async function retry<T, F>(
  attempt: (number: number, remainingMs: number) => Promise<AttemptOutcome<T, F>>,
  policy: RetryPolicy<F> & { deadline?: Deadline },
): Promise<Retried<T, F> | OutOfTime> {
  const remaining = (): number => policy.deadline?.remainingMs() ?? Infinity
  for (let number = 1; ; number++) {
    const remainingMs = remaining()
    if (remainingMs <= 0) return { kind: 'out-of-time', attempts: number - 1 }
    const outcome = await attempt(number, remainingMs)
    if (outcome.kind === 'done') return { kind: 'done', value: outcome.value, attempts: number }
    const waitMs = outcome.waitMs ?? policy.backoffMs(number)
    const stop = !outcome.retry
      ? 'final'
      : number >= policy.attempts
        ? 'attempts'
        : waitMs >= remaining()
          ? 'deadline'
          : undefined
    if (stop) return { kind: 'failed', failure: outcome.failure, attempts: number, stop, waitMs }
    policy.onRetry?.(outcome.failure, waitMs, number)
    await policy.sleep(waitMs)
  }
}

/**
 * How long one request may take to connect: at most a third of the deadline's whole time, so
 * that a connection that never comes leaves room for the retries, and at most 10 s.
 */
export function connectTimeoutMs(deadline: Deadline, remainingMs: number): number {
  return Math.min(CONNECT_CAP_MS, deadline.totalMs / MAX_ATTEMPTS, remainingMs)
}
