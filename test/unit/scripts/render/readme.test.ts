import { describe, expect, test } from '@jest/globals'
import { replaceBetweenMarkers } from '../../../../scripts/render/readme.js'

describe('replaceBetweenMarkers', () => {
  const doc = 'intro\n<!-- BEGIN GENERATED: x -->\nold\n<!-- END GENERATED: x -->\nafter\n'

  test('replaces only what lies between the markers', () => {
    expect(replaceBetweenMarkers(doc, 'x', 'new')).toBe(
      'intro\n<!-- BEGIN GENERATED: x -->\nnew\n<!-- END GENERATED: x -->\nafter\n',
    )
  })

  test('is stable: a second pass changes nothing', () => {
    const once = replaceBetweenMarkers(doc, 'x', 'new')
    expect(replaceBetweenMarkers(once, 'x', 'new')).toBe(once)
  })

  test('fails loudly when the markers are missing', () => {
    expect(() => replaceBetweenMarkers('no markers', 'x', 'new')).toThrow(
      "README.md lacks the markers for 'x'.",
    )
  })
})
