import { describe, expect, test } from '@jest/globals'
import { ActionError, CancelledError } from '../../../../src/core/shared/errors.js'
import type { Files } from '../../../../src/core/shared/ports.js'
import { Redactor } from '../../../../src/core/shared/redactor.js'
import type { SnapshotEntry } from '../../../../src/core/snapshot/config.js'
import type { ToolkitExit, ToolkitRunner } from '../../../../src/core/snapshot/ports.js'
import {
  exportEntry,
  hideSessionTokens,
  stripColours,
  toolkitEnv,
  type ToolkitSettings,
} from '../../../../src/core/snapshot/toolkit.js'
import { recordingLogger } from '../../../helpers/recording.js'
import { expectToSay } from '../../../helpers/assertions.js'

const RED = (text: string): string => `\u001b[31m${text}\u001b[39m`

const entry = (git = true): SnapshotEntry => ({
  name: 'sales',
  where: 'res/snapshot-config.json [0]',
  snapshooter: { name: 'sales', rootTags: ['01850a59bb68c324907a'], outputDir: 'snapshot/sales' },
  ...(git
    ? {
        git: {
          repo: {
            url: 'https://h/x.git',
            display: 'https://***@h/x.git',
            authorization: '',
            secrets: [],
          },
          branch: 'main',
          commitMessage: 'm',
        },
      }
    : {}),
})

const SETTINGS: ToolkitSettings = {
  argv: ['npx', 'olympe', 'snapshot'],
  env: { LOG_LEVEL: 'info' },
  tempDir: '/tmp/t',
  timeoutMinutes: 0.5,
}

/** Runs exportEntry against a toolkit that prints `lines` and ends as `exit` says. */
async function run(
  lines: string[],
  exit: Partial<ToolkitExit>,
  git = true,
): Promise<{
  log: string[]
  warnings: string[]
  error?: ActionError
  options?: Parameters<ToolkitRunner>[2]
}> {
  const redactor = new Redactor()
  const { logger, infos: log, warnings } = recordingLogger((line) => redactor.redact(line))
  let options: Parameters<ToolkitRunner>[2] | undefined
  const runToolkit: ToolkitRunner = (_command, _args, given) => {
    options = given
    for (const line of lines) given.onLine(line)
    return Promise.resolve({ code: 0, graceMs: 3000, ...exit })
  }
  const files = { writeText: () => Promise.resolve() } as unknown as Files
  try {
    await exportEntry(entry(git), 0, '/tmp/t/clones/clone-1', SETTINGS, {
      runToolkit,
      files,
      logger,
      redact: (text) => redactor.redact(text),
      registerSecret: (secret) => redactor.add(secret),
    })
    return { log, warnings, options }
  } catch (error) {
    return { log, warnings, error: error as ActionError, options }
  }
}

describe('running the toolkit for one entry', () => {
  test('LOG_LEVEL is info, debug only when the step itself runs in debug mode', () => {
    expect(toolkitEnv({ drawPassword: 'pw' }, false)).toEqual({
      LOG_LEVEL: 'info',
      DRAW_PASSWORD: 'pw',
    })
    expect(toolkitEnv({}, true)).toEqual({ LOG_LEVEL: 'debug' })
  })

  test('the timeout is given in milliseconds, with the entry file and the settings', async () => {
    const { options } = await run([], {})
    expect(options).toMatchObject({
      cwd: '/tmp/t/clones/clone-1',
      timeoutMs: 30_000,
      env: { LOG_LEVEL: 'info', SNAPSHOT_CONFIG: '/tmp/t/toolkit-config-1.json' },
    })
  })

  test('a session token is masked in its line and in every later one', async () => {
    const { log } = await run(
      [
        'debug: Login successful, creating token: rndCook=s3ss10n-T0ken',
        'debug: {"userName":"admin","rndCook":"0th3r-t0ken-42"}',
        'debug: reusing s3ss10n-T0ken and 0th3r-t0ken-42',
        'rndCook=ab is too short to mask everywhere',
      ],
      {},
    )
    expect(log.slice(1)).toEqual([
      'debug: Login successful, creating token: rndCook=***',
      'debug: {"userName":"admin","rndCook":"***"}',
      'debug: reusing *** and ***',
      'rndCook=*** is too short to mask everywhere',
    ])
    const registered: string[] = []
    hideSessionTokens('rndCook=abcdef; path=/', (secret) => registered.push(secret))
    expect(registered).toEqual(['abcdef'])
  })

  test('colour codes are kept in the log, stripped from the lines an error message keeps', async () => {
    const { log, error } = await run([`${RED('error')}: Snapshot failed: boom`], { code: 1 })
    expect(log).toContain(`${RED('error')}: Snapshot failed: boom`)
    expect(error?.message).toContain('Its last output:\n    error: Snapshot failed: boom\n')
    expect(error?.message).not.toContain('\u001b')
    expect(stripColours('\u001b]0;title\u0007\u001b[1;32mok\u001b[0m')).toBe('ok')
  })

  test('a missing parent of outputDir is named as such, not blamed on the credentials', async () => {
    const { error } = await run(
      [`${RED('error')}: ENOENT: no such file or directory, mkdir 'snapshot/sales'`],
      { code: 1 },
    )
    expect(error?.message).toContain(
      "The toolkit could not create outputDir 'snapshot/sales' because a parent folder is missing (it creates the last folder only).",
    )
    expect(error?.message).not.toContain('draw-password')
  })

  test.each<[string, string]>([
    ['error: Snapshot failed: Error: Invalid username or password', "check 'draw-username'"],
    ['error: connect ECONNREFUSED 10.0.0.5:8080', "check 'orchestrator-host'"],
    ['error: something else', "Check 'orchestrator-host', 'orchestrator-port', 'draw-username'"],
  ])('a failure saying %j gives the hint %j', async (line, hint) => {
    const { error } = await run([line], { code: 1 })
    expectToSay(
      error?.message,
      "The toolkit failed (exit code 1) exporting entry 'sales' (res/snapshot-config.json [0]), so nothing was committed or pushed.",
      hint,
    )
  })

  test('an entry without git: the message says outputDir may have been emptied', async () => {
    const { error } = await run(['error: Invalid username or password'], { code: 1 }, false)
    expect(error?.message).toContain(
      "The toolkit empties outputDir 'snapshot/sales' in the working directory before it signs in, so that folder may now be empty",
    )
  })

  test('stopped at the timeout: the step fails and says what was stopped and how', async () => {
    const { error } = await run(['info: Waiting for the orchestrator…'], {
      code: 1,
      stopped: { reason: 'timeout' },
    })
    expectToSay(
      error?.message,
      "The toolkit was still exporting entry 'sales' (res/snapshot-config.json [0]) after 0.5 minute(s) ('toolkit-timeout-minutes'), so it was stopped with every process it had started (SIGTERM, then SIGKILL after 3 s). Nothing was committed or pushed.",
      'Its last output:\n    info: Waiting for the orchestrator…',
    )
  })

  test('stopped because the step was cancelled', async () => {
    const { error } = await run([], { code: 1, stopped: { reason: 'cancelled', signal: 'SIGINT' } })
    expect(error?.message).toBe(
      "The step was cancelled (SIGINT) while the toolkit exported entry 'sales' (res/snapshot-config.json [0]): the toolkit was stopped with every process it had started (SIGTERM, then SIGKILL after 3 s). Nothing was committed or pushed.",
    )
  })

  test.each([
    [
      'without a cgroup: the message claims no more than the step could find',
      { contained: false, escaped: 0, outputHeld: false },
      'so it was stopped with every process it had started that the step could find (SIGTERM, then SIGKILL after 3 s). Nothing was committed or pushed.',
    ],
    [
      'with processes that had left its group: it says how many',
      { contained: true, escaped: 2, outputHeld: false },
      'so it was stopped with every process it had started, 2 of them in a session of its own (SIGTERM, then SIGKILL after 3 s).',
    ],
    [
      'while a process no trace leads to holds its output: it says so',
      { contained: false, escaped: 0, outputHeld: true },
      "so it was stopped (SIGTERM, then SIGKILL after 3 s), but not every process it had started. Nothing was committed or pushed. A process it had started that the step could not find still holds the toolkit's output open, with the toolkit's environment, 'draw-password' included: find it among the processes of the job's user and end it, unless the runner is thrown away after the job.",
    ],
  ])('stopped %s', async (_name, processes, message) => {
    const { error } = await run([], {
      code: 1,
      stopped: { reason: 'timeout' },
      processes: { ...processes, survivors: [] },
    })
    expect(error?.message).toContain(message)
  })

  test('cancelled, with a process still running: it names it and says what to do', async () => {
    const { error } = await run([], {
      code: 1,
      stopped: { reason: 'cancelled', signal: 'SIGTERM' },
      processes: {
        contained: false,
        escaped: 1,
        survivors: [{ pid: 4242, name: 'node' }],
        outputHeld: false,
      },
    })
    expect(error).toBeInstanceOf(CancelledError)
    expect(error?.message).toBe(
      "The step was cancelled (SIGTERM) while the toolkit exported entry 'sales' (res/snapshot-config.json [0]): the toolkit was stopped (SIGTERM, then SIGKILL after 3 s), but not every process it had started. Nothing was committed or pushed. Still running: 4242 (node), with the toolkit's environment, 'draw-password' included: end it (kill -KILL 4242) unless the runner is thrown away after the job.",
    )
    expect(error?.message).not.toContain('every process it had started (')
  })

  test('an export that succeeds but leaves processes behind: a warning, ended or not', async () => {
    const ended = await run([], {
      code: 0,
      processes: { contained: true, escaped: 1, survivors: [], outputHeld: false },
    })
    expect(ended.error).toBeUndefined()
    expect(ended.warnings).toEqual([
      "The toolkit left 1 process running in a session of its own after it exported entry 'sales': the step ended it, as it held the toolkit's environment ('draw-password' included).",
    ])
    const left = await run([], {
      code: 0,
      processes: {
        contained: false,
        escaped: 1,
        survivors: [{ pid: 77, name: 'sleep' }],
        outputHeld: false,
      },
    })
    expect(left.warnings).toEqual([
      "The toolkit exported entry 'sales' and exited, but not every process it had started could be ended. Still running: 77 (sleep), with the toolkit's environment, 'draw-password' included: end it (kill -KILL 77) unless the runner is thrown away after the job.",
    ])
    const clean = await run([], { code: 0 })
    expect(clean.warnings).toEqual([])
  })
})
