import { expect } from '@jest/globals'

/**
 * What a user reads in a log or a message: each of `lines` appears as written, in `said` (a text,
 * where it may be part of a line) or among `said`'s lines (a list, where it is one of them). A
 * failure names the first one missing, with all that was said, as `toContain` does.
 */
export function expectToSay(
  said: string | readonly string[] | undefined,
  ...lines: readonly string[]
): void {
  for (const line of lines) expect(said).toContain(line)
}
