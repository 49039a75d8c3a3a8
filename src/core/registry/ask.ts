import type { Deadline } from '../shared/deadline.js'
import {
  HttpFailure,
  type HttpClient,
  type HttpRequest,
  type HttpResponse,
} from '../shared/http.js'
import type { Clock } from '../shared/ports.js'
import { connectTimeoutMs, MAX_ATTEMPTS, retry, type AttemptOutcome } from '../shared/retry.js'

/**
 * Only failures that never reached the server are repeated: the connection was refused, the
 * host name did not resolve, or no connection was made in time. A TLS or proxy failure is not:
 * a refused certificate or a proxy that opens no tunnel says the same a second later.
 */
const RETRYABLE = new Set<HttpFailure['kind']>(['refused', 'dns', 'connect-timeout'])
const BACKOFF_MS = [250, 500]

/** The registry could not be asked; `reason` says why, for the user. */
export class Unreachable extends Error {
  override readonly name = 'Unreachable'
}

/** What `write` says went wrong (undefined: nothing), an unreachable registry's message too. */
export async function writeProblem(
  write: () => Promise<string | undefined>,
): Promise<string | undefined> {
  try {
    return await write()
  } catch (error) {
    if (error instanceof Unreachable) return error.message
    throw error
  }
}

export interface AskPorts {
  http: HttpClient
  clock: Clock
}

/**
 * One request within the deadline, repeated (up to `attempts` in all) only after a failure that
 * never reached the server.
 * Each try must connect within at most a third of the deadline's time (connectTimeoutMs), so
 * that a server that never accepts the connection leaves time to try again. Throws Unreachable
 * with a sentence when no response arrives.
 */
export async function ask(
  request: Omit<HttpRequest, 'timeoutMs' | 'connectTimeoutMs'>,
  deadline: Deadline,
  ports: AskPorts,
  attempts = MAX_ATTEMPTS,
): Promise<HttpResponse> {
  const retried = await retry(
    async (_attempt, remainingMs): Promise<AttemptOutcome<HttpResponse, HttpFailure>> => {
      try {
        const timeouts = {
          timeoutMs: remainingMs,
          connectTimeoutMs: connectTimeoutMs(deadline, remainingMs),
        }
        return { kind: 'done', value: await ports.http.request({ ...request, ...timeouts }) }
      } catch (error) {
        if (!(error instanceof HttpFailure)) throw error
        return { kind: 'failed', failure: error, retry: RETRYABLE.has(error.kind) }
      }
    },
    {
      attempts,
      backoffMs: (attempt) => BACKOFF_MS[attempt - 1] ?? 0,
      sleep: (ms) => ports.clock.sleep(ms),
      deadline,
    },
  )
  if (retried.kind === 'done') return retried.value
  // A time-out is the deadline spent, whichever attempt it ended.
  if (retried.kind === 'out-of-time' || retried.failure.kind === 'timeout')
    throw new Unreachable(`no answer within ${deadline.limit}`)
  const { message } = retried.failure
  throw new Unreachable(
    retried.attempts > 1 ? `${message} (${retried.attempts} attempts)` : message,
  )
}
