// Every relative link and anchor a reader can follow in the documentation leads somewhere, with
// anchors computed as GitHub computes them (github-slugger).
import { describe, expect, test } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  anchorsOf,
  brokenLinks,
  DOCUMENTS,
  linksOf,
  linksOutOf,
  type BrokenLink,
} from '../../helpers/markdown.js'
import { withCleanup } from '../../helpers/cleanup.js'
import { ROOT } from '../../helpers/run-action.js'

describe('links in the documentation', () => {
  test.each(DOCUMENTS)('every relative link and anchor of %s resolves', (document) => {
    expect(brokenLinks(ROOT, document)).toEqual([])
  })

  // The CI/CD catalog project gets gitlab/README.md as its README, without the rest of this
  // repository (.ci/catalog-layout.mjs): a link out of gitlab/ would lead nowhere there.
  test('gitlab/README.md links nothing outside gitlab/, as the catalog project has nothing else', () => {
    expect(linksOutOf(ROOT, 'gitlab/README.md', 'gitlab')).toEqual([])
  })

  test('the README links every guide in docs/', () => {
    const guides = DOCUMENTS.filter((path) => path.startsWith('docs/'))
    const linked = linksOf(readme()).map((link) => link.split('#')[0])
    expect(guides.filter((guide) => !linked.includes(guide))).toEqual([])
  })
})

describe('the link check itself', () => {
  test('anchors are GitHub’s: lower case, code and punctuation dropped, repeats numbered', () => {
    const text = [
      '# Deploy',
      '## `SOURCES_PATH` must be declared',
      '## Environments, promotion and rollback',
      '## Publishing to the CI/CD catalog',
      '### `snapshot`',
      '## Inputs',
      '## Inputs',
      '```sh',
      '# not a heading',
      '```',
    ].join('\n')
    expect([...anchorsOf(text)]).toEqual([
      'deploy',
      'sources_path-must-be-declared',
      'environments-promotion-and-rollback',
      'publishing-to-the-cicd-catalog',
      'snapshot',
      'inputs',
      'inputs-1',
    ])
  })

  test('finds a missing file, a missing anchor and a link out of a folder; ignores code and URLs', async () => {
    await withCleanup(async (cleanup) => {
      const root = await cleanup.tempDir('olympe-links-')
      await mkdir(join(root, 'docs'))
      await mkdir(join(root, 'gitlab'))
      await writeFile(join(root, 'docs/guide.md'), '# Guide\n\n## Inputs\n')
      await writeFile(
        join(root, 'README.md'),
        [
          '# Front door',
          '[ok](docs/guide.md#inputs), [here](#front-door), [web](https://example.com/x.md#nope)',
          '[gone](docs/gone.md), [no anchor](docs/guide.md#outputs), [self](#nowhere)',
          '`[in code](docs/code.md)`',
          '```md',
          '[in a block](docs/block.md)',
          '```',
        ].join('\n'),
      )
      await writeFile(join(root, 'gitlab/README.md'), '[up](../README.md), [here](#x)\n')
      const expected: BrokenLink[] = [
        {
          document: 'README.md',
          link: 'docs/gone.md',
          problem: "'docs/gone.md' does not exist in the repository",
        },
        {
          document: 'README.md',
          link: 'docs/guide.md#outputs',
          problem: "'docs/guide.md' has no heading whose anchor is '#outputs'",
        },
        {
          document: 'README.md',
          link: '#nowhere',
          problem: "'README.md' has no heading whose anchor is '#nowhere'",
        },
      ]
      expect(brokenLinks(root, 'README.md')).toEqual(expected)
      expect(linksOutOf(root, 'gitlab/README.md', 'gitlab')).toEqual(['../README.md'])
    })
  })
})

function readme(): string {
  return readFileSync(join(ROOT, 'README.md'), 'utf8')
}
