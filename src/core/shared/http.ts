/** The HTTP port the core uses; src/tools/http.ts implements it with @actions/http-client. */
export interface HttpRequest {
  method: 'POST' | 'GET' | 'HEAD' | 'PUT'
  url: URL
  headers: Record<string, string>
  body?: string
  /** The whole exchange, connection to last byte, must end within this. */
  timeoutMs: number
  /**
   * The connection (TCP, a proxy's tunnel, TLS) must be made within this, else `connect-timeout`
   * (or `tls` when only the handshake is missing): nothing was sent yet. Default: timeoutMs.
   */
  connectTimeoutMs?: number
  /** Bytes of the response body kept; the rest is read and dropped. */
  maxBodyBytes: number
  /**
   * Stop at `maxBodyBytes` instead: the connection is closed and the response ends there, cut
   * (`bodyTruncated`), so that an endless body costs neither memory nor the rest of the time.
   */
  stopAtLimit?: boolean
  /**
   * Hash every byte of the body as it arrives, those past `maxBodyBytes` too (`bodySha256`): a
   * large file is compared without being kept.
   */
  hashBody?: boolean
}

export interface HttpResponse {
  status: number
  headers: Record<string, string | undefined>
  body: string
  bodyTruncated: boolean
  /** With `hashBody`: the SHA-256 (hex) of the whole body, when all of it was read. */
  bodySha256?: string
}

/**
 * Why no (whole) response arrived, and so whether the request can have reached the server.
 * Never reached it: `refused` (no connection could be made), `dns` (unknown host), `proxy` (the
 * proxy opened no tunnel), `tls` (the handshake failed or did not finish, certificate refused
 * included), `connect-timeout` (no connection within the time allowed). May have reached it:
 * `reset` (the connection broke after the request was written), `timeout` (connected, then no
 * complete answer in time), `partial` (the response was cut off), `other`.
 */
export type HttpFailureKind =
  | 'refused'
  | 'dns'
  | 'proxy'
  | 'tls'
  | 'connect-timeout'
  | 'reset'
  | 'timeout'
  | 'partial'
  | 'other'

export class HttpFailure extends Error {
  override readonly name = 'HttpFailure'
  constructor(
    readonly kind: HttpFailureKind,
    message: string,
    /** For `proxy`: the status the proxy answered to CONNECT, when it answered. */
    readonly proxyStatus?: number,
  ) {
    super(message)
  }
}

export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>
}

/** `Authorization: Basic` credentials (RFC 7617), and what `docker login` stores as `auth`. */
export function basicAuth(username: string, password: string): string {
  return Buffer.from(`${username}:${password}`).toString('base64')
}
