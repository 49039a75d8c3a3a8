import { randomUUID } from 'node:crypto'
import { appendFileSync } from 'node:fs'
import { EOL } from 'node:os'

/**
 * The runner's workflow-command and environment-file protocol, as @actions/core writes it
 * (a contract test compares the two). We speak it directly because importing @actions/core
 * also loads its HTTP client stack, which costs more start-up time than a whole deploy call.
 */
type Write = (text: string) => void

export interface CommandProperties {
  title?: string
}

export function workflowCommand(
  command: string,
  message: string,
  properties: CommandProperties = {},
): string {
  const props = Object.entries(properties)
    .filter(([, value]) => value)
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(',')
  return `::${command}${props ? ` ${props}` : ''}::${escapeData(message)}`
}

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

/** `name<<delimiter` blocks, the format of GITHUB_OUTPUT, GITHUB_ENV and GITHUB_STATE. */
export function keyValueBlock(name: string, value: string): string {
  const delimiter = `ghadelimiter_${randomUUID()}`
  return `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`
}

export class GithubCommands {
  constructor(
    private readonly write: Write,
    private readonly env: Record<string, string | undefined>,
  ) {}

  issue(command: string, message: string, properties?: CommandProperties): void {
    this.write(`${workflowCommand(command, message, properties)}${EOL}`)
  }

  /** Without GITHUB_OUTPUT (an old runner) the deprecated stdout command is the only way. */
  setOutput(name: string, value: string): void {
    const file = this.env.GITHUB_OUTPUT
    if (file) appendFileSync(file, keyValueBlock(name, value), 'utf8')
    else
      this.write(
        `${EOL}${workflowCommand('set-output', value, { name } as CommandProperties)}${EOL}`,
      )
  }

  appendSummary(markdown: string): boolean {
    const file = this.env.GITHUB_STEP_SUMMARY
    if (!file) return false
    appendFileSync(file, markdown, 'utf8')
    return true
  }

  get debugEnabled(): boolean {
    return this.env.RUNNER_DEBUG === '1'
  }
}
