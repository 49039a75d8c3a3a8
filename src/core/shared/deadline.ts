import type { Clock } from './ports.js'

/**
 * A time limit, counted from when it was started: `timeout-seconds` bounds every stage of the
 * step, not one call. A stage that must leave time for the next one takes a slice of it.
 */
export interface Deadline {
  /** What bounds the time, for messages: `'timeout-seconds' (60 s)`. */
  readonly limit: string
  /** The whole time it allowed when it started, in milliseconds. */
  readonly totalMs: number
  /** Milliseconds left; zero or less once the time is up. */
  remainingMs(): number
  /**
   * A deadline inside this one that takes at most `share` (0 to 1) of the time left now, so that
   * what follows keeps the rest. `limit` words it from the milliseconds it was given.
   */
  slice(share: number, limit: (allowedMs: number) => string): Deadline
}

/** `seconds` from now; `limit` names it in messages (by default as the `timeout-seconds` input). */
export function startDeadline(
  clock: Pick<Clock, 'now'>,
  seconds: number,
  limit = `'timeout-seconds' (${seconds} s)`,
): Deadline {
  const totalMs = seconds * 1000
  return deadlineAt(clock, clock.now().getTime() + totalMs, totalMs, limit)
}

function deadlineAt(
  clock: Pick<Clock, 'now'>,
  end: number,
  totalMs: number,
  limit: string,
): Deadline {
  const remainingMs = (): number => end - clock.now().getTime()
  return {
    limit,
    totalMs,
    remainingMs,
    slice(share, describe) {
      const now = clock.now().getTime()
      const allowedMs = Math.max(0, Math.floor((end - now) * share))
      return deadlineAt(clock, now + allowedMs, allowedMs, describe(allowedMs))
    },
  }
}
