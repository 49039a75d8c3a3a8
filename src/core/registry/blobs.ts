import { writeProblem } from './ask.js'
import { errorCodesOf, isRefusal, type RegistrySession } from './session.js'

/** Upload answers are short: a Location, perhaps an error body. */
const MAX_ANSWER_BYTES = 64 * 1024

/** A blob to upload, by its digest: the SHA-256 of `text`'s UTF-8 bytes. */
export interface Blob {
  digest: string
  text: string
}

/**
 * Puts a small blob (a signature's payload, its manifest's configuration) into the session's
 * repository, as the OCI distribution spec's monolithic upload: `HEAD` it first (a blob already
 * there is not sent again), then `POST blobs/uploads/` for a session and `PUT <Location>?digest=`
 * with the bytes. Undefined once the registry holds it, else why not.
 */
export function pushBlob(session: RegistrySession, blob: Blob): Promise<string | undefined> {
  const { digest, text } = blob
  return writeProblem(async () => {
    const head = await session.send({
      method: 'HEAD',
      path: `blobs/${digest}`,
      maxBodyBytes: 0,
    })
    if (isRefusal(head)) return head.detail
    if (head.status === 200) return undefined
    const start = await session.sendWrite(
      {
        method: 'POST',
        path: 'blobs/uploads/',
        headers: { 'Content-Length': '0' },
        maxBodyBytes: MAX_ANSWER_BYTES,
      },
      [202],
      'the start of an upload',
    )
    if (typeof start === 'string') return start
    const location = start.headers.location
    if (!location)
      return `the registry answered HTTP 202${errorCodesOf(start.body)} to the start of an upload, with no Location`
    let at: URL
    try {
      at = new URL(location, session.origin)
    } catch {
      return `the registry gave an upload address that is not a URL ('${session.shown(location, 120)}')`
    }
    at.searchParams.set('digest', digest)
    const put = await session.sendWrite(
      {
        method: 'PUT',
        path: '',
        at,
        headers: { 'Content-Type': 'application/octet-stream' },
        body: text,
        maxBodyBytes: MAX_ANSWER_BYTES,
      },
      [201, 204],
      `the upload of ${digest}`,
    )
    return typeof put === 'string' ? put : undefined
  })
}
