import { randomBytes } from 'node:crypto'

/**
 * The GitHub runner reads every line a step prints as a possible workflow command: `::name::data`
 * once leading white space is trimmed, or the older `##[name]data` anywhere in the line (the
 * runner's ActionCommand.TryParseV2 and TryParse), and a line ends at \n, \r\n or a lone \r.
 * The runner compares culture-sensitively, so invisible characters (zero-width, format, control,
 * combining) are skipped here as it may skip them. This errs towards yes: a false alarm only
 * costs two extra log lines.
 */
export function couldBeCommand(text: string): boolean {
  return text.split(/\r\n|\r|\n/).some((line) => {
    const visible = line.replace(/[\s\u0085\p{C}\p{M}]/gu, '')
    return visible.startsWith('::') || visible.includes('##[')
  })
}

/**
 * Untrusted text (a child's output, a response body, a config name) as the runner should show
 * it: as is when no line of it could be a command, otherwise between `::stop-commands::<token>`
 * and `::<token>::`, so that the runner prints it without running it. The token is random, so
 * the text cannot end the pause itself.
 */
export function guardCommands(text: string, token?: string): string {
  if (!couldBeCommand(text)) return text
  const pause = token ?? newToken(text)
  return `::stop-commands::${pause}\n${text}\n::${pause}::`
}

function newToken(text: string): string {
  for (;;) {
    const token = randomBytes(16).toString('hex')
    if (!text.toLowerCase().includes(token)) return token
  }
}
