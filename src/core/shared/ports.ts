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
  /** Links for the job page: listed in the summary, and GitLab's annotations report on the CLI. */
  links?: SummaryLink[]
}

/** An address worth one click from the job page; never one that holds a secret. */
export interface SummaryLink {
  label: string
  url: string
}

/** Where an action's results go: step outputs on GitHub, a dotenv file on GitLab. */
export interface Reporter {
  setOutput(name: string, value: string): void
  summary(summary: Summary): Promise<void>
}

/**
 * What a cancelled step says besides that it stopped, and the outputs it writes then: said by
 * the code that knows how far it got (see StepCancellation.reportWith).
 */
export interface CancelReport {
  note: string
  outputs?: Record<string, string>
}

/** Time, injected so that tests can freeze it and skip waits. */
export interface Clock {
  now(): Date
  sleep(ms: number): Promise<void>
}

export type PathKind = 'file' | 'directory' | 'other'

/** One entry of a tree as the image builder copies it: what it is, its mode and its owner. */
export interface TreeEntry {
  /** Below the path walked, '/'-separated; '' for that path itself. */
  path: string
  kind: PathKind | 'link'
  /** Permission bits, setuid, setgid and sticky included. */
  mode: number
  uid: number
  gid: number
  size: number
  /** A symbolic link's target, as stored. */
  target?: string
}

/** The file operations the actions need, so that the core stays free of I/O. */
export interface Files {
  /** What is at a path (symlinks followed), or undefined when nothing is. */
  stat(path: string): Promise<{ kind: PathKind; size: number } | undefined>
  /** A symbolic link's target as stored; undefined when the path is no link (or nothing). */
  linkTarget(path: string): Promise<string | undefined>
  /** The path with every symbolic link resolved; throws when it does not exist. */
  realpath(path: string): Promise<string>
  /** A file's text; throws when it cannot be read. */
  readText(path: string): Promise<string>
  /** The names in a folder; throws when it is not a readable folder. */
  list(path: string): Promise<string[]>
  /** Every file below a folder, recursively, as full paths in a stable (sorted) order. */
  listFilesDeep(path: string): Promise<string[]>
  /**
   * What is at a path (a link followed) and, for a folder, everything below it (links not
   * followed), sorted by path; undefined when nothing is there.
   */
  tree(path: string): Promise<TreeEntry[] | undefined>
  /** The SHA-256 of a file's bytes, hex, read as a stream. */
  hashFile(path: string): Promise<string>
  /** Writes a file, creating its missing parent folders. */
  writeText(path: string, text: string): Promise<void>
  makeTempDir(prefix: string): Promise<string>
  makeDir(path: string): Promise<void>
  /** Makes `to` an exact copy of `from`; a missing `from` leaves `to` missing. */
  replaceDir(from: string, to: string): Promise<void>
  remove(path: string): Promise<void>
}

/** The ports every action receives from the platform. */
export interface CommonPorts {
  logger: Logger
  reporter: Reporter
  /** Masks a value in everything printed from now on (and on GitHub, in the runner's log). */
  registerSecret: (value: string) => void
  /** Masks the registered secrets in a text kept for later (an error message). */
  redact: (text: string) => string
  clock: Clock
  files: Files
}
