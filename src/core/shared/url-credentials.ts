import type { SecretParts } from '../definition.js'
import { unique } from './collections.js'
import { basicAuth } from './http.js'
import type { Problem } from './problem.js'
import { percentDecoded } from './secrets.js'

/**
 * Credentials written into a URL (`scheme://user:password@host/…`), read one way wherever they
 * may be: the `git.repo` of a snapshot configuration, `app-url`, `webhook-url`, and any input
 * declared `secret: urlCredentials`. A password may hold characters that a URL parser reads as
 * the end of the user part ('/', '?', '#', '\'): the parser would then take part of it for the
 * host (`https://ci:4711/8833@app` is host `ci`, port 4711) or the path, and a message showing
 * the address would show that part. So the user part is split off by hand first, and runs from
 * `://` to the LAST '@' of the address, whatever it holds (the path cannot hold credentials: a
 * '@' there must be written '%40'). `%XX` escapes are decoded as git and browsers decode them.
 */

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//

/** `scheme://<user part>@<rest>`, split before any URL parsing (see above). */
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

/** A user part as written, split at its first ':' (a user name may hold none: git's rule). */
export function userAndPassword(userInfo: string): { user: string; password: string } {
  const colon = userInfo.indexOf(':')
  if (colon < 0) return { user: userInfo, password: '' }
  return { user: userInfo.slice(0, colon), password: userInfo.slice(colon + 1) }
}

/** The user part of an address, as written and percent-decoded. */
export interface UrlCredentials {
  /** As written between `://` and the last '@'. */
  userInfo: string
  /** Decoded: the user name, or the token given alone. */
  user: string
  /** Decoded: '' when only a user name (a token) is given. */
  password: string
}

/** An address read by parseCredentialUrl: without its credentials, and them beside it. */
export interface CredentialUrl {
  /** The address without its user part: what may be shown, asked and linked to. */
  url: URL
  credentials?: UrlCredentials
}

/**
 * An absolute URL that may carry `user:password@`: undefined when the text is no URL at all (the
 * caller says what it expected), a problem when its user part holds what other tools would read
 * as the end of the host. The problem never quotes the user part.
 */
export function parseCredentialUrl(raw: string): CredentialUrl | Problem | undefined {
  const split = splitCredentials(raw)
  if (split === undefined) return undefined
  const { scheme, userInfo, rest } = split
  const ambiguous = [...AMBIGUOUS.keys()].filter((char) => userInfo?.includes(char))
  if (ambiguous.length > 0)
    return {
      problem: `holds ${ambiguous.map((char) => `'${char}'`).join(', ')} in its user name or password (before the '@'), where a URL parser reads the end of the host; write ${ambiguous.length === 1 ? 'it' : 'them'} percent-encoded (${ambiguous.map((char) => `'${char}' as ${AMBIGUOUS.get(char) ?? ''}`).join(', ')})`,
    }
  let url: URL
  try {
    // The credentials are out: whatever this parse does, no part of them is in it.
    url = new URL(`${scheme}://${rest}`)
  } catch {
    return undefined
  }
  if (userInfo === undefined) return { url }
  const { user, password } = userAndPassword(userInfo)
  const credentials = { userInfo, user: percentDecoded(user), password: percentDecoded(password) }
  return { url, credentials }
}

/** What other tools read as the end of a URL's host, and its percent-encoded form. */
const AMBIGUOUS = new Map([
  ['/', '%2F'],
  ['?', '%3F'],
  ['#', '%23'],
  ['\\', '%5C'],
])

/**
 * The forms of one user part that can leak: the password (or the token given alone), as
 * written and decoded, the whole user part, and the `Basic` value it makes, which is what git or
 * a browser sends. The user name beside a password is no secret, and masking it would hide every
 * word it is (`deploy`).
 */
export function credentialForms(userInfo: string): string[] {
  if (userInfo === '') return []
  const { user, password } = userAndPassword(userInfo)
  const secret = userInfo.includes(':') ? password : user
  const basic = basicAuth(percentDecoded(user), percentDecoded(password))
  const forms = [secret, percentDecoded(secret), userInfo, percentDecoded(userInfo), basic]
  return unique(forms.filter((form) => form !== '' && form !== `${user}:`))
}

/**
 * The credentials of every URL in a text, to mask before anything from that text can reach a
 * message, even when it does not parse: the text as one address, then each address in it. Linear
 * in the text: it is cut into words, each word into URLs at their '://', and the user part of
 * each is found with the rule of splitCredentials. `${NAME}` is a placeholder, not a secret: its
 * value is registered when it is read.
 */
export function credentialsInText(text: string): string[] {
  // The text as one address first: a password that holds a quote or a space is one word there.
  const found = formsUnlessPlaceholder(splitCredentials(text.trim())?.userInfo ?? '')
  for (const word of text.split(WORD_BREAK)) {
    const starts = schemeEnds(word)
    starts.forEach((start, index) => {
      // Up to the next URL's '://' only: each character is looked at once.
      const url = word.slice(start, starts[index + 1] ?? word.length)
      const at = url.lastIndexOf('@')
      if (at >= 0) found.push(...formsUnlessPlaceholder(url.slice(0, at)))
    })
  }
  return unique(found)
}

/** The forms of a user part written in a text, unless it is a `${NAME}` placeholder. */
export function formsUnlessPlaceholder(userInfo: string): string[] {
  return userInfo.includes('${') ? [] : credentialForms(userInfo)
}

/** The text with the user part of each URL in it replaced by `***`: what messages show. */
function withoutCredentials(text: string): string {
  return text
    .split(WORD_KEPT)
    .map((word) => {
      let shown = word
      const starts = schemeEnds(word)
      for (let index = starts.length - 1; index >= 0; index--) {
        const start = starts[index] ?? 0
        const url = shown.slice(start, starts[index + 1] ?? shown.length)
        const at = url.lastIndexOf('@')
        if (at >= 0) shown = `${shown.slice(0, start)}***${shown.slice(start + at)}`
      }
      return shown
    })
    .join('')
}

const WORD_BREAK = /[\s"'<>]+/
/** As WORD_BREAK, the breaks kept (split with a capture group). */
const WORD_KEPT = /([\s"'<>]+)/

/** Where the text after each `://` of a word starts. */
function schemeEnds(word: string): number[] {
  const ends: number[] = []
  for (let at = word.indexOf('://'); at >= 0; at = word.indexOf('://', at + 3)) ends.push(at + 3)
  return ends
}

/**
 * `secret: urlCredentials`, for every input that may carry `user:password@` in a URL (one
 * address or a list). Parse the input with parseCredentialUrl and keep its `credentials` in the
 * value (or in each item of a list): they are what is masked. A text that does not parse, or a
 * value that keeps none, is searched as a text; its credentials are masked all the same.
 */
export const urlCredentials: SecretParts = {
  said: 'credentials in its URL (user:password@)',
  parts: (value, raw) => {
    const kept = keptCredentials(value)
    return kept === undefined
      ? credentialsInText(raw)
      : unique(kept.flatMap((credentials) => credentialForms(credentials.userInfo)))
  },
  unparsed: (raw) => credentialsInText(raw),
  shown: withoutCredentials,
}

/** The credentials a parsed value keeps, or undefined when it is no value parseCredentialUrl made. */
function keptCredentials(value: unknown): UrlCredentials[] | undefined {
  const items: unknown[] = Array.isArray(value) ? value : [value]
  const found: UrlCredentials[] = []
  for (const item of items) {
    if (typeof item !== 'object' || item === null || !('url' in item)) return undefined
    const credentials = (item as CredentialUrl).credentials
    if (credentials) found.push(credentials)
  }
  return found
}
