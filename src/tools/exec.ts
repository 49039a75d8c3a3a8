import { spawn } from 'node:child_process'
import type { Exec, ExecOptions, ExecResult } from '../core/shared/exec.js'

/** Runs a tool from an argv array (never a shell string), streaming its lines as they come. */
export const exec: Exec = (command, args, options: ExecOptions = {}) =>
  new Promise<ExecResult>((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const out = collect('stdout', options.onLine)
    const err = collect('stderr', options.onLine)
    child.stdout.on('data', out.push)
    child.stderr.on('data', err.push)
    const timer = options.timeoutMs
      ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
      : undefined
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code: code ?? (signal ? 128 : 1), stdout: out.end(), stderr: err.end() })
    })
    // A tool that exits without reading its input (docker version) must not crash us with EPIPE.
    child.stdin.on('error', () => undefined)
    child.stdin.end(options.input ?? '')
  })

function collect(
  stream: 'stdout' | 'stderr',
  onLine: ExecOptions['onLine'],
): { push: (chunk: Buffer) => void; end: () => string } {
  let text = ''
  let pending = ''
  return {
    push: (chunk) => {
      const piece = chunk.toString('utf8')
      text += piece
      if (!onLine) return
      const lines = (pending + piece).split(/\r?\n/)
      pending = lines.pop() ?? ''
      for (const line of lines) onLine(line, stream)
    },
    end: () => {
      if (onLine && pending) onLine(pending, stream)
      return text
    },
  }
}
