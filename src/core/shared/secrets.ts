import { inputNames, isWholeSecret, type ActionDefinition, type RawInputs } from '../definition.js'
import { unique } from './collections.js'

/**
 * Below this length a secret cannot be masked everywhere without hiding ordinary text (a
 * three-letter token would mask every word that holds those letters): it is masked only where
 * it stands alone (see Redactor), and the platform warns about it.
 */
export const MIN_SECRET_LENGTH = 6

/**
 * The `password` of each `user:password@` that starts a value, a line or a word, without a
 * scheme (`ci:<password>@ghcr.io`): a registry or an image written with its credentials. With a
 * scheme, see credentialsInText.
 */
export function embeddedPasswords(value: string): string[] {
  // Not `name:tag@sha256:…`: a digest is no host.
  const found = value.matchAll(/(?:^|\s)[^\s/@:]*:([^\s/@]+)@(?!sha(?:256|384|512):)/gm)
  return [...found].map((match) => match[1] ?? '').filter((password) => password !== '')
}

/** The secret inputs whose value is too short to mask everywhere (see MIN_SECRET_LENGTH). */
export function shortSecretInputs<I extends string>(
  definition: ActionDefinition<I>,
  raw: Partial<RawInputs<I>>,
): I[] {
  return inputNames(definition).filter((name) => {
    const value = (raw[name] ?? '').trim()
    return isWholeSecret(definition.inputs[name]) && value !== '' && isShortSecret(value)
  })
}

export function isShortSecret(secret: string): boolean {
  return secret.trim().length < MIN_SECRET_LENGTH
}

/**
 * The forms in which a secret leaks besides itself: trimmed, URL-encoded and URL-decoded, each
 * upper- and lower-cased (a tool that shouts, a case-insensitive header), and base64 (basic
 * auth, a docker config, a `Location` header) at each of the three alignments it can have
 * inside a longer encoded text. A short secret has only its raw forms: its encodings would be
 * as short, and masking them would hide ordinary text.
 */
export function leakForms(secret: string): string[] {
  const trimmed = secret.trim()
  if (trimmed === '') return []
  if (isShortSecret(secret)) return unique([secret, trimmed])
  const texts = unique([secret, trimmed, encodeURIComponent(trimmed), percentDecoded(trimmed)])
  const cased = texts.flatMap((text) => [text, text.toUpperCase(), text.toLowerCase()])
  const encoded = base64Forms(trimmed).flatMap((form) => [form, base64url(form)])
  return unique([...cased, ...encoded]).filter(
    (form) => form === secret || form.length >= MIN_SECRET_LENGTH,
  )
}

/**
 * The text percent-decoded as git decodes a URL's user part: each run of %XX escapes that is valid
 * UTF-8 is decoded, anything else (a lone '%', a malformed run) stays as it is.
 */
export function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (sequence) => {
    try {
      return decodeURIComponent(sequence)
    } catch {
      return sequence
    }
  })
}

/**
 * The base64 characters that depend only on the secret's bytes, for each byte offset (0, 1, 2
 * modulo 3) at which it can start inside a longer encoded text (`base64("user:" + password)`):
 * characters shared with the bytes before or after it, and `=` padding, are left out.
 */
export function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8')
  return [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64')
    const first = Math.ceil((offset * 8) / 6)
    const end = Math.floor(((offset + bytes.length) * 8) / 6)
    return encoded.slice(first, end)
  })
}

function base64url(form: string): string {
  return form.replace(/\+/g, '-').replace(/\//g, '_')
}
