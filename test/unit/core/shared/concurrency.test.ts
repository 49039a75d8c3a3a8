import { describe, expect, test } from '@jest/globals'
import { mapLimit } from '../../../../src/core/shared/concurrency.js'

describe('mapLimit', () => {
  test('never runs more than the limit at once, and keeps the order of the items', async () => {
    let running = 0
    let most = 0
    const results = await mapLimit([5, 1, 4, 2, 3, 0], 2, async (item) => {
      running++
      most = Math.max(most, running)
      for (let tick = 0; tick < item; tick++) await Promise.resolve()
      running--
      return item * 10
    })
    expect(results).toEqual([50, 10, 40, 20, 30, 0])
    expect(most).toBe(2)
  })

  test('no items: no call', async () => {
    expect(await mapLimit([], 4, () => Promise.reject(new Error('called')))).toEqual([])
  })
})
