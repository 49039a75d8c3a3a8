import { describe, expect, test } from '@jest/globals'
import { isInside } from '../../../../src/core/shared/workspace-file.js'

describe('isInside: a path under a folder, by its text', () => {
  test.each([
    ['the folder itself', '/w', true],
    ['a file in it', '/w/payload.json', true],
    ["a folder whose name starts with two dots ('..cache')", '/w/..cache/records.json', true],
    ['its parent', '/', false],
    ['a sibling', '/other/payload.json', false],
    ['a way out through ..', '/w/../other', false],
  ])('%s', (_, path, inside) => {
    expect(isInside('/w', path)).toBe(inside)
  })
})
