// A registry played by a function, behind the HttpClient port, with a clock that never waits:
// for the unit tests of the image check's HTTP exchange and verdicts. The real registry is
// exercised by test/e2e/deploy-verify-images.test.ts.
import {
  HttpFailure,
  type HttpClient,
  type HttpRequest,
  type HttpResponse,
} from '../../src/core/shared/http.js'
import type { Clock } from '../../src/core/shared/ports.js'

export type Answer = HttpResponse | HttpFailure
export type RegistryScript = (request: HttpRequest) => Answer

export interface FakeNetwork {
  http: HttpClient
  clock: Clock
  requests: HttpRequest[]
  /** The sleeps asked for, in milliseconds. */
  waits: number[]
}

export function fakeNetwork(script: RegistryScript): FakeNetwork {
  let now = 0
  const requests: HttpRequest[] = []
  const waits: number[] = []
  return {
    requests,
    waits,
    http: {
      request: (request) => {
        requests.push(request)
        const answer = script(request)
        return answer instanceof HttpFailure ? Promise.reject(answer) : Promise.resolve(answer)
      },
    },
    clock: {
      now: () => new Date(now),
      sleep: (ms) => {
        waits.push(ms)
        now += ms
        return Promise.resolve()
      },
    },
  }
}

export function respond(
  status: number,
  headers: Record<string, string> = {},
  body = '',
): HttpResponse {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  return { status, headers: lower, body, bodyTruncated: false }
}

export const failure = (kind: HttpFailure['kind'], message = `simulated ${kind}`): HttpFailure =>
  new HttpFailure(kind, message)

export const errorBody = (...codes: string[]): string =>
  JSON.stringify({ errors: codes.map((code) => ({ code, message: code.toLowerCase() })) })
