import { describe, expect, test } from '@jest/globals'
import { replaceBetweenMarkers } from '../../../../scripts/render/readme.js'

describe('replaceBetweenMarkers', () => {
  const doc = 'intro\n<!-- BEGIN GENERATED: x -->\nold\n<!-- END GENERATED: x -->\nafter\n'

  test('replaces only what lies between the markers', () => {
    expect(replaceBetweenMarkers(doc, 'x', 'new', 'docs/x.md')).toBe(
      'intro\n<!-- BEGIN GENERATED: x -->\nnew\n<!-- END GENERATED: x -->\nafter\n',
    )
  })

  test('is stable: a second pass changes nothing', () => {
    const once = replaceBetweenMarkers(doc, 'x', 'new', 'docs/x.md')
    expect(replaceBetweenMarkers(once, 'x', 'new', 'docs/x.md')).toBe(once)
  })

  test('fails loudly, naming the document, when the markers are missing', () => {
    expect(() => replaceBetweenMarkers('no markers', 'x', 'new', 'docs/x.md')).toThrow(
      "docs/x.md lacks the markers for 'x'.",
    )
  })
})
