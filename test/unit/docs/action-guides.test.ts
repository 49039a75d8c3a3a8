// Every input and output of every action is documented exactly once as the action's: in a table
// the generator writes into the action's guide, docs/<action>.md, and in no other document
// (gitlab/README.md's generated tables are the GitLab templates' `spec: inputs`, in GitLab's terms).
import { describe, expect, test } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ACTION_DEFINITIONS } from '../../../src/core/action-list.js'
import { MAX_PARALLEL_BUILDS } from '../../../src/core/build-images/build.js'
import { DOCUMENTS, firstCells, generatedRegions } from '../../helpers/markdown.js'
import { ROOT } from '../../helpers/run-action.js'
import { expectToSay } from '../../helpers/assertions.js'

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')

/** Where each generated region is, by key: `deploy inputs` → ['docs/deploy.md']. */
function regionHomes(): Map<string, string[]> {
  const homes = new Map<string, string[]>()
  for (const document of DOCUMENTS)
    for (const { key } of generatedRegions(read(document)))
      homes.set(key, [...(homes.get(key) ?? []), document])
  return homes
}

describe.each(ACTION_DEFINITIONS.map((definition) => [definition.id, definition] as const))(
  '%s',
  (id, definition) => {
    test.each(['inputs', 'outputs'] as const)(
      'its %s are one generated table, in its guide only, one row each in the definition’s order',
      (part) => {
        expect(regionHomes().get(`${id} ${part}`)).toEqual([`docs/${id}.md`])
        const region = generatedRegions(read(`docs/${id}.md`)).find(
          ({ key }) => key === `${id} ${part}`,
        )
        expect(firstCells(region?.content ?? '')).toEqual(
          Object.keys(definition[part]).map((name) => `\`${name}\``),
        )
      },
    )

    test('its folder’s README is generated and points to its guide', () => {
      const readme = read(`actions/${id}/README.md`)
      expectToSay(readme, `# ${definition.name}\n`, `[docs/${id}.md](../../docs/${id}.md)`)
    })
  },
)

test('no document but the guides holds a table of an action’s inputs or outputs', () => {
  const keys = ACTION_DEFINITIONS.flatMap(({ id }) => [`${id} inputs`, `${id} outputs`])
  const elsewhere = [...regionHomes()].filter(
    ([key, homes]) => keys.includes(key) && homes.some((home) => !home.startsWith('docs/')),
  )
  expect(elsewhere).toEqual([])
  // The README stays a front door: no generated table at all.
  expect(generatedRegions(read('README.md'))).toEqual([])
})

test('the table check reads body rows only', () => {
  const table = ['| Input | Description |', '| --- | --- |', '| `a` | x |', '| `b` | y |'].join(
    '\n',
  )
  expect(firstCells(table)).toEqual(['`a`', '`b`'])
})

test('the build-images guide states the bound on side-by-side builds that the step holds', () => {
  const guide = read('docs/build-images.md')
  expect(guide).toContain(`at most ${MAX_PARALLEL_BUILDS} at once (see [Several backends]`)
  expect(guide).toContain(`**Side by side, at most ${MAX_PARALLEL_BUILDS} at once.**`)
})
