import { describe, expect, test } from '@jest/globals'
import { ActionError, InputError } from '../../../../src/core/shared/errors.js'
import { withDefaults } from '../../../../src/core/definition.js'
import { snapshotDefinition } from '../../../../src/core/snapshot/definition.js'
import { parseSnapshotInputs, type SnapshotInputs } from '../../../../src/core/snapshot/inputs.js'
import {
  checkTempFolder,
  checkWorkingFolder,
  settingWarnings,
} from '../../../../src/core/snapshot/settings.js'

/** The inputs as the defaults give them (inputs.test.ts checks those), with `given` on top. */
const inputs = (given: Partial<SnapshotInputs>): SnapshotInputs => ({
  ...parseSnapshotInputs(withDefaults(snapshotDefinition, {})),
  ...given,
})

describe('what the toolkit does with the settings', () => {
  test('nothing to say about ordinary values', () => {
    expect(settingWarnings(inputs({ drawUsername: 'admin', drawPassword: 'S3cret-pass' }))).toEqual(
      [],
    )
  })

  test('an all-digit password: leading zeros are dropped (the value is never shown)', () => {
    const [warning] = settingWarnings(inputs({ drawPassword: '00123456' }))
    expect(warning).toBe(
      "'draw-password' is all digits; the toolkit reads such a value as a number (0042 becomes 42), so signing in fails when it starts with 0 or is very long. Give the platform user a password with a letter in it.",
    )
  })

  test.each<[Partial<SnapshotInputs>, string]>([
    [{ drawPassword: '"quoted pass"' }, "'draw-password' starts and ends with a quote"],
    [{ drawPassword: "'x'" }, 'the toolkit drops surrounding quotes'],
    [{ drawPassword: 'two words' }, "'draw-password' holds a space"],
    [{ drawUsername: '007' }, "'draw-username' '007' is all digits"],
    [{ drawUsername: '"bot"' }, `'draw-username' '"bot"' starts and ends with a quote`],
  ])('%j warns', (given, expected) => {
    expect(settingWarnings(inputs(given)).join('\n')).toContain(expected)
  })

  test('TLS on port 443 only: a remote orchestrator on any other port is a warning', () => {
    expect(settingWarnings(inputs({ orchestratorHost: 'orch.example.com' }))).toEqual([
      "The toolkit uses TLS only on port 443: on port 8080 it signs in to 'orch.example.com' in clear, so the password and the session token cross the network unencrypted. Use 'orchestrator-port: 443' (TLS), or reach the orchestrator through a tunnel to a loopback address.",
    ])
    expect(
      settingWarnings(inputs({ orchestratorHost: 'orch.example.com', orchestratorPort: 8443 }))[0],
    ).toContain('on port 8443 it signs in')
    for (const quiet of [
      { orchestratorHost: 'orch.example.com', orchestratorPort: 443 },
      { orchestratorHost: '127.0.0.1', orchestratorPort: 8080 },
      { orchestratorHost: '[::1]' },
      {},
    ])
      expect(settingWarnings(inputs(quiet))).toEqual([])
  })

  test('a space in the working folder, or in the temporary folder, is refused', () => {
    expect(() => checkWorkingFolder('/home/ci/my project')).toThrow(InputError)
    expect(() => checkWorkingFolder('/home/ci/my project')).toThrow(
      "Invalid input 'working-directory': the folder '/home/ci/my project' holds a space, and entries without git are written there: the toolkit writes to outputDir through a command line that it splits on spaces, so the path would be cut and the files written elsewhere, after the real outputDir was emptied.",
    )
    expect(() => checkWorkingFolder('/home/ci/project')).not.toThrow()
    expect(() => checkTempFolder('/tmp/a b/olympe-snapshot-1')).toThrow(ActionError)
    expect(() => checkTempFolder('/tmp/a b/olympe-snapshot-1')).toThrow(
      'Point TMPDIR (TEMP on Windows) at a folder without spaces.',
    )
  })
})
