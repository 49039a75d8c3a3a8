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

  test('toolkit-timeout-minutes takes decimals: a short timeout is a real setting, not a backdoor', () => {
    expect(parse({ 'toolkit-timeout-minutes': '0.5' }).toolkitTimeoutMinutes).toBe(0.5)
    expect(parse({ 'toolkit-timeout-minutes': '90' }).toolkitTimeoutMinutes).toBe(90)
  })

  test('defaults', () => {
    expect(parse({})).toEqual({
      config: 'res/snapshot-config.json',
      toolkitCommand: ['npx', 'olympe', 'snapshot'],
      toolkitTimeoutMinutes: 60,
      pushAttempts: 3,
      dryRun: false,
      checkOnly: false,
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
    [
      { 'toolkit-timeout-minutes': '0' },
      "Invalid input 'toolkit-timeout-minutes' '0': expected a number of minutes above 0 and up to 1440, such as 60 (decimals allowed: 0.5 is 30 seconds).",
    ],
    [{ 'toolkit-timeout-minutes': '1e3' }, 'expected a number of minutes above 0'],
    [{ 'toolkit-timeout-minutes': '1441' }, 'and up to 1440'],
    [{ 'toolkit-timeout-minutes': '-5' }, 'expected a number of minutes above 0'],
  ])('%j', (given, message) => {
    expect(() => parse(given)).toThrow(message)
  })

  test('the password is never quoted in a message', () => {
    expect(() => parse({ 'draw-password': 'hunter2', 'push-attempts': 'x' })).not.toThrow('hunter2')
  })
})
