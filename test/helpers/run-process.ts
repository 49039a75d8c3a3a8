// Process helpers shared by the Docker test helpers: argv arrays only, never a shell string.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'

export interface RunOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** Written to the child's stdin, e.g. a password for `--password-stdin`. */
  input?: string
  timeoutMs?: number
}

export interface RunResult {
  stdout: string
  stderr: string
}

/** Runs a program and rejects with its exit status and stderr when it fails. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env })
    const stdout: Buffer[] = []
    const stderr: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
    const timer = options.timeoutMs
      ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
      : undefined
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(new Error(`${describeCommand(command, args)} could not start: ${error.message}`))
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const result = { stdout: chunksToText(stdout), stderr: chunksToText(stderr) }
      if (code === 0) {
        resolve(result)
        return
      }
      const how = signal ? `was killed by ${signal}` : `exited with ${code}`
      reject(new Error(`${describeCommand(command, args)} ${how}: ${result.stderr.trim()}`))
    })
    // A child that never reads stdin closes it early; that EPIPE is not the command's failure.
    child.stdin.on('error', () => undefined)
    child.stdin.end(options.input ?? '')
  })
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
