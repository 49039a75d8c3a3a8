import { describe, expect, test } from '@jest/globals'
import { tableCell } from '../../../../src/core/shared/markdown.js'

describe('tableCell', () => {
  test('escapes the pipe that would end the cell and joins lines into one row', () => {
    expect(tableCell('a | b\nc')).toBe('a \\| b c')
  })
})
