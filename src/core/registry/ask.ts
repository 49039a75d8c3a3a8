import {
  HttpFailure,
  type HttpClient,
  type HttpRequest,
  type HttpResponse,
} from '../shared/http.js'
import type { Clock } from '../shared/ports.js'

/**
 * Only failures that never reached the server are repeated: the connection was refused, the
 * host name did not resolve, or no connection was made in time. A TLS or proxy failure is not:
 * a refused certificate or a proxy that opens no tunnel says the same a second later.
 */
const RETRYABLE = new Set<HttpFailure['kind']>(['refused', 'dns', 'connect-timeout'])
export const MAX_ATTEMPTS = 3
const BACKOFF_MS = [250, 500]

/** The registry could not be asked; `reason` says why, for the user. */
export class Unreachable extends Error {
  override readonly name = 'Unreachable'
}

export interface Budget {
  /** Epoch milliseconds by which every request must be over. */
  deadline: number
  /** What bounds the requests, for messages: `'timeout-seconds' (60 s)`. */
  limit: string
}

export interface AskPorts {
  http: HttpClient
  clock: Clock
}

/**
 * One request within the budget, repeated only after a failure that never reached the server.
 * Throws Unreachable with a sentence when no response arrives.
 */
export async function ask(
  request: Omit<HttpRequest, 'timeoutMs'>,
  budget: Budget,
  ports: AskPorts,
): Promise<HttpResponse> {
  for (let attempt = 1; ; attempt++) {
    const remaining = budget.deadline - ports.clock.now().getTime()
    if (remaining <= 0) throw new Unreachable(outOfTime(budget))
    try {
      return await ports.http.request({ ...request, timeoutMs: remaining })
    } catch (error) {
      if (!(error instanceof HttpFailure)) throw error
      if (error.kind === 'timeout') throw new Unreachable(outOfTime(budget))
      const wait = BACKOFF_MS[attempt - 1] ?? 0
      const again =
        RETRYABLE.has(error.kind) &&
        attempt < MAX_ATTEMPTS &&
        ports.clock.now().getTime() + wait < budget.deadline
      if (!again)
        throw new Unreachable(
          attempt > 1 ? `${error.message} (${attempt} attempts)` : error.message,
        )
      await ports.clock.sleep(wait)
    }
  }
}

function outOfTime(budget: Budget): string {
  return `no answer within ${budget.limit}`
}
