/** Text made safe for one cell of a Markdown table: a `|` would end the cell, a newline the row. */
export const tableCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
