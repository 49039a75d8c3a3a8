import { describe, expect, test } from '@jest/globals'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { npxCost, type BenchFigures } from '../../../../scripts/render/bench-figures.js'
import { ROOT } from '../../../helpers/run-action.js'

/** The documents a user reads; CHANGELOG.md is history and may quote figures of its day. */
const DOCUMENTS = ['README.md', 'gitlab/README.md', 'SECURITY.md']

/** A measured figure: a size or a duration in a sentence about what was measured. */
const MEASURED =
  /\b(packed|tarball|cold|warm|npx|start-?up|loads?|bundles?|took|takes|measured|median)\b/i
const FIGURE = /\b\d+(?:[.,]\d+)?\s?(?:KB|kB|MB|ms|s)\b/

/** The text outside `<!-- BEGIN GENERATED: … -->` regions, as sentences. */
function handWrittenSentences(text: string): string[] {
  const outside = text.replace(
    /<!-- BEGIN GENERATED: [^>]*-->[\s\S]*?<!-- END GENERATED: [^>]*-->/g,
    '',
  )
  return outside
    .replace(/```[\s\S]*?```/g, '')
    .split(/(?<=[.!?:])\s+|\n\s*\n/)
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
}

describe('figures in the documents', () => {
  test.each(DOCUMENTS)(
    '%s states measured figures only in regions rendered from bench/results.json',
    async (path) => {
      const text = await readFile(join(ROOT, path), 'utf8')
      const stated = handWrittenSentences(text).filter(
        (sentence) => FIGURE.test(sentence) && MEASURED.test(sentence),
      )
      expect(stated).toEqual([])
    },
  )

  test("gitlab/README.md quotes npx's cost as bench/results.json has it", async () => {
    const figures = JSON.parse(
      await readFile(join(ROOT, 'bench/results.json'), 'utf8'),
    ) as BenchFigures
    const readme = await readFile(join(ROOT, 'gitlab/README.md'), 'utf8')
    expect(readme.replace(/\s+/g, ' ')).toContain(npxCost(figures))
  })

  test('a figure written by hand is found', () => {
    expect(
      handWrittenSentences('Intro.\n\nThe package is 171 KB packed, with no dependencies.').filter(
        (sentence) => FIGURE.test(sentence) && MEASURED.test(sentence),
      ),
    ).toEqual(['The package is 171 KB packed, with no dependencies.'])
  })
})
