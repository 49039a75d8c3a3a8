import { describe, expect, test } from '@jest/globals'
import {
  countChanges,
  listChanges,
  parseNameStatus,
} from '../../../../src/core/snapshot/changes.js'

describe('change detection', () => {
  test('name-status -z: added, modified, type change, deleted; paths with spaces and tabs', () => {
    const output = 'A\0out/a b.json\0M\0out/m.json\0T\0out/link\0D\0out/gone\t.json\0'
    const changes = parseNameStatus(output)
    expect(changes).toEqual([
      { kind: 'added', path: 'out/a b.json' },
      { kind: 'modified', path: 'out/m.json' },
      { kind: 'modified', path: 'out/link' },
      { kind: 'deleted', path: 'out/gone\t.json' },
    ])
    expect(countChanges(changes)).toEqual({ files: 4, added: 1, modified: 2, deleted: 1 })
  })

  test('nothing staged is no change', () => {
    expect(parseNameStatus('')).toEqual([])
  })

  test('an unknown status is a bug, not a silent skip', () => {
    expect(() => parseNameStatus('R100\0a\0')).toThrow("unexpected git status 'R100'")
  })

  test('long lists are cut', () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ kind: 'added' as const, path: `f${i}` }))
    const lines = listChanges(many)
    expect(lines).toHaveLength(51)
    expect(lines.at(-1)).toBe('  … and 10 more')
  })
})
