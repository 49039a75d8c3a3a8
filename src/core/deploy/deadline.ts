import type { Clock } from '../shared/ports.js'

/** `timeout-seconds`, counted from the start of the step: it bounds every stage, not one call. */
export interface Deadline {
  readonly seconds: number
  /** Milliseconds left; zero or less once the time is up. */
  remainingMs(): number
}

export function startDeadline(clock: Clock, seconds: number): Deadline {
  const end = clock.now().getTime() + seconds * 1000
  return { seconds, remainingMs: () => end - clock.now().getTime() }
}
