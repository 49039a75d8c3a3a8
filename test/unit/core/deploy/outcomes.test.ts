import { describe, expect, test } from '@jest/globals'
import { deployDefinition } from '../../../../src/core/deploy/definition.js'
import {
  endingOf,
  outcomesTable,
  ROLLOUT_OUTCOMES,
  rolloutOutputDescription,
} from '../../../../src/core/deploy/outcomes.js'
import { EXIT_CODES } from '../../../../src/core/shared/exit-codes.js'

describe('the rollout outcomes, written once', () => {
  test('only live is green; awaiting a promotion and unverified are warnings; the rest fail', () => {
    expect(
      Object.keys(ROLLOUT_OUTCOMES).map((outcome) => [outcome, endingOf(outcome as never)]),
    ).toEqual([
      ['live', 'success'],
      ['unverified', 'warning'],
      ['awaiting-promotion', 'warning'],
      ['timed-out', 'failure'],
      ['rolled-back', 'failure'],
      ['not-watched', 'call'],
      ['cancelled', 'failure'],
    ])
  })

  test("the 'rollout' output's description names every value, from the one definition", () => {
    const description = deployDefinition.outputs.rollout.description
    expect(description).toBe(rolloutOutputDescription())
    for (const outcome of Object.keys(ROLLOUT_OUTCOMES))
      expect(description).toContain(`\`${outcome}\` (`)
    expect(description).toMatch(/Only `live` means that the new build serves\.$/)
  })

  test('the table: one row per outcome, the warning state with its exit code', () => {
    const rows = outcomesTable().split('\n')
    expect(rows).toHaveLength(2 + Object.keys(ROLLOUT_OUTCOMES).length)
    expect(rows[2]).toMatch(/^\| `live` \| .* \| succeeds \|$/)
    expect(rows[3]).toContain(`on GitLab exit code ${EXIT_CODES.notLive}`)
  })
})
