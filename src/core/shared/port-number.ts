/** The TCP ports a host name may be given with, as messages say it. */
export const PORT_RANGE = 'from 1 to 65535'

/** Whether `text` is a TCP port: digits only, from 1 to 65535. */
export function isPortNumber(text: string): boolean {
  const port = Number(text)
  return /^\d+$/.test(text) && port >= 1 && port <= 65535
}
