/**
 * GitHub keeps at most 1 MiB of summary per step, and drops all of it beyond that; a little is
 * left for the failure summary that may follow ours.
 */
export const MAX_SUMMARY_BYTES = 1024 * 1024 - 16 * 1024

/** The summary whole when it fits, else its start and a note that says it was cut. */
export function boundSummary(text: string, maxBytes = MAX_SUMMARY_BYTES): string {
  const bytes = Buffer.byteLength(text)
  if (bytes <= maxBytes) return text
  const note = `\n\n(Summary cut here: it was ${bytes} bytes, more than the ${maxBytes} a step summary may hold.)\n`
  const kept = Buffer.from(text).subarray(0, maxBytes - Buffer.byteLength(note))
  // A character split by the cut decodes as U+FFFD: drop it.
  return `${kept.toString('utf8').replace(/\uFFFD+$/, '')}${note}`
}
