import { describe, expect, test } from '@jest/globals'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { renderPerformance, type BenchResults } from '../../../../bench/report.js'
import { buildahCost, npxCost } from '../../../../scripts/render/bench-figures.js'
import { DOCUMENTS } from '../../../helpers/markdown.js'
import { ROOT } from '../../../helpers/run-action.js'

/** A measured figure: a size or a duration in a sentence about what was measured. */
const MEASURED =
  /\b(packed|tarball|cold|warm|npx|start-?up|loads?|bundles?|took|takes|measured|median)\b/i
const FIGURE = /\b\d+(?:[.,]\d+)?\s?(?:KB|kB|MB|ms|s)\b/

/** The text outside `<!-- BEGIN GENERATED: … -->` regions and code, as sentences. */
function handWrittenSentences(text: string): string[] {
  const outside = text.replace(
    /<!-- BEGIN GENERATED: [^>]*-->[\s\S]*?<!-- END GENERATED: [^>]*-->/g,
    '',
  )
  return (
    outside
      .replace(/```[\s\S]*?```/g, '')
      // Quoted messages and commands (`… took more than 250 ms …`) are program text, not measurements.
      .replace(/`[^`\n]*`/g, '')
      .split(/(?<=[.!?:])\s+|\n\s*\n/)
      .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
  )
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

  test("gitlab/README.md quotes npx's cost, and docs/performance.md every figure, as bench/results.json has them", async () => {
    const figures = JSON.parse(
      await readFile(join(ROOT, 'bench/results.json'), 'utf8'),
    ) as BenchResults
    const flat = async (path: string): Promise<string> =>
      (await readFile(join(ROOT, path), 'utf8')).replace(/\s+/g, ' ')
    expect(await flat('gitlab/README.md')).toContain(npxCost(figures))
    expect(await flat('docs/build-images.md')).toContain(buildahCost(figures))
    // Formatting pads the tables' cells and rules: compared without spaces, bars and dashes.
    const bare = (text: string): string => text.replace(/[\s|-]+/g, '')
    expect(bare(await flat('docs/performance.md'))).toContain(bare(renderPerformance(figures)))
  })

  test('a figure written by hand is found', () => {
    expect(
      handWrittenSentences('Intro.\n\nThe package is 171 KB packed, with no dependencies.').filter(
        (sentence) => FIGURE.test(sentence) && MEASURED.test(sentence),
      ),
    ).toEqual(['The package is 171 KB packed, with no dependencies.'])
  })
})
