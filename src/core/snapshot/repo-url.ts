import { unique } from '../shared/collections.js'
import type { RemoteRepo } from './ports.js'
import { isLoopbackHost } from '../shared/loopback.js'

export const REPO_EXPECTED =
  "expected 'https://<token>@<host>/<path>.git' (the access token in the user part, or '<user>:<token>@')"

/**
 * Takes the credentials out of a `git.repo` URL: git is given the bare URL, and the user part
 * travels as an `Authorization: Basic` header, exactly what git itself would have sent for the
 * URL (user, colon, password; an empty password when only a token is given).
 */
export function parseRepoUrl(raw: string): RemoteRepo | { problem: string } {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { problem: `is not a URL; ${REPO_EXPECTED}` }
  }
  const shown = displayUrl(url)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    const why =
      url.protocol === 'http:'
        ? 'plain http:// would send the token in clear (it is accepted only for a loopback host)'
        : `the scheme '${url.protocol.replace(/:$/, '')}' is not supported`
    return { problem: `'${shown}': ${why}; ${REPO_EXPECTED}` }
  }
  if (url.username === '') {
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
  let user: string
  let password: string
  try {
    user = decodeURIComponent(url.username)
    password = decodeURIComponent(url.password)
  } catch {
    return { problem: `'${shown}' has a badly percent-encoded user part; ${REPO_EXPECTED}` }
  }
  const basic = Buffer.from(`${user}:${password}`).toString('base64')
  const token = password === '' ? user : password
  return {
    url: `${url.protocol}//${url.host}${url.pathname}`,
    display: shown,
    authorization: `Basic ${basic}`,
    secrets: unique([token, url.password, url.username, basic].filter((s) => s !== '')).filter(
      (secret) => password === '' || (secret !== user && secret !== url.username),
    ),
  }
}

/** The form every message uses: `https://***@host/path`, whatever the user part held. */
export function displayUrl(url: URL): string {
  const credentials = url.username || url.password ? '***@' : ''
  return `${url.protocol}//${credentials}${url.host}${url.pathname}`
}

/**
 * Every credential-looking user part in a text (`scheme://user:token@host`), to register as
 * secrets before anything from that text can reach a message, even when it is not valid JSON.
 */
export function credentialsInText(text: string): string[] {
  const found: string[] = []
  for (const match of text.matchAll(/[a-z][a-z0-9+.-]*:\/\/([^\s/@"'<>]+)@/gi)) {
    const userInfo = match[1] ?? ''
    if (userInfo.includes('${')) continue
    const colon = userInfo.indexOf(':')
    const parts = colon < 0 ? [userInfo] : [userInfo.slice(colon + 1), userInfo]
    for (const part of parts) found.push(part, safeDecode(part))
  }
  return unique(found.filter((part) => part !== ''))
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
