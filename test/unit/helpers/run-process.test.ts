// Every test helper runs programs through test/helpers/run-process.ts: what it reports must be
// exactly what happened, or the suites built on it assert on the wrong thing.
import { describe, expect, test } from '@jest/globals'
import type { ChildProcess } from 'node:child_process'
import { Readable } from 'node:stream'
import { capture, captureBytes, run } from '../../helpers/run-process.js'

describe('capture', () => {
  test('a failing program: its exit code and both streams, without rejecting', async () => {
    const result = await capture('sh', ['-c', 'echo out; echo err >&2; exit 3'])
    expect(result).toEqual({ code: 3, signal: null, stdout: 'out\n', stderr: 'err\n' })
  })

  test('the input reaches stdin, as text or as a stream; without it, stdin is empty', async () => {
    const given = await capture('cat', [], { input: 'from a string' })
    const streamed = await capture('cat', [], { input: Readable.from(['a ', 'stream']) })
    const none = await capture('cat', [])
    expect([given.stdout, streamed.stdout, none.stdout]).toEqual(['from a string', 'a stream', ''])
  })

  test('cwd and env are the child’s', async () => {
    const result = await capture('sh', ['-c', 'pwd; echo "$ONLY_HERE"'], {
      cwd: '/',
      env: { PATH: process.env.PATH ?? '', ONLY_HERE: 'yes' },
    })
    expect(result.stdout).toBe('/\nyes\n')
  })

  test('past timeoutMs the program is killed, and the signal says so', async () => {
    const result = await capture('sleep', ['30'], { timeoutMs: 100 })
    expect([result.code, result.signal]).toEqual([null, 'SIGKILL'])
  })

  test('onSpawn hands over the live child, which a test may signal', async () => {
    const children: ChildProcess[] = []
    const running = capture('sleep', ['30'], { onSpawn: (child) => children.push(child) })
    expect(children).toHaveLength(1)
    children[0]?.kill('SIGINT')
    expect((await running).signal).toBe('SIGINT')
  })

  test('a program that does not exist rejects, naming the command', async () => {
    await expect(capture('no-such-olympe-program', ['x'])).rejects.toThrow(
      '`no-such-olympe-program x` could not start: spawn no-such-olympe-program ENOENT',
    )
  })

  test('captureBytes keeps the bytes as they were written', async () => {
    const result = await captureBytes('printf', ['\\377\\000\\001'])
    expect([...result.stdout]).toEqual([0xff, 0x00, 0x01])
  })
})

describe('run', () => {
  test('resolves to the output of a program that succeeds', async () => {
    expect(await run('sh', ['-c', 'echo out; echo err >&2'])).toEqual({
      stdout: 'out\n',
      stderr: 'err\n',
    })
  })

  test('rejects with the command, its exit status and stderr when it fails', async () => {
    await expect(run('sh', ['-c', 'echo why >&2; exit 4'])).rejects.toThrow(
      '`sh -c echo why >&2; exit 4` exited with 4: why',
    )
  })

  test('rejects naming the signal that ended a program killed at its timeout', async () => {
    await expect(run('sleep', ['30'], { timeoutMs: 100 })).rejects.toThrow(
      '`sleep 30` was killed by SIGKILL: ',
    )
  })
})
