/** A user mistake in an input: the message names the input and says what is expected. */
export class InputError extends Error {
  override readonly name = 'InputError'
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(message)
  }
}

/** A failure the user should read as-is (no stack trace): a refused request, a failed command. */
export class ActionError extends Error {
  override readonly name = 'ActionError'
}

/** Quotes a value for an error message, cut so that a pasted file does not flood the log. */
export function quote(value: string, max = 200): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value
  return `'${cut}'`
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * The step was cancelled: SIGINT (the GitHub runner) or SIGTERM (GitLab) reached it. `said` is
 * what the code that was running has to say about it (what it stopped, what stays done); the
 * platform reports the cancel with it, or with its own words when there is none.
 */
export class CancelledError extends Error {
  override readonly name = 'CancelledError'
  constructor(
    readonly signal: string,
    readonly said?: string,
  ) {
    super(said ?? `The step was cancelled (${signal}).`)
  }
}
