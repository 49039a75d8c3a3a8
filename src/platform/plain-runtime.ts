import { randomBytes } from 'node:crypto'
import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { dotenvKey, type ActionDefinition } from '../core/definition.js'
import type { Logger, Reporter, Summary, SummaryLink } from '../core/shared/ports.js'
import { Redactor } from '../core/shared/redactor.js'
import { printableLines } from '../core/shared/untrusted-text.js'
import { parseCliArgs, type CliArgs } from './cli-args.js'
import type { Platform } from '../core/shared/context.js'
import type { Env } from '../core/shared/env.js'
import { InputError, quote } from '../core/shared/errors.js'
import { systemClock } from '../tools/clock.js'
import { inputsFromEnv, type Runtime } from './runtime.js'
import { isStepDebug } from './step-debug.js'
import { boundSummary } from './summary-limit.js'
import { guardCommands } from './workflow-commands.js'

type Write = (text: string) => void

export interface CliRuntime extends Runtime {
  readonly cliArgs: CliArgs<string>
}

/**
 * The runtime of plain output: the command line, as GitLab jobs and people use it (GitHub's
 * runner has github.ts). GitLab has no run-time masking, so every line we print, ours or a
 * child process's, goes through the redactor. Inside a GitHub job (`npx olympe-deploy` in a
 * `run:` step) the runner reads our lines as workflow commands, so text that could be one is
 * guarded as the GitHub runtime does (see guardCommands).
 */
export function createCliRuntime<I extends string>(
  definition: ActionDefinition<I>,
  ci: Platform,
  env: Env,
  argv: readonly string[],
  stdout: Write = (text) => process.stdout.write(text),
  stderr: Write = (text) => process.stderr.write(text),
): CliRuntime {
  const args = parseCliArgs(definition, argv)
  if (args.options.dotenv !== undefined) checkReportPath('dotenv', args.options.dotenv)
  if (args.options.annotations !== undefined)
    checkReportPath('annotations', args.options.annotations)
  const onGithub = ci === 'github'
  const out = onGithub ? guarded(stdout, stdout) : stdout
  const err = onGithub ? guarded(stderr, stdout) : stderr
  const redactor = new Redactor()
  // Redacted first: an escape must not split a secret that the mask would otherwise match.
  const r = (text: string): string => printableLines(redactor.redact(text))
  const debugOn = args.options.debug || isStepDebug(env)
  const sections = ci === 'gitlab' ? gitlabSections(out) : plainSections(out)
  const logger: Logger = {
    info: (message) => out(`${r(message)}\n`),
    warning: (message) => err(`Warning: ${r(message)}\n`),
    error: (message) => err(`Error: ${r(message)}\n`),
    debug: (message) => {
      if (debugOn) out(`[debug] ${r(message)}\n`)
    },
    group: async (title, run) => {
      const end = sections.start(r(title))
      try {
        return await run()
      } finally {
        end()
      }
    },
  }
  const outputs = new Map<string, string>()
  const links: SummaryLink[] = []
  const reporter: Reporter = {
    // Written as given: the core redacts what came from outside; masking here could corrupt one.
    setOutput: (name, value) => {
      outputs.set(name, value)
      logger.debug(`output ${name}=${value}`)
      if (args.options.dotenv) writeDotenv(args.options.dotenv, definition, outputs, logger)
    },
    summary: async (summary) => {
      await logger.group('Summary', () => {
        logger.info(boundSummary(summaryText(summary)))
        return Promise.resolve()
      })
      const { annotations } = args.options
      if (annotations === undefined || !summary.links?.length) return
      for (const link of summary.links) links.push({ label: r(link.label), url: r(link.url) })
      writeAnnotations(annotations, definition.name, links)
    },
  }
  return {
    kind: 'cli',
    redactor,
    logger,
    reporter,
    cliArgs: args,
    readInputs: <J extends string>(asked: ActionDefinition<J>) => ({
      ...inputsFromEnv(asked, env),
      ...(args.given as unknown as Partial<Record<J, string>>),
    }),
    registerSecret: (value) => redactor.add(value),
  }
}

/**
 * Each write guarded whole (see guardCommands), its final line break kept outside. The runner
 * reads stdout and stderr side by side with one pause: a pause opened on one stream could end
 * while text of the other is still on its way, so text that needs a pause always goes to stdout.
 */
function guarded(write: Write, paused: Write): Write {
  return (text) => {
    const body = text.endsWith('\n') ? text.slice(0, -1) : text
    const shown = guardCommands(body)
    if (shown === body) write(text)
    else paused(`${shown}${text.slice(body.length)}`)
  }
}

const REPORT_EXAMPLES = {
  dotenv: ['the outputs', 'outputs.env'],
  annotations: ['the links', 'annotations.json'],
} as const

/**
 * Refuses, before any side effect, a report path that cannot be written at the end of the job:
 * in a folder that does not exist (we create no folders the user did not ask for), or a folder.
 */
function checkReportPath(flag: keyof typeof REPORT_EXAMPLES, path: string): void {
  const [what, example] = REPORT_EXAMPLES[flag]
  const folder = dirname(resolve(path))
  if (path === '' || statSync(resolve(path), { throwIfNoEntry: false })?.isDirectory())
    throw new InputError(
      flag,
      `The flag '--${flag}' names ${quote(path)}, which is not a file path: give the path of the file to write ${what} to, such as '${example}'.`,
    )
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory())
    throw new InputError(
      flag,
      `The flag '--${flag}' names ${quote(path)}, in a folder that does not exist: ${quote(folder)}. Create the folder first, or write ${what} to a file in an existing folder.`,
    )
}

/**
 * GitLab's annotations report (`artifacts:reports:annotations`): one section, named after the
 * action, of external links that the job page shows. Rewritten whole at each summary, as the
 * dotenv report is (see replaceFile).
 */
function writeAnnotations(path: string, section: string, links: readonly SummaryLink[]): void {
  const report = {
    [section]: links.map(({ label, url }) => ({ external_link: { label, url } })),
  }
  replaceFile(path, `${JSON.stringify(report, null, 2)}\n`)
}

/** KEY=value lines for GitLab's dotenv report: single-line values only (a list's joined by commas). */
function writeDotenv(
  path: string,
  definition: ActionDefinition,
  outputs: Map<string, string>,
  logger: Logger,
): void {
  const lines: string[] = []
  for (const [name, given] of outputs) {
    const value = definition.outputs[name]?.list ? given.split(/\r?\n/).join(',') : given
    if (/[\r\n]/.test(value)) {
      logger.warning(
        `Output '${name}' spans several lines and cannot go into the dotenv report; it is left out.`,
      )
      continue
    }
    lines.push(`${dotenvKey(definition.id, name)}=${value}`)
  }
  replaceFile(path, lines.length > 0 ? `${lines.join('\n')}\n` : '')
}

/**
 * Every file the command line writes (the dotenv and annotations reports) is a new file beside
 * `path`, renamed over `path`: a symbolic link there (committed as `olympe-deploy.env` or
 * `olympe-deploy-annotations.json`, the names the GitLab templates use) is replaced, and what it
 * points to is left untouched, where writing through it would overwrite any file the job may
 * write. Mode 0600: the reports are the job's.
 */
function replaceFile(path: string, text: string): void {
  const temporary = join(
    dirname(path),
    `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  )
  try {
    // `wx`: never through something that appeared at that name meanwhile.
    writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' })
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

interface Sections {
  start(title: string): () => void
}

/** GitLab's collapsible sections (job_logs.md): ESC[0K section_start:<epoch>:<name> CR ESC[0K <title>. */
function gitlabSections(out: Write): Sections {
  let counter = 0
  const now = (): number => Math.floor(systemClock.now().getTime() / 1000)
  return {
    start(title) {
      const id = `olympe_${++counter}_${title
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .slice(0, 40)}`
      out(`\x1b[0Ksection_start:${now()}:${id}[collapsed=false]\r\x1b[0K${title}\n`)
      return () => out(`\x1b[0Ksection_end:${now()}:${id}\r\x1b[0K\n`)
    },
  }
}

function plainSections(out: Write): Sections {
  return {
    start(title) {
      out(`== ${title}\n`)
      return () => undefined
    },
  }
}

export function summaryText(summary: Summary): string {
  const width = Math.max(...summary.rows.map(([name]) => name.length))
  const rows = summary.rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`)
  const links = (summary.links ?? []).map(({ label, url }) => `  Link: ${label}: ${url}`)
  const notes = (summary.notes ?? []).map((note) => `  Note: ${note}`)
  return [summary.heading, ...rows, ...links, ...notes].join('\n')
}
