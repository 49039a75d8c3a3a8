import { describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { CancelledError } from '../../../src/core/shared/errors.js'
import { StepCancellation } from '../../../src/tools/cancel.js'
import { createExec, exec } from '../../../src/tools/exec.js'
import { runningProcesses, whenGone, type RunningProcess } from '../../helpers/processes.js'

/**
 * A child that writes 'x' and the first byte of 'é', waits, then the second byte: the pipe gives
 * the two writes as two chunks.
 */
const CUT_CHARACTER = [
  'process.stdout.write(Buffer.from([0x78, 0xc3]))',
  'setTimeout(() => process.stdout.write(Buffer.from([0xa9, 0x0a])), 200)',
].join(';')

describe('exec', () => {
  test('a character the pipe cut in two is printed whole, and returned whole', async () => {
    const lines: string[] = []
    const result = await exec(process.execPath, ['-e', CUT_CHARACTER], {
      onLine: (line) => lines.push(line),
    })
    expect(lines).toEqual(['xé'])
    expect(result).toEqual({ code: 0, stdout: 'xé\n', stderr: '' })
  })

  test('lines from both streams, the last without a line break, and the exit code', async () => {
    const lines: string[] = []
    const result = await exec('sh', ['-c', 'echo out; echo err >&2; printf last; exit 3'], {
      onLine: (line, stream) => lines.push(`${stream}: ${line}`),
    })
    expect(result.code).toBe(3)
    expect(lines.sort()).toEqual(['stderr: err', 'stdout: last', 'stdout: out'])
    expect([result.stdout, result.stderr]).toEqual(['out\nlast', 'err\n'])
  })

  // The tool and its children, found through /proc: @actions/exec does not give its child out.
  test('a cancelled step stops the tool and what it started, and the call says it was cancelled', async () => {
    const cancel = new StepCancellation()
    const running = createExec(cancel)('sh', ['-c', 'sleep 3201 & echo started; wait'], {
      onLine: (line) => {
        if (line === 'started') cancel.cancel('SIGTERM')
      },
    })
    await expect(running).rejects.toThrow(new CancelledError('SIGTERM'))
    const left = (): RunningProcess[] =>
      runningProcesses().filter((p) => p.commandLine === 'sleep 3201')
    expect(await whenGone(left)).toEqual([])
  })

  test('once the step is cancelled, no tool starts', async () => {
    const cancel = new StepCancellation()
    cancel.cancel('SIGINT')
    const marker = `/tmp/olympe-exec-test-${process.pid}`
    await expect(createExec(cancel)('touch', [marker])).rejects.toThrow(
      'The step was cancelled (SIGINT).',
    )
    expect(existsSync(marker)).toBe(false)
  })

  test('its stdin gets the input (docker login --password-stdin)', async () => {
    expect((await exec('cat', [], { input: 'from stdin' })).stdout).toBe('from stdin')
  })
})
