import type { Logger, Reporter, Summary } from '../core/shared/ports.js'
import { leakForms, Redactor } from '../core/shared/redactor.js'
import type { ActionDefinition } from '../core/definition.js'
import type { CiContext } from './context.js'
import { GithubCommands } from './github-commands.js'
import { inputsFromEnv, type Runtime } from './runtime.js'

type Env = Record<string, string | undefined>

/**
 * The runner masks registered secrets in its log, but not in the files we write (outputs,
 * summary) nor in anything a log forwarder captures raw: so we redact ourselves too.
 */
export function createGithubRuntime(
  env: Env,
  context: CiContext,
  write: (text: string) => void = (text) => process.stdout.write(text),
): Runtime {
  const gh = new GithubCommands(write, env)
  const redactor = new Redactor()
  const masked = new Set<string>()
  const r = (text: string): string => redactor.redact(text)
  const logger: Logger = {
    info: (message) => write(`${r(message)}\n`),
    warning: (message, annotation) => gh.issue('warning', r(message), annotation),
    error: (message, annotation) => gh.issue('error', r(message), annotation),
    debug: (message) => {
      if (gh.debugEnabled) gh.issue('debug', r(message))
    },
    group: async (title, run) => {
      gh.issue('group', r(title))
      try {
        return await run()
      } finally {
        gh.issue('endgroup', '')
      }
    },
  }
  const reporter: Reporter = {
    setOutput: (name, value) => gh.setOutput(name, r(value)),
    summary: (summary) => {
      gh.appendSummary(r(summaryMarkdown(summary)))
      return Promise.resolve()
    },
  }
  return {
    kind: 'github',
    context,
    redactor,
    logger,
    reporter,
    readInputs: <I extends string>(definition: ActionDefinition<I>) =>
      inputsFromEnv(definition, env),
    registerSecret: (value) => {
      for (const form of leakForms(value)) {
        if (masked.has(form)) continue
        masked.add(form)
        gh.issue('add-mask', form)
      }
      redactor.add(value)
    },
  }
}

export function summaryMarkdown(summary: Summary): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
  const rows = summary.rows.map(([name, value]) => `| ${cell(name)} | ${cell(value)} |`)
  const notes = (summary.notes ?? []).map((note) => `> ${note}`)
  return [`### ${summary.heading}`, '', '| | |', '|---|---|', ...rows, '', ...notes, ''].join('\n')
}
