import type { SecretParts } from '../definition.js'
import { unique } from '../shared/collections.js'
import { percentDecoded } from '../shared/secrets.js'
import { credentialsInText } from '../shared/url-credentials.js'

/**
 * `webhook-url` is secret whole, and so are the parts of it that can leak alone, read from the
 * address its parser returned (see webhookUrlSecrets); a text it refused is searched for
 * credentials, and is never quoted.
 */
export const webhookUrlParts: SecretParts<URL> = {
  whole: true,
  said: 'a secret',
  parts: (url) => webhookUrlSecrets(url),
  unparsed: (raw) => credentialsInText(raw),
  shown: () => '***',
}

/**
 * The parts of the webhook URL that can leak alone, each as written in the URL and
 * percent-decoded (a server may echo either): the whole address, the user part, query values,
 * the fragment, and path segments that look like tokens (hooks.example/deploy/<token>).
 * Ordinary words (`deploy`, `hooks`, `api`, `v1`) are not masked: masking them everywhere would
 * garble every log line that holds them, while the whole path, which no log line holds by
 * chance, is masked as one.
 */
export function webhookUrlSecrets(url: URL): string[] {
  const parts = [url.href, ...bothForms(url.username), ...bothForms(url.password)]
  const path = url.pathname
  if (path.length >= MIN_PATH_LENGTH) parts.push(...bothForms(path))
  const rest = `${url.search}${url.hash}`
  if (rest.length > 1) parts.push(...bothForms(`${path}${rest}`), ...bothForms(rest))
  const segments = path.split('/')
  const values = [...url.search.slice(1).split('&').map(queryValue), url.hash.slice(1)]
  for (const part of [...segments, ...values])
    for (const form of bothForms(part)) if (looksLikeToken(form)) parts.push(form)
  return unique(parts).filter((part) => part.length >= MIN_URL_PART_LENGTH)
}

/** Shorter parts of the URL are left out: they would match inside ordinary text. */
const MIN_URL_PART_LENGTH = 4
/** A path such as `/hooks` alone is no secret; `/hooks/deploy` is the URL's own. */
const MIN_PATH_LENGTH = 8

/**
 * A token, as opposed to a word: at least 8 characters that mix letters with digits or with
 * other characters (`5e6f7a8b9c0d`, `s3cr3t-k3y`, `pa$$word`), or at least 20 of any kind
 * (a long random string of letters). `deploy`, `webhooks`, `api-v1` and `v2` are words.
 */
export function looksLikeToken(part: string): boolean {
  if (part.length >= 20) return true
  if (part.length < 8) return false
  const letters = /[A-Za-z]/.test(part)
  const digits = /[0-9]/.test(part)
  const symbols = /[^A-Za-z0-9._~-]/.test(part)
  return (letters && digits) || symbols
}

function queryValue(pair: string): string {
  const equals = pair.indexOf('=')
  return equals === -1 ? pair : pair.slice(equals + 1)
}

/** As written in the URL, and percent-decoded (`+` in a query is a space too). */
function bothForms(part: string): string[] {
  const forms = [part, percentDecoded(part), percentDecoded(part.replace(/\+/g, ' '))]
  return unique(forms).filter((form) => form !== '')
}
