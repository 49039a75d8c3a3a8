import { describe, expect, test } from '@jest/globals'
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { StepCancellation } from '../../../src/tools/cancel.js'
import { runToolkit } from '../../../src/tools/toolkit-runner.js'
import { makeCgroup } from '../../../src/tools/process-tree.js'
import { killAll, runningProcesses, whenGone } from '../../helpers/processes.js'
import { capture } from '../../helpers/run-process.js'

/** Alive and not a zombie: a zombie nobody reaps still answers to kill(pid, 0). */
function isLive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** SIGKILL is delivered at once but acted on when the process is next scheduled. */
async function gone(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 100 && isLive(pid); tries++)
    await new Promise((resolve) => setTimeout(resolve, 20))
  return !isLive(pid)
}

// A shell that starts a long sleep in the background and prints its pid: a tool with a child.
const WITH_CHILD = 'sleep 300 & echo "child $!"; wait'
const childPid = (lines: readonly string[]): number =>
  Number(/^child (\d+)$/.exec(lines.find((l) => l.startsWith('child ')) ?? '')?.[1])

function options(lines: string[], extra: object = {}): Parameters<typeof runToolkit>[2] {
  return { cwd: '/', env: {}, timeoutMs: 60_000, onLine: (l: string) => lines.push(l), ...extra }
}

describe('runToolkit', () => {
  test('the defect it exists for: killing the first process alone leaves its child running', async () => {
    const tools: ChildProcess[] = []
    const ended = capture('sh', ['-c', WITH_CHILD], { onSpawn: (tool) => tools.push(tool) })
    const [tool] = tools
    if (!tool?.stdout) throw new Error('sh did not start')
    const line = await new Promise<string>((resolve) =>
      tool.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString())),
    )
    const child = Number(/child (\d+)/.exec(line)?.[1])
    tool.kill('SIGTERM')
    await new Promise((resolve) => tool.once('exit', resolve))
    expect(isLive(child)).toBe(true)
    process.kill(child, 'SIGKILL')
    // The output pipes close once the child, which holds them too, is gone.
    await ended
  })

  test('at the timeout the whole group is stopped, and the run says so', async () => {
    const lines: string[] = []
    const exit = await runToolkit('sh', ['-c', WITH_CHILD], options(lines, { timeoutMs: 300 }))
    expect(exit).toMatchObject({ code: 1, stopped: { reason: 'timeout' }, graceMs: 3000 })
    expect(await gone(childPid(lines))).toBe(true)
  })

  test('a group that ignores SIGTERM gets SIGKILL after the grace period', async () => {
    const lines: string[] = []
    const exit = await runToolkit(
      'sh',
      ['-c', `trap '' TERM; ${WITH_CHILD}`],
      options(lines, { timeoutMs: 300, graceMs: 300 }),
    )
    expect(exit.stopped).toEqual({ reason: 'timeout' })
    expect(await gone(childPid(lines))).toBe(true)
  })

  test('what the tool leaves running when it exits is stopped too', async () => {
    const lines: string[] = []
    const exit = await runToolkit('sh', ['-c', 'sleep 300 & echo "child $!"'], options(lines))
    expect(exit).toMatchObject({ code: 0, graceMs: 3000 })
    expect(exit.processes).toMatchObject({ escaped: 0, survivors: [], outputHeld: false })
    expect(await gone(childPid(lines))).toBe(true)
  })

  test('lines from both streams, the last without a line break, and the exit code', async () => {
    const lines: string[] = []
    const exit = await runToolkit(
      'sh',
      ['-c', 'echo out; echo "é err" >&2; printf "last"; exit 3'],
      options(lines, { env: { LOG_LEVEL: 'info' } }),
    )
    expect(exit.code).toBe(3)
    expect(lines.sort()).toEqual(['last', 'out', 'é err'])
  })

  test('a character the pipe cut in two is printed whole', async () => {
    const lines: string[] = []
    // 'x' and the first byte of 'é', then, once the pipe has passed that on, the second byte.
    const script = [
      'process.stdout.write(Buffer.from([0x78, 0xc3]))',
      'setTimeout(() => process.stdout.write(Buffer.from([0xa9, 0x0a])), 200)',
    ].join(';')
    await runToolkit(process.execPath, ['-e', script], options(lines))
    expect(lines).toEqual(['xé'])
  })

  test('a program that does not exist rejects', async () => {
    await expect(runToolkit('no-such-olympe-tool', [], options([]))).rejects.toThrow(/ENOENT/)
  })

  test('cancelling the step stops the whole group, and the run says which signal', async () => {
    const lines: string[] = []
    const cancel = new StepCancellation()
    const running = runToolkit('sh', ['-c', WITH_CHILD], {
      ...options(lines),
      onLine: (line) => {
        lines.push(line)
        if (line.startsWith('child ')) cancel.cancel('SIGINT')
      },
      cancel,
    })
    const exit = await running
    expect(exit.stopped).toEqual({ reason: 'cancelled', signal: 'SIGINT' })
    expect(await gone(childPid(lines))).toBe(true)
  })
})

/**
 * A toolkit (a node script) that starts a child in a session of its own: Node's `detached` makes
 * the child call setsid, and spawn returns once the child runs its program, so the child has left
 * the group before the toolkit goes on. `keep` leaves the toolkit's output open in the child,
 * else the child's output is closed; `env` is the child's whole environment when given. The child
 * runs `sleep <seconds>`, a number no other test uses, to be found in /proc.
 */
function escaping(
  seconds: number,
  output: 'keep' | 'close',
  then: 'hang' | 'exit',
  env?: object,
): string[] {
  const stdio = output === 'keep' ? 'inherit' : 'ignore'
  const script = [
    "const { spawn } = require('node:child_process')",
    `const child = spawn('sleep', ['${seconds}'], { detached: true, stdio: ['ignore', '${stdio}', '${stdio}']${env ? `, env: ${JSON.stringify(env)}` : ''} })`,
    "child.on('spawn', () => {",
    '  child.unref()',
    `  ${then === 'hang' ? 'setInterval(() => {}, 60000)' : 'process.exit(0)'}`,
    '})',
  ].join('\n')
  return ['-e', script]
}

const sleeping = (seconds: number) => () =>
  runningProcesses().filter((p) => p.commandLine === `sleep ${seconds}`)

const canMakeCgroup = (): boolean => {
  const probe = makeCgroup('olympe-test-probe')
  probe?.remove()
  return probe !== undefined
}

/** What the run says it found of the processes that left its group (none survived). */
const found = (contained: boolean, escaped: number, outputHeld = false): object => ({
  contained,
  escaped,
  survivors: [],
  outputHeld,
})

/** Runs `escaping(...)` as the toolkit, then ends its `sleep <seconds>` whatever the test saw. */
async function withEscaping(
  seconds: number,
  child: Parameters<typeof escaping>,
  extra: object,
  check: (exit: Awaited<ReturnType<typeof runToolkit>>) => Promise<void>,
): Promise<void> {
  try {
    await check(await runToolkit(process.execPath, escaping(...child), options([], extra)))
  } finally {
    killAll(sleeping(seconds)())
  }
}

describe('runToolkit and the processes that leave the group', () => {
  // Old runs waited for the output's end for ever (keep), or ended leaving the child running
  // with the toolkit's environment (close). Each test's child sleeps a number of seconds of its own.
  describe.each([
    ['keeps', 'keep', 3101, 3103],
    ['closes', 'close', 3102, 3104],
  ] as const)('a child that calls setsid and %s the output', (_what, output, hangs, exits) => {
    test(
      'found and ended at the timeout',
      () =>
        withEscaping(hangs, [hangs, output, 'hang'], { timeoutMs: 500 }, async (exit) => {
          expect(exit.stopped).toEqual({ reason: 'timeout' })
          expect(exit.processes).toEqual(found(canMakeCgroup(), 1))
          expect(await whenGone(sleeping(hangs))).toEqual([])
        }),
      30_000,
    )

    test(
      'without a cgroup, found by its parent or its environment',
      () =>
        withEscaping(exits, [exits, output, 'exit'], { track: { cgroup: false } }, async (exit) => {
          expect(exit).toMatchObject({ code: 0, stopped: undefined })
          expect(exit.processes).toEqual(found(false, 1))
          expect(await whenGone(sleeping(exits))).toEqual([])
        }),
      30_000,
    )
  })

  test('a child that no trace leads to, holding the output: the run ends all the same, and says so', async () => {
    const seconds = 3105
    // It has an environment of its own, calls setsid, and is handed to init when the toolkit
    // exits before anything looks at its parent: without a cgroup, nothing says it is the
    // toolkit's.
    const child: Parameters<typeof escaping> = [seconds, 'keep', 'exit', { PATH: process.env.PATH }]
    await withEscaping(seconds, child, { track: { cgroup: false, pollMs: 600_000 } }, (exit) => {
      expect(exit.processes).toEqual(found(false, 0, true))
      expect(sleeping(seconds)()).toHaveLength(1)
      return Promise.resolve()
    })
  }, 30_000)
})
