import { describe, expect, test } from '@jest/globals'
import { boundSummary, MAX_SUMMARY_BYTES } from '../../../src/platform/summary-limit.js'

describe('boundSummary', () => {
  test('a summary that fits is written whole', () => {
    expect(boundSummary('### ok\n\n| a | b |\n')).toBe('### ok\n\n| a | b |\n')
  })

  test('GitHub keeps 1 MiB per step: a larger one is cut, with a note, under the limit', () => {
    const huge = `### big\n${'| r.io/shop/backend:1 | é |\n'.repeat(2_000_000)}`
    const cut = boundSummary(huge)
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(MAX_SUMMARY_BYTES)
    expect(MAX_SUMMARY_BYTES).toBeLessThan(1024 * 1024)
    expect(cut.startsWith('### big\n| r.io/shop/backend:1 | é |\n')).toBe(true)
    expect(cut).toMatch(
      new RegExp(
        `\\n\\n\\(Summary cut here: it was ${Buffer.byteLength(huge)} bytes, more than the ${MAX_SUMMARY_BYTES} a step summary may hold\\.\\)\\n$`,
      ),
    )
  })

  test('a character split by the cut is dropped, not garbled', () => {
    const cut = boundSummary('ééééé', 200)
    expect(cut).toBe('ééééé')
    const small = boundSummary('é'.repeat(200), 150)
    expect(small).not.toContain('\uFFFD')
  })
})
