/** What Markdown or HTML could read as markup outside a code span, each escaped with `\`. */
const MARKUP = /[\\`*_~[\]<>&!|]/g

/**
 * Text made safe for one line of Markdown (GitHub's job summary: a table cell, the heading, a
 * quoted note, a link's label), whoever wrote it: a line break would end the row or start a
 * block of its own, and becomes a space; outside code spans every character that
 * could start markup (emphasis, a link or an image, an HTML tag, an entity) is escaped, so that a
 * server's text shows as text; a code span (`` `ref` ``, which shows its content as it is) is kept,
 * with its `|` escaped as tables require. Spans are found as CommonMark finds them: a run of
 * backticks closes at the next run of the same length, and one that never closes is text.
 */
export function tableCell(text: string): string {
  const line = text.replace(/[\r\n]+/g, ' ')
  const runs = [...line.matchAll(/`+/g)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
  }))
  let shown = ''
  let position = 0
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i]
    if (!open || open.start < position) continue
    const width = open.end - open.start
    const close = runs.findIndex((run, j) => j > i && run.end - run.start === width)
    const span = close === -1 ? undefined : line.slice(open.start, runs[close]?.end)
    // A backslash before a pipe inside a span would undo the table's escape of that pipe.
    if (span === undefined || span.includes('\\|')) continue
    shown += escapeMarkup(line.slice(position, open.start)) + span.replace(/\|/g, '\\|')
    position = open.start + span.length
    i = close
  }
  return shown + escapeMarkup(line.slice(position))
}

function escapeMarkup(text: string): string {
  return text.replace(MARKUP, '\\$&')
}
