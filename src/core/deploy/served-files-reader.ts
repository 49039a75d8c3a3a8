import { HttpFailure, type HttpClient, type HttpResponse } from '../shared/http.js'
import type { ServedFiles } from '../shared/image-labels.js'
import { fileUrl, type AppTarget } from './app-url.js'

/**
 * Deploy's side of the served-files label (shared/image-labels.ts), which build-images writes
 * from the files as built (build-images/plan/served-files-label.ts): what the app serves, read
 * over HTTP, and compared with it (compareFiles).
 */

/**
 * What one request for a served file gave: its digest, or why there is none. `transient`: what a
 * restarting app answers (502-504, a time-out…), worth another look; `nothing`: the address
 * serves nothing there (a 404, a refused connection), which is an answer of its own.
 */
export type FileAnswer =
  | { kind: 'read'; digest: string }
  | { kind: 'none'; detail: string; transient: boolean; nothing?: true }

/** What `<app-url>/version.json` gave. */
export type VersionAnswer =
  /** `digest`: the SHA-256 of version.json as served, when it was read whole (`sha256:<hex>`). */
  | { kind: 'version'; version: string; digest?: string }
  /** No version; `transient` and `nothing` as for a file (see FileAnswer). */
  | { kind: 'none'; detail: string; transient: boolean; nothing?: true }

/** What the reader did, for the summary and the tests' counts. */
export interface ReadCounts {
  requests: number
  /** Requests that carried If-None-Match or If-Modified-Since. */
  conditional: number
  /** Answers 304: the file did not change since the last download. */
  notModified: number
  /** Answers 200: the whole file came and was hashed. */
  downloads: number
}

interface Known {
  digest: string
  etag?: string
  lastModified?: string
}

/** A full download of a large script may take longer than a poll's request. */
export const FILE_REQUEST_MS = 60_000
/** The statuses of an app, or its proxy, while pods restart. */
export const RESTARTING = new Set([429, 500, 502, 503, 504])

/** The headers of every request to the app or its preview, the poll's and the files' alike. */
export function headers(target: AppTarget, accept: string): Record<string, string> {
  return {
    Accept: accept,
    // Both, for HTTP/1.0 caches too: the answer must come from the app, not from a cache.
    'Cache-Control': 'no-cache',
    Pragma: 'no-cache',
    // The bytes as built, whose digest the served-files label holds: a compressed answer would not
    // hash to it.
    'Accept-Encoding': 'identity',
    ...(target.authorization ? { Authorization: target.authorization } : {}),
  }
}

/** No answer: worth another poll, unless the name, the certificate or the proxy is wrong. */
export function isTransient(error: HttpFailure): boolean {
  return error.kind !== 'dns' && error.kind !== 'tls' && error.kind !== 'proxy'
}

/** A refused connection: nothing listens there, which is an answer (see FileAnswer). */
export function nothingFrom(error: HttpFailure): { nothing?: true } {
  return error.kind === 'refused' ? { nothing: true } : {}
}

/** The answer's compression, when it has one despite `Accept-Encoding: identity`. */
export function compression(response: HttpResponse): string | undefined {
  const encoding = response.headers['content-encoding']?.trim().toLowerCase()
  return encoding && encoding !== 'identity' ? encoding : undefined
}

/**
 * The files a target (the app, or its preview) serves, read as a browser revalidates them: a
 * conditional request with the `ETag` (nginx's is the file's time and size) or `Last-Modified`
 * of the last download, so that an unchanged file costs a 304, and a changed one a single
 * download, hashed as it arrives (nothing of it is kept).
 */
export class ServedFilesReader {
  readonly counts: ReadCounts = { requests: 0, conditional: 0, notModified: 0, downloads: 0 }
  private readonly known = new Map<string, Known>()

  constructor(
    private readonly target: AppTarget,
    private readonly http: HttpClient,
  ) {}

  async read(
    paths: readonly string[],
    timeoutMs: () => number,
  ): Promise<Record<string, FileAnswer>> {
    const answers: Record<string, FileAnswer> = {}
    for (const path of paths) answers[path] = await this.readOne(path, timeoutMs())
    return answers
  }

  private async readOne(path: string, timeoutMs: number): Promise<FileAnswer> {
    const known = this.known.get(path)
    const conditions: Record<string, string> = known?.etag
      ? { 'If-None-Match': known.etag }
      : known?.lastModified
        ? { 'If-Modified-Since': known.lastModified }
        : {}
    this.counts.requests++
    if (Object.keys(conditions).length > 0) this.counts.conditional++
    let response: HttpResponse
    try {
      response = await this.http.request({
        method: 'GET',
        url: fileUrl(this.target, path),
        headers: { ...headers(this.target, '*/*'), ...conditions },
        timeoutMs,
        maxBodyBytes: 0,
        hashBody: true,
      })
    } catch (error) {
      if (!(error instanceof HttpFailure)) throw error
      return {
        kind: 'none',
        detail: `no answer for ${path}: ${error.message}`,
        transient: isTransient(error),
        ...nothingFrom(error),
      }
    }
    const { status } = response
    if (status === 304 && known) {
      this.counts.notModified++
      return { kind: 'read', digest: known.digest }
    }
    if (status === 200) return this.downloaded(path, response)
    return {
      kind: 'none',
      detail: `HTTP ${status} for ${path}`,
      transient: RESTARTING.has(status),
      ...(status === 404 ? { nothing: true as const } : {}),
    }
  }

  private downloaded(path: string, response: HttpResponse): FileAnswer {
    this.counts.downloads++
    const encoding = compression(response)
    if (encoding)
      return {
        kind: 'none',
        detail: `${path} came compressed (Content-Encoding: ${encoding.slice(0, 20)}) although asked without, so it cannot be compared with the file as built`,
        transient: false,
      }
    if (!response.bodySha256)
      return { kind: 'none', detail: `${path} was not read whole`, transient: true }
    const digest = `sha256:${response.bodySha256}`
    const etag = response.headers.etag
    const lastModified = response.headers['last-modified']
    this.known.set(path, {
      digest,
      // Header values from the server: sent back only when they are what a header can carry.
      ...(etag && headerValue(etag) ? { etag } : {}),
      ...(lastModified && headerValue(lastModified) ? { lastModified } : {}),
    })
    return { kind: 'read', digest }
  }
}

function headerValue(value: string): boolean {
  return value.length <= 256 && /^[\x20-\x7e]+$/.test(value)
}

/** How what a target serves compares with this build's files. */
export interface FilesComparison {
  /** Every file read, and each equal to the build's. */
  match: boolean
  /** Files read that differ from the build's. */
  differ: string[]
  /** Files that could not be read, with why. */
  unread: Array<{ path: string; detail: string; transient: boolean }>
}

export function compareFiles(
  expected: ServedFiles,
  answers: Record<string, FileAnswer>,
): FilesComparison {
  const differ: string[] = []
  const unread: FilesComparison['unread'] = []
  for (const [path, answer] of Object.entries(answers)) {
    if (answer.kind === 'none')
      unread.push({ path, detail: answer.detail, transient: answer.transient })
    else if (answer.digest !== expected[path]) differ.push(path)
  }
  return { match: differ.length === 0 && unread.length === 0, differ, unread }
}

/** `version.json, index.html and main.js`. */
export function listed(paths: readonly string[]): string {
  if (paths.length <= 1) return paths.join('')
  return `${paths.slice(0, -1).join(', ')} and ${paths.at(-1) ?? ''}`
}
