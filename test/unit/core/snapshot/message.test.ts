import { describe, expect, test } from '@jest/globals'
import { formatSnapshotDate, renderCommitMessage } from '../../../../src/core/snapshot/message.js'

// Local time, as the runner formats it: built from local fields so the test holds in any zone.
const MORNING = new Date(2026, 0, 5, 7, 8, 9)
const EVENING = new Date(2026, 11, 31, 23, 59, 58)

describe('commit message templating', () => {
  test.each<[string, Date, string]>([
    ['every field two digits', MORNING, '2026.01.05 07:08:09'],
    ['24-hour clock', EVENING, '2026.12.31 23:59:58'],
    ['midnight is 00', new Date(2026, 5, 1, 0, 0, 0), '2026.06.01 00:00:00'],
    ['noon is 12', new Date(2026, 5, 1, 12, 30, 0), '2026.06.01 12:30:00'],
  ])('date: %s', (_name, date, expected) => {
    expect(formatSnapshotDate(date)).toBe(expected)
  })

  test.each<[string, string, string, string]>([
    [
      'the documented example',
      'Snapshoted at {date} in {folder}',
      'snapshot/all',
      'Snapshoted at 2026.01.05 07:08:09 in snapshot/all',
    ],
    [
      'every occurrence, not only the first',
      '{date} {folder} / {date} {folder}',
      'out',
      '2026.01.05 07:08:09 out / 2026.01.05 07:08:09 out',
    ],
    ['no placeholder', 'Update code as data', 'out', 'Update code as data'],
    ['a folder holding $& is literal', 'in {folder}', 'a$&b', 'in a$&b'],
    ['a folder holding {date} is not expanded again', '{folder}', 'x{date}', 'x{date}'],
    ['other braces are kept', '{Date} {folders} {}', 'out', '{Date} {folders} {}'],
    [
      'multi-line messages',
      'Snapshot {date}\n\nFolder: {folder}',
      'out',
      'Snapshot 2026.01.05 07:08:09\n\nFolder: out',
    ],
  ])('%s', (_name, template, folder, expected) => {
    expect(renderCommitMessage(template, MORNING, folder)).toBe(expected)
  })
})
