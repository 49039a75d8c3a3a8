/** `yyyy.MM.dd HH:mm:ss`, 24-hour, every field two digits, in the runner's local time. */
export function formatSnapshotDate(date: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0')
  const day = `${date.getFullYear()}.${two(date.getMonth() + 1)}.${two(date.getDate())}`
  return `${day} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`
}

/**
 * Every `{date}` and every `{folder}` of the commit message is replaced (the toolkit replaced only the first
 * of each). Replacement by function, so that a folder holding `$&` is taken literally.
 */
export function renderCommitMessage(template: string, date: Date, folder: string): string {
  const formatted = formatSnapshotDate(date)
  return template.replace(/\{date\}/g, () => formatted).replace(/\{folder\}/g, () => folder)
}
