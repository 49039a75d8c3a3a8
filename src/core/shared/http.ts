/** The HTTP port the core uses; the tools layer implements it with node:http(s). */
export interface HttpRequest {
  method: 'POST'
  url: URL
  headers: Record<string, string>
  body: string
  /** The whole exchange, connection to last byte, must end within this. */
  timeoutMs: number
  /** Bytes of the response body kept; the rest is read and dropped. */
  maxBodyBytes: number
}

export interface HttpResponse {
  status: number
  headers: Record<string, string | undefined>
  body: string
  bodyTruncated: boolean
}

/**
 * Why no response arrived. `sent` is false only when the request surely never reached the
 * server (refused connection, unknown host): the only failures it is safe to repeat a POST after,
 * together with a reset before any byte of a response.
 */
export type HttpFailureKind = 'refused' | 'dns' | 'reset' | 'timeout' | 'tls' | 'other'

export class HttpFailure extends Error {
  override readonly name = 'HttpFailure'
  constructor(
    readonly kind: HttpFailureKind,
    message: string,
  ) {
    super(message)
  }
}

export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>
}
