import * as core from '@actions/core'
import type { ActionDefinition } from '../core/definition.js'
import { tableCell } from '../core/shared/markdown.js'
import type { Logger, Reporter, Summary } from '../core/shared/ports.js'
import { Redactor } from '../core/shared/redactor.js'
import { leakForms } from '../core/shared/secrets.js'
import type { Runtime } from './runtime.js'
import { boundSummary } from './summary-limit.js'

/**
 * The GitHub runner, spoken to through @actions/core. The runner masks registered secrets in
 * its log, but not in the summary file nor in what a log forwarder or @github/local-action
 * captures: so we redact ourselves too. Outputs are the exception: they hold no secret by
 * construction (the core redacts the outside text it puts in one), and masking could corrupt them.
 */
export function createGithubRuntime(): Runtime {
  const redactor = new Redactor()
  const masked = new Set<string>()
  const r = (text: string): string => redactor.redact(text)
  const logger: Logger = {
    info: (message) => core.info(r(message)),
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
      if (!process.env.GITHUB_STEP_SUMMARY) return
      await core.summary.addRaw(boundSummary(r(summaryMarkdown(summary)))).write()
    },
  }
  return {
    kind: 'github',
    redactor,
    logger,
    reporter,
    readInputs: <I extends string>(definition: ActionDefinition<I>) => {
      const given: Partial<Record<I, string>> = {}
      for (const name of Object.keys(definition.inputs) as I[]) given[name] = core.getInput(name)
      return given
    },
    registerSecret: (value) => {
      for (const form of leakForms(value)) {
        if (masked.has(form)) continue
        masked.add(form)
        core.setSecret(form)
      }
      redactor.add(value)
    },
    // What core.setFailed does (an error, exit code 1), but with a title: it names the failed
    // input, and core.setFailed cannot give one.
    fail: (message, title) => {
      core.error(r(message), { title })
      process.exitCode = 1
    },
  }
}

export function summaryMarkdown(summary: Summary): string {
  const rows = summary.rows.map(([name, value]) => `| ${tableCell(name)} | ${tableCell(value)} |`)
  const notes = (summary.notes ?? []).map((note) => `> ${note}`)
  return [`### ${summary.heading}`, '', '| | |', '|---|---|', ...rows, '', ...notes, ''].join('\n')
}
