/** What a server's text may take up in one message, unless the caller allows more. */
export const UNTRUSTED_TEXT_CHARS = 200

/**
 * Characters that change how a log is read rather than what it says: C0 and C1 controls (line
 * breaks, carriage returns, ESC for terminal and GitLab section sequences), DEL, the line and
 * paragraph separators, and the bidirectional marks, overrides and isolates.
 */
const UNSAFE = /^[\p{Cc}\p{Zl}\p{Zp}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]$/u

/**
 * Text a server sent (an error code, a response body, a header), made safe to show inside one
 * line of a log or a message: each unsafe character (see UNSAFE, and lone surrogates) escaped as
 * `\xNN` up to U+00FF and `\uNNNN` above, printable Unicode kept as it is, and the result cut
 * after at most `maxChars` characters with `… (cut)`, never inside an escape or a character.
 * The one place such text is made printable.
 */
export function untrustedText(text: string, maxChars = UNTRUSTED_TEXT_CHARS): string {
  let shown = ''
  for (const char of text) {
    const piece = isUnsafe(char) ? escaped(char) : char
    if (shown.length + piece.length > maxChars) return `${shown}… (cut)`
    shown += piece
  }
  return shown
}

function isUnsafe(char: string): boolean {
  // A code point iteration yields a surrogate alone only when it has no partner.
  return UNSAFE.test(char) || (char.length === 1 && /[\ud800-\udfff]/.test(char))
}

function escaped(char: string): string {
  const code = char.charCodeAt(0)
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * A message as the command line prints it (GitLab has no other guard): line breaks and tabs kept,
 * every other unsafe character escaped (see UNSAFE), so that no text, ours or a tool's, can move
 * the cursor, hide a line or open a GitLab section of its own. Not bounded: a tool's line is shown
 * whole.
 */
export function printableLines(text: string): string {
  let shown = ''
  for (const char of text)
    shown += char !== '\n' && char !== '\t' && isUnsafe(char) ? escaped(char) : char
  return shown
}
