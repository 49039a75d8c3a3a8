import type { Logger } from '../../src/core/shared/ports.js'

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
