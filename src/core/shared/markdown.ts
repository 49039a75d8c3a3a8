/** Text made safe for one cell of a Markdown table: a `|` would end the cell, a newline the row. */
export function tableCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')
}
