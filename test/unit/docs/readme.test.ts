// The README is the front door: short, one workflow per action, and the two commands that set up
// a fresh machine, the second being what CI runs.
import { expect, test } from '@jest/globals'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ACTION_DEFINITIONS } from '../../../src/core/action-list.js'
import { ROOT } from '../../helpers/run-action.js'
import { expectToSay } from '../../helpers/assertions.js'

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')

test('the README has at most 350 lines', () => {
  expect(read('README.md').split('\n').length).toBeLessThanOrEqual(350)
})

test('the README shows the two commands of a fresh machine, and CI runs the second', () => {
  const readme = read('README.md')
  expect(readme).toMatch(/^npm ci && npm run demo\b/m)
  expect(readme).toMatch(/^bash \.ci\/setup\.sh && npm ci && npm test\b/m)
  const run = read('.ci/run')
  expect(run.split('\n').filter((line) => /^(bash|npm) /.test(line))).toEqual([
    'bash .ci/setup.sh',
    'npm ci --no-audit --no-fund',
    'npm test',
  ])
})

test.each(ACTION_DEFINITIONS.map(({ id }) => id))(
  'the README gives %s a workflow, pinned to @v1, and links its guide',
  (id) => {
    const readme = read('README.md')
    expectToSay(
      readme,
      `uses: your-org/olympe-deploy-actions/actions/${id}@v1\n`,
      `](docs/${id}.md)`,
    )
  },
)
