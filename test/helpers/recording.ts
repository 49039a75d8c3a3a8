// The one recording logger and reporter of the tests: what a core function logs, outputs and
// summarises, kept in order so a test can assert on it.
import type { Logger, Reporter, Summary } from '../../src/core/shared/ports.js'

export interface Recorded {
  logger: Logger
  reporter: Reporter
  lines: string[]
  outputs: Record<string, string>
  summaries: Summary[]
}

/** A logger and reporter that keep everything, with the level or group in front of each line. */
export function recordingTools(): Recorded {
  const lines: string[] = []
  const outputs: Record<string, string> = {}
  const summaries: Summary[] = []
  const logger: Logger = {
    info: (message) => lines.push(message),
    warning: (message) => lines.push(`warning: ${message}`),
    error: (message) => lines.push(`error: ${message}`),
    debug: (message) => lines.push(`debug: ${message}`),
    group: async (title, run) => {
      lines.push(`group: ${title}`)
      return run()
    },
  }
  const reporter: Reporter = {
    setOutput: (name, value) => {
      outputs[name] = value
    },
    summary: (summary) => {
      summaries.push(summary)
      return Promise.resolve()
    },
  }
  return { logger, reporter, lines, outputs, summaries }
}
