import { basicAuth } from '../shared/http.js'
import { isLoopbackHost } from '../shared/loopback.js'
import type { Problem } from '../shared/problem.js'
import { percentDecoded } from '../shared/secrets.js'
import {
  credentialForms,
  formsUnlessPlaceholder,
  splitCredentials,
  userAndPassword,
} from '../shared/url-credentials.js'
import type { RemoteRepo } from './ports.js'

export const REPO_EXPECTED =
  "expected 'https://<token>@<host>/<path>.git' (the access token in the user part, or '<user>:<token>@')"

/** Longer than any real repository URL with its token; it keeps every check short. */
export const REPO_URL_MAX = 2048

/**
 * Takes the credentials out of a `git.repo` URL: git is given the bare URL, and the user part
 * travels as an `Authorization: Basic` header, exactly what git itself would have sent for the
 * URL (user, colon, password; an empty password when only a token is given).
 */
export function parseRepoUrl(raw: string): RemoteRepo | Problem {
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
  const { user, password } = userAndPassword(userInfo)
  // As git decodes them (see percentDecoded).
  const header = basicAuth(percentDecoded(user), percentDecoded(password))
  return { authorization: `Basic ${header}`, secrets: credentialForms(userInfo) }
}

/** The user part of a `git.repo` value, whatever else is wrong with it. */
export function repoCredentials(raw: string): string[] {
  return formsUnlessPlaceholder(splitCredentials(raw)?.userInfo ?? '')
}
