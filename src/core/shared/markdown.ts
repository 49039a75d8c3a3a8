/** Text made safe for one cell of a Markdown table: no column break, no line break. */
export function tableCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')
}
