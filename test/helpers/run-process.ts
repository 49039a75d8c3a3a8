// The one way the test helpers and suites run a program: argv arrays only, never a shell string,
// stdout and stderr captured whole. `capture` reports how the program ended, `run` rejects when it
// failed; both hand the live child to `onSpawn` for a test that signals it.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { Readable, type Writable } from 'node:stream'

export interface RunOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  /**
   * Written to the child's stdin, e.g. a password for `--password-stdin` or a fast-import
   * stream; without it, stdin is empty.
   */
  input?: string | Buffer | Readable
  /** SIGKILL after this long; none unless told, when the test's own timeout bounds the run. */
  timeoutMs?: number
  /** The child as soon as it runs: how a test cancels it (SIGINT, as the runner does). */
  onSpawn?: (child: ChildProcess) => void
  /** The leader of a process group of its own, which a test can signal whole. */
  detached?: boolean
  /** Run as this user and group (the tests run as root): see rootless.ts. */
  uid?: number
  gid?: number
}

/** How a program ended (`code` is null when a signal ended it) and what it printed. */
export interface Captured<Output = string> {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: Output
  stderr: Output
}

export interface RunResult {
  stdout: string
  stderr: string
}

/** Runs a program to its end and resolves however it ended; rejects only when it cannot start. */
export function captureBytes(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<Captured<Buffer>> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: options.detached,
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    options.onSpawn?.(child)
    const stdout: Buffer[] = []
    const stderr: Buffer[] = []
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))
    const timer = options.timeoutMs
      ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
      : undefined
    child.on('error', (error) => {
      clearTimeout(timer)
      const message = `${describeCommand(command, args)} could not start: ${error.message}`
      reject(new Error(message, { cause: error }))
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) })
    })
    feed(child.stdin, options.input)
  })
}

/** captureBytes, with the output as UTF-8 text. */
export async function capture(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<Captured> {
  const result = await captureBytes(command, args, options)
  return {
    ...result,
    stdout: result.stdout.toString('utf8'),
    stderr: result.stderr.toString('utf8'),
  }
}

/** Runs a program and rejects with its exit status and stderr when it fails. */
export async function run(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const { code, signal, stdout, stderr } = await capture(command, args, options)
  if (code === 0) return { stdout, stderr }
  const how = signal ? `was killed by ${signal}` : `exited with ${code}`
  throw new Error(`${describeCommand(command, args)} ${how}: ${stderr.trim()}`)
}

function feed(stdin: Writable | null, input: RunOptions['input']): void {
  if (!stdin) return
  // A child that never reads stdin closes it early; that EPIPE is not the command's failure.
  stdin.on('error', () => undefined)
  if (input instanceof Readable) input.pipe(stdin)
  else stdin.end(input)
}

/**
 * Stops a program a helper started and keeps running (a registry, verdaccio): SIGTERM, then
 * SIGKILL if it has not exited after `graceMs`; resolves once it has exited.
 */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  const running = child.pid !== undefined && child.exitCode === null && child.signalCode === null
  if (!running) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const killLater = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(killLater)
}

/** A port that was free a moment ago: the kernel picks it when listening on port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => (port ? resolve(port) : reject(new Error('No port was assigned'))))
    })
  })
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export function chunksToText(chunks: Buffer[]): string {
  return Buffer.concat(chunks).toString('utf8')
}

export function describeCommand(command: string, args: string[]): string {
  return `\`${[command, ...args].join(' ')}\``
}
