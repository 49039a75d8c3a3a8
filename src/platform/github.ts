import * as core from '@actions/core'
import { inputNames, type ActionDefinition } from '../core/definition.js'
import type { Env } from '../core/shared/env.js'
import { tableCell } from '../core/shared/markdown.js'
import type { Logger, Reporter, Summary, SummaryLink } from '../core/shared/ports.js'
import { Redactor } from '../core/shared/redactor.js'
import { leakForms } from '../core/shared/secrets.js'
import type { Runtime } from './runtime.js'
import { boundSummary } from './summary-limit.js'
import { guardCommands } from './workflow-commands.js'

/**
 * The GitHub runner, spoken to through @actions/core. The runner masks registered secrets in
 * its log, but not in the summary file nor in what a log forwarder or @github/local-action
 * captures: so we redact ourselves too. Outputs are the exception: they hold no secret by
 * construction (the core redacts the outside text it puts in one), and masking could corrupt them.
 * Info lines carry text from outside (a child's output, a response body, a config name), which
 * must not issue workflow commands: guardCommands pauses the runner's command processing around
 * any that could. Warnings, errors, debug lines and group titles are safe: @actions/core escapes
 * their line breaks.
 */
export function createGithubRuntime(env: Env): Runtime {
  const redactor = new Redactor()
  const masked = new Set<string>()
  const r = (text: string): string => redactor.redact(text)
  const logger: Logger = {
    info: (message) => core.info(guardCommands(r(message))),
    warning: (message, annotation) => core.warning(r(message), annotation),
    error: (message, annotation) => core.error(r(message), annotation),
    debug: (message) => core.debug(r(message)),
    group: (title, run) => core.group(r(title), run),
  }
  const reporter: Reporter = {
    // Written as given: the core redacts what came from outside; masking here could corrupt one.
    setOutput: (name, value) => core.setOutput(name, value),
    summary: async (summary) => {
      // Without GITHUB_STEP_SUMMARY (an old runner, a local run) there is no summary to write.
      if (!env.GITHUB_STEP_SUMMARY) return
      await core.summary.addRaw(boundSummary(r(summaryMarkdown(summary, r)))).write()
    },
  }
  return {
    kind: 'github',
    redactor,
    logger,
    reporter,
    readInputs: <I extends string>(definition: ActionDefinition<I>) => {
      const given: Partial<Record<I, string>> = {}
      for (const name of inputNames(definition)) given[name] = core.getInput(name)
      return given
    },
    // Every leak form, not only the value: the runner masks base64 forms of a value only where
    // it ends the encoded text, and it matches case-sensitively.
    registerSecret: (value) => {
      for (const form of leakForms(value)) {
        if (masked.has(form)) continue
        masked.add(form)
        core.setSecret(form)
      }
      redactor.add(value)
    },
  }
}

/**
 * The summary as Markdown. Its heading, cells, notes and link labels may hold what a server sent
 * (a version an app serves, a response's message): each goes through one escaping, tableCell, so
 * that it shows as text wherever it lands, and each is redacted before it is escaped: an escape
 * inside a secret (`pa\_ss`) would hide it from the redactor, and the rendered page would show it.
 */
export function summaryMarkdown(summary: Summary, redact: (text: string) => string): string {
  const text = (value: string): string => tableCell(redact(value))
  const rows = summary.rows.map(([name, value]) => `| ${text(name)} | ${text(value)} |`)
  const notes = (summary.notes ?? []).map((note) => `> ${text(note)}`)
  const links = (summary.links ?? []).map((link) => markdownLink(link, text))
  const linkList = links.length > 0 ? [...links, ''] : []
  return [
    `### ${text(summary.heading)}`,
    '',
    '| | |',
    '|---|---|',
    ...rows,
    '',
    ...linkList,
    ...notes,
    '',
  ].join('\n')
}

/** `- [label](url)`: the label as any text is, and what would end the address encoded. */
function markdownLink({ label, url }: SummaryLink, text: (value: string) => string): string {
  const address = url.replace(
    /[()<>\s]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  )
  return `- [${text(label)}](${address})`
}
