import { basicAuth } from '../registry/credentials.js'
import { unique } from '../shared/collections.js'
import { isLoopbackHost } from '../shared/loopback.js'
import { percentDecoded } from '../shared/secrets.js'
import type { RemoteRepo } from './ports.js'

export const REPO_EXPECTED =
  "expected 'https://<token>@<host>/<path>.git' (the access token in the user part, or '<user>:<token>@')"

/** Longer than any real repository URL with its token; it keeps every check short. */
export const REPO_URL_MAX = 2048

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//

/**
 * `scheme://<user part>@<rest>`, split by hand before any URL parsing. A token may hold
 * characters that a URL parser reads as the end of the user part ('#', '?', '\', '/'): the
 * parser would then take part of the token for the host (and lower-case it) or the path, and a
 * message showing the URL would show that part. So the user part runs to the LAST '@' of the
 * text, whatever it holds; a '@' in the repository path must be written '%40'.
 */
export function splitCredentials(
  raw: string,
): { scheme: string; userInfo?: string; rest: string } | undefined {
  const scheme = SCHEME.exec(raw)?.[1]
  if (scheme === undefined) return undefined
  const afterScheme = raw.slice(scheme.length + 3)
  const at = afterScheme.lastIndexOf('@')
  if (at < 0) return { scheme, rest: afterScheme }
  return { scheme, userInfo: afterScheme.slice(0, at), rest: afterScheme.slice(at + 1) }
}

/**
 * Takes the credentials out of a `git.repo` URL: git is given the bare URL, and the user part
 * travels as an `Authorization: Basic` header, exactly what git itself would have sent for the
 * URL (user, colon, password; an empty password when only a token is given).
 */
export function parseRepoUrl(raw: string): RemoteRepo | { problem: string } {
  const split = splitCredentials(raw)
  if (split === undefined) return { problem: `is not a URL; ${REPO_EXPECTED}` }
  const { scheme, userInfo, rest } = split
  const masked = userInfo === undefined ? '' : '***@'
  let url: URL
  try {
    // The credentials are out: whatever this parse and its messages do, no part of them is here.
    url = new URL(`${scheme}://${rest}`)
  } catch {
    return { problem: `'${scheme}://${masked}…' is not a valid URL; ${REPO_EXPECTED}` }
  }
  const shown = `${url.protocol}//${masked}${url.host}${url.pathname}`
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    const why =
      url.protocol === 'http:'
        ? 'plain http:// would send the token in clear (it is accepted only for a loopback host)'
        : `the scheme '${url.protocol.replace(/:$/, '')}' is not supported`
    return { problem: `'${shown}': ${why}; ${REPO_EXPECTED}` }
  }
  if (userInfo === undefined || userInfo === '' || userInfo.startsWith(':')) {
    return { problem: `'${shown}' carries no token; ${REPO_EXPECTED}` }
  }
  if (url.pathname === '/' || url.pathname === '') {
    return { problem: `'${shown}' names no repository path; ${REPO_EXPECTED}` }
  }
  if (url.search !== '' || url.hash !== '') {
    return {
      problem: `'${shown}' has a query or fragment, which git does not use; ${REPO_EXPECTED}`,
    }
  }
  return { url: `${url.protocol}//${url.host}${url.pathname}`, display: shown, ...auth(userInfo) }
}

/** The header git would send for this user part, and every form of it to mask. */
function auth(userInfo: string): Pick<RemoteRepo, 'authorization' | 'secrets'> {
  const colon = userInfo.indexOf(':')
  const rawUser = colon < 0 ? userInfo : userInfo.slice(0, colon)
  const rawPassword = colon < 0 ? '' : userInfo.slice(colon + 1)
  // As git decodes them (see percentDecoded).
  const user = percentDecoded(rawUser)
  const password = percentDecoded(rawPassword)
  const basic = basicAuth(user, password)
  const token = password === '' ? user : password
  const forms = password === '' ? [token, rawUser] : [token, rawPassword, userInfo]
  return {
    authorization: `Basic ${basic}`,
    secrets: unique([...forms, basic].filter((s) => s !== '')),
  }
}

/**
 * Every credential-looking user part in a text (`scheme://user:token@host`), to register as
 * secrets before anything from that text can reach a message, even when it is not valid JSON.
 * Linear in the text: it is cut into words, each word into URLs at their '://', and the user
 * part of each is found with the same last-'@' rule as parseRepoUrl.
 */
export function credentialsInText(text: string): string[] {
  const found: string[] = []
  for (const word of text.split(/[\s"'<>]+/)) {
    const starts = schemeEnds(word)
    starts.forEach((start, index) => {
      // Up to the next URL's '://' only: each character is looked at once.
      const url = word.slice(start, starts[index + 1] ?? word.length)
      const at = url.lastIndexOf('@')
      if (at >= 0) found.push(...credentialsOf(url.slice(0, at)))
    })
  }
  return unique(found)
}

/** Where the text after each `://` of a word starts. */
function schemeEnds(word: string): number[] {
  const ends: number[] = []
  for (let at = word.indexOf('://'); at >= 0; at = word.indexOf('://', at + 3)) ends.push(at + 3)
  return ends
}

/** The secret forms of one user part: the password (or the lone token), raw and decoded. */
export function credentialsOf(userInfo: string): string[] {
  // `${NAME}` is a placeholder: its value is registered when it is read.
  if (userInfo === '' || userInfo.includes('${')) return []
  const colon = userInfo.indexOf(':')
  const parts = colon < 0 ? [userInfo] : [userInfo.slice(colon + 1), userInfo]
  return unique(parts.flatMap((part) => [part, percentDecoded(part)]).filter((part) => part !== ''))
}

/** The user part of a `git.repo` value, whatever else is wrong with it. */
export function repoCredentials(raw: string): string[] {
  return credentialsOf(splitCredentials(raw)?.userInfo ?? '')
}
