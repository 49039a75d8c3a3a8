import { expect } from '@jest/globals'

/** Shorter secrets are only looked for where they stand alone, not in a longer word (see the Redactor). */
const SHORT = 6

/**
 * The forms a secret takes when it leaks: as is, percent-encoded and percent-decoded (URLs),
 * upper- and lower-cased, escaped inside a JSON string (a payload, an output, a report) or a
 * GitHub workflow command (its message, or a property such as `title=`), and base64 (basic
 * auth, docker config, headers) at each of the three byte alignments it can have inside a
 * longer encoded text, in standard and URL-safe alphabets.
 * Written apart from src/core/shared/secrets.ts on purpose: the scan must not share its bugs.
 */
export function leakForms(secret: string): string[] {
  const trimmed = secret.trim()
  const escaped = [secret, trimmed].flatMap(escapedForms)
  if (trimmed.length < SHORT) return [...new Set([secret, trimmed, ...escaped])].filter(Boolean)
  const texts = [secret, trimmed, encodeURIComponent(trimmed), safeDecode(trimmed)]
  const cased = texts.flatMap((text) => [text, text.toUpperCase(), text.toLowerCase()])
  const encoded = [0, 1, 2].flatMap((shift) => {
    const fragment = alignedBase64(trimmed, shift)
    return [fragment, fragment.replace(/\+/g, '-').replace(/\//g, '_')]
  })
  return [...new Set([...cased, ...escaped, ...encoded])].filter((form) => form.length > 0)
}

/**
 * The text as a JSON string holds it (`"` and `\` escaped, control characters as `\n`,
 * `\u0001`…), and as a workflow command's message (`%`, CR and LF as `%25`, `%0D`, `%0A`) and
 * property value (`:` and `,` also, as `%3A` and `%2C`) hold it, which the runner shows decoded
 * but a log kept elsewhere (a GitLab job, a file) shows as written.
 */
function escapedForms(text: string): string[] {
  const data = text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
  const property = data.replace(/:/g, '%3A').replace(/,/g, '%2C')
  return [JSON.stringify(text).slice(1, -1), data, property]
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * The base64 of `secret` when `shift` bytes (mod 3) precede it, cut to the characters that
 * depend on its bytes alone: checked against a real encoding of prefix + secret + suffix.
 */
export function alignedBase64(secret: string, shift: number): string {
  const bytes = Buffer.from(secret)
  const encoded = Buffer.concat([Buffer.alloc(shift, 0x41), bytes]).toString('base64')
  const from = Math.ceil((shift * 8) / 6)
  const to = Math.floor(((shift + bytes.length) * 8) / 6)
  return encoded.slice(from, to)
}

/**
 * A PEM key and each line of its body, as secrets to scan for: a log shows one line at a time,
 * so a line may leak where the whole key never shows.
 */
export function keySecrets(key: string): string[] {
  return [key, ...key.split('\n').filter((line) => line !== '' && !line.startsWith('-----'))]
}

/**
 * Names a capture as GitLab's (`<GITLAB_LOG> …`): a job log, or a dotenv report that later jobs
 * read and anyone who may see the job may download. GitLab keeps every line as it is, so an
 * `::add-mask::` line there is a leak like any other.
 */
export const GITLAB_LOG = 'GitLab log:'

/**
 * `::add-mask::<value>` is the one line allowed to hold a secret where the GitHub runner reads
 * it: the runner consumes it and never shows it. Everything else a user, a log or an artifact
 * could see must be clean.
 */
export function visibleText(captured: string): string {
  return captured
    .split(/\r?\n/)
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n')
}

/** Where each form of each secret shows in the captured texts, as readable findings. */
export function findSecrets(
  captured: Record<string, string>,
  secrets: readonly string[],
): string[] {
  const leaks: string[] = []
  for (const [where, text] of Object.entries(captured)) {
    const visible = where.startsWith(GITLAB_LOG) ? text : visibleText(text)
    for (const secret of secrets.filter((s) => s.trim() !== '')) {
      for (const form of leakForms(secret)) {
        if (contains(visible, form, secret.trim().length < SHORT))
          leaks.push(`${where} holds a form of secret '${secret.slice(0, 3)}…': '${shown(form)}'`)
      }
    }
  }
  return leaks
}

export function expectNoSecrets(
  captured: Record<string, string>,
  secrets: readonly string[],
): void {
  expect(findSecrets(captured, secrets)).toEqual([])
}

function contains(text: string, form: string, aloneOnly: boolean): boolean {
  if (!aloneOnly) return text.includes(form)
  const escaped = form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?<![\\p{L}\\p{N}_-])${escaped}(?![\\p{L}\\p{N}_-])`, 'u').test(text)
}

/** A form cut short, so that the finding does not print the secret whole either. */
function shown(form: string): string {
  return form.length > 6 ? `${form.slice(0, 3)}…${form.slice(-2)}` : '…'
}
