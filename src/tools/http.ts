import * as http from 'node:http'
import * as https from 'node:https'
import {
  HttpFailure,
  type HttpClient,
  type HttpRequest,
  type HttpResponse,
} from '../core/shared/http.js'

/**
 * node:http(s) rather than fetch: it loads in a fraction of the time, which is most of a
 * deploy step's cost, and lets us tell "never connected" from "sent, then lost".
 */
export function createHttpClient(): HttpClient {
  return { request: send }
}

function send(request: HttpRequest): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const transport = request.url.protocol === 'https:' ? https : http
    let responded = false
    const req = transport.request(request.url, {
      method: request.method,
      headers: { ...request.headers, 'Content-Length': Buffer.byteLength(request.body).toString() },
      agent: false,
    })
    const timer = setTimeout(() => {
      req.destroy(new HttpFailure('timeout', 'no complete response within the time allowed'))
    }, request.timeoutMs)
    const fail = (error: Error): void => {
      clearTimeout(timer)
      reject(error instanceof HttpFailure ? error : classify(error, responded))
    }
    req.on('error', fail)
    req.on('response', (res) => {
      responded = true
      readBody(res, request.maxBodyBytes)
        .then(({ body, truncated }) => {
          clearTimeout(timer)
          resolve({
            status: res.statusCode ?? 0,
            headers: flatHeaders(res.headers),
            body,
            bodyTruncated: truncated,
          })
        })
        .catch(fail)
      res.on('error', fail)
    })
    req.end(request.body)
  })
}

function readBody(
  res: http.IncomingMessage,
  maxBytes: number,
): Promise<{ body: string; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let kept = 0
    let truncated = false
    res.on('data', (chunk: Buffer) => {
      if (kept >= maxBytes) {
        truncated = true
        return
      }
      const part = chunk.subarray(0, maxBytes - kept)
      truncated ||= part.length < chunk.length
      chunks.push(part)
      kept += part.length
    })
    res.on('end', () => resolve({ body: Buffer.concat(chunks).toString('utf8'), truncated }))
    res.on('aborted', () =>
      reject(new HttpFailure('other', 'the connection was closed in the middle of the response')),
    )
  })
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(headers))
    flat[name] = Array.isArray(value) ? value.join(', ') : value
  return flat
}

/** Messages never quote Node's own text: it names the host, and the whole URL is a secret. */
function classify(error: Error, responded: boolean): HttpFailure {
  const code = (error as NodeJS.ErrnoException).code ?? ''
  if (responded)
    return new HttpFailure(
      'other',
      `the connection failed in the middle of the response (${code || 'error'})`,
    )
  if (code === 'ECONNREFUSED')
    return new HttpFailure('refused', 'the webhook host refused the connection (ECONNREFUSED)')
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new HttpFailure('dns', `the webhook host name could not be resolved (${code})`)
  }
  if (code === 'ECONNRESET' || code === 'EPIPE' || error.message === 'socket hang up') {
    return new HttpFailure(
      'reset',
      `the connection was closed before any response (${code || 'socket hang up'})`,
    )
  }
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL')) {
    return new HttpFailure('tls', `the TLS connection to the webhook failed (${code})`)
  }
  return new HttpFailure('other', `the request failed (${code || 'unknown error'})`)
}
