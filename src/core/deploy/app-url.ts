import { basicAuth } from '../shared/http.js'
import { isLoopbackHost } from '../shared/loopback.js'
import { isProblem, type Problem } from '../shared/problem.js'
import { parseCredentialUrl, type CredentialUrl } from '../shared/url-credentials.js'

/**
 * The deployed app (or its preview), as the rollout watch asks it; its credentials as
 * `secret: urlCredentials` reads them.
 */
export interface AppTarget extends CredentialUrl {
  /** The address without its credentials, no `/` at its end: the `url` output, links and messages. */
  shown: string
  /** The frontend's `version.json`, which holds the version it serves. */
  versionUrl: URL
  /** The orchestrator's status, which the Olympe install proxies under the app. */
  statusUrl: URL
  /** `Basic …` for a protected app (the URL's `user:password@`); never printed. */
  authorization?: string
  /** Plain http to a host other than this machine: worth a warning. */
  insecure: boolean
}

export const VERSION_PATH = 'version.json'
export const STATUS_PATH = 'OlympeServer/status'

/** How the messages about an address input name it. */
export interface AddressWords {
  /** `the app` */
  subject: string
  /** `the app's address` */
  noun: string
  /** `'https://shop.example.com'` */
  example: string
}
export const APP_WORDS: AddressWords = {
  subject: 'the app',
  noun: "the app's address",
  example: "'https://shop.example.com'",
}
export const PREVIEW_WORDS: AddressWords = {
  subject: 'the preview',
  noun: "the preview's address (where the platform serves a new version until it is promoted)",
  example: "'https://preview.shop.example.com'",
}

/**
 * The `app-url` (or `preview-url`) input: an http(s) address with a host, optionally with
 * `user:password@` for a protected app (sent as Basic auth), read as every URL that may carry
 * credentials is (see parseCredentialUrl). The paths asked are below its path, so that an app
 * served under a prefix works; a query or a fragment would be lost in them, so they are refused.
 */
export function parseAppUrl(raw: string, words: AddressWords = APP_WORDS): AppTarget | Problem {
  const { noun, example } = words
  // eslint-disable-next-line no-control-regex -- finding them is the point: URL drops some silently
  if (/[\s\x00-\x1f\x7f]/.test(raw))
    return {
      problem: `contains a space, a line break or a control character; give ${noun} alone, such as ${example}`,
    }
  const parsed = parseCredentialUrl(raw)
  if (parsed === undefined)
    return {
      problem: `expected ${noun}, an absolute https:// URL such as ${example}`,
    }
  if (isProblem(parsed)) return parsed
  const { url, credentials } = parsed
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return {
      problem: `expected an https:// (or http://) address such as ${example}, not a '${url.protocol}' one`,
    }
  if (url.hostname === '') return { problem: `has no host; expected such as ${example}` }
  if (url.search !== '' || url.hash !== '' || url.href.includes('?') || url.href.includes('#'))
    return {
      problem: `holds a query or a fragment; give the address ${words.subject} is served at, such as ${example} (${VERSION_PATH} and ${STATUS_PATH} are asked below it)`,
    }
  const base = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`
  return {
    url,
    ...(credentials ? { credentials } : {}),
    shown: base,
    versionUrl: new URL(`${base}/${VERSION_PATH}`),
    statusUrl: new URL(`${base}/${STATUS_PATH}`),
    ...(credentials
      ? { authorization: `Basic ${basicAuth(credentials.user, credentials.password)}` }
      : {}),
    insecure: url.protocol === 'http:' && !isLoopbackHost(url.hostname),
  }
}

/** The address of a file the app serves, `path` being below its root (see isServedPath). */
export function fileUrl(target: AppTarget, path: string): URL {
  return new URL(`${target.shown}/${path}`)
}

/** The warning for plain http to another machine: the app answers, but anyone on the way reads it. */
export function insecureAppWarning(
  target: AppTarget,
  input: 'app-url' | 'preview-url' = 'app-url',
): string | undefined {
  if (!target.insecure) return undefined
  const secret = target.authorization
    ? ', and its user name and password travel in clear: use https:// for a protected app'
    : ''
  return `'${input}' is a plain http:// address (${target.shown}): the answers of the app can be read or changed on the way${secret}.`
}
