// The recording logger and reporter of the tests: what a core function logs, outputs and
// summarises, kept in order so a test can assert on it. `recordingTools` keeps everything, with
// the level or group in front of each line; `recordingLogger` keeps the lines by level, as the
// runner's masking would show them.
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

/** What a step said through its logger, kept for the test to read. */
export interface RecordingLogger {
  logger: Logger
  /** Every line in order: info lines as said, warnings and errors after `warning: ` or `error: `. */
  lines: string[]
  infos: string[]
  warnings: string[]
  /** Each warning with the title of its annotation, where it has one. */
  annotations: { message: string; title?: string }[]
}

/**
 * A logger that keeps what it is told (debug lines and group titles are not kept: a group only
 * runs its body). `redact` is applied to each line first, as the runner's masking would.
 */
export function recordingLogger(
  redact: (text: string) => string = (text) => text,
): RecordingLogger {
  const lines: string[] = []
  const infos: string[] = []
  const warnings: string[] = []
  const annotations: RecordingLogger['annotations'] = []
  const logger: Logger = {
    info: (said) => {
      const message = redact(said)
      infos.push(message)
      lines.push(message)
    },
    warning: (said, annotation) => {
      const message = redact(said)
      warnings.push(message)
      annotations.push({ message, title: annotation?.title })
      lines.push(`warning: ${message}`)
    },
    error: (said) => lines.push(`error: ${redact(said)}`),
    debug: () => undefined,
    group: (_title, body) => body(),
  }
  return { logger, lines, infos, warnings, annotations }
}
