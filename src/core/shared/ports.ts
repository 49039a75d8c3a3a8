/** What the core may say to the user; the platform decides how (GitHub commands, plain text). */
export interface Logger {
  info(message: string): void
  warning(message: string, annotation?: { title?: string }): void
  error(message: string, annotation?: { title?: string }): void
  debug(message: string): void
  group<T>(title: string, run: () => Promise<T>): Promise<T>
}

/** A row-oriented job summary: GitHub renders it as Markdown, the CLI prints it as text. */
export interface Summary {
  heading: string
  rows: Array<[string, string]>
  notes?: string[]
}

/** Where an action's results go: step outputs on GitHub, a dotenv file on GitLab. */
export interface Reporter {
  setOutput(name: string, value: string): void
  summary(summary: Summary): Promise<void>
}
