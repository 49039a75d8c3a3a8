import { describe, expect, test } from '@jest/globals'
import { normalizeOutputDir, overlaps } from '../../../../src/core/snapshot/paths.js'

describe('outputDir paths', () => {
  test.each<[string, string, string, boolean]>([
    ['same folder', 'snapshot/a', 'snapshot/a', true],
    ['nested', 'snapshot', 'snapshot/a', true],
    ['siblings', 'snapshot/a', 'snapshot/ab', false],
  ])('overlap: %s', (_name, a, b, expected) => {
    expect(overlaps(a, b)).toBe(expected)
    expect(overlaps(b, a)).toBe(expected)
  })

  test('outputDir normal form', () => {
    expect(normalizeOutputDir('./snapshot\\sales//x/')).toBe('snapshot/sales/x')
  })
})
