import { describe, expect, test } from '@jest/globals'
import { withDefaults } from '../../../../src/core/definition.js'
import {
  snapshotDefinition,
  type SnapshotInputName,
} from '../../../../src/core/snapshot/definition.js'
import { parseSnapshotInputs } from '../../../../src/core/snapshot/inputs.js'

describe('snapshot inputs', () => {
  const parse = (
    given: Partial<Record<SnapshotInputName, string>>,
  ): ReturnType<typeof parseSnapshotInputs> =>
    parseSnapshotInputs(withDefaults(snapshotDefinition, given))

  test('defaults', () => {
    expect(parse({})).toEqual({
      config: 'res/snapshot-config.json',
      toolkitCommand: ['npx', 'olympe', 'snapshot'],
      pushAttempts: 3,
      dryRun: false,
    })
  })

  test.each<[Partial<Record<SnapshotInputName, string>>, string]>([
    [
      { 'orchestrator-port': '0' },
      "Invalid input 'orchestrator-port' '0': expected a port number from 1 to 65535",
    ],
    [{ 'orchestrator-host': 'https://orch.example.com' }, 'expected a host name without a scheme'],
    [
      { 'git-user-email': 'not an email' },
      "Invalid input 'git-user-email' 'not an email': expected an e-mail address",
    ],
    [{ 'git-user-name': 'Bot <x>' }, "cannot hold '<'"],
    [{ 'push-attempts': '0' }, 'expected a whole number from 1 to 10'],
    [{ 'toolkit-command': 'npx "olympe' }, 'has an unclosed " quote'],
    [{ 'dry-run': 'yes' }, "expected 'true' or 'false'"],
  ])('%j', (given, message) => {
    expect(() => parse(given)).toThrow(message)
  })

  test('the password is never quoted in a message', () => {
    expect(() => parse({ 'draw-password': 'hunter2', 'push-attempts': 'x' })).not.toThrow('hunter2')
  })
})
