// Waiting, in a test, for what a server or another process does next.
import { expect } from '@jest/globals'

/**
 * Waits for a condition that must come soon: it is looked at again every 20 ms, and the test fails
 * (the condition expected true) if it still does not hold after about 30 s.
 */
export async function until(done: () => boolean): Promise<void> {
  for (let tries = 0; !done() && tries < 1500; tries++)
    await new Promise((resolve) => setTimeout(resolve, 20))
  expect(done()).toBe(true)
}
