/** The port for running external tools (docker, git, the platform toolkit). */
export interface ExecOptions {
  cwd?: string
  /** Added to (not replacing) the environment the tool inherits. */
  env?: Record<string, string>
  /** Written to the tool's stdin: how passwords reach `docker login --password-stdin`. */
  input?: string
  /** Each output line as it arrives, for streaming to the log (the logger redacts). */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void
}

export interface ExecResult {
  code: number
  stdout: string
  stderr: string
}

export type Exec = (
  command: string,
  args: readonly string[],
  options?: ExecOptions,
) => Promise<ExecResult>

/** The command as a person would type it, for messages (the logger redacts secrets). */
export function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args]
    .map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`))
    .join(' ')
}
