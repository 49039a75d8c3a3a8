import type { ActionDefinition } from '../core/definition.js'
import { InputError } from '../core/shared/errors.js'

export interface CliOptions {
  /** Write outputs as KEY=value lines here (GitLab `artifacts:reports:dotenv`). */
  dotenv?: string
  help: boolean
  debug: boolean
}

export interface CliArgs<I extends string> {
  given: Partial<Record<I, string>>
  options: CliOptions
  /** Secret inputs given as flags: visible in process lists and job logs, worth a warning. */
  secretFlags: I[]
}

const OPTION_FLAGS = ['dotenv', 'help', 'debug'] as const

/** `--name value`, `--name=value`, and a bare `--flag` for boolean inputs. */
export function parseCliArgs<I extends string>(
  definition: ActionDefinition<I>,
  argv: readonly string[],
): CliArgs<I> {
  const given: Partial<Record<I, string>> = {}
  const options: CliOptions = { help: false, debug: false }
  const secretFlags: I[] = []
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? ''
    if (arg === '-h') {
      options.help = true
      continue
    }
    const match = /^--([a-z][a-z0-9-]*)(?:=([\s\S]*))?$/.exec(arg)
    if (!match) throw unknownArgument(definition, arg)
    const name = match[1] ?? ''
    let value = match[2]
    const takesValue =
      name === 'dotenv' || (isInput(definition, name) && definition.inputs[name].type !== 'boolean')
    if (value === undefined) {
      const next = argv[index + 1]
      if (takesValue) {
        if (next === undefined) throw new InputError(name, `The flag '--${name}' needs a value.`)
        value = next
        index++
      } else if (next !== undefined && /^(true|false)$/i.test(next)) {
        value = next
        index++
      } else {
        value = 'true'
      }
    }
    if (name === 'dotenv') options.dotenv = value
    else if (name === 'help') options.help = value.toLowerCase() === 'true'
    else if (name === 'debug') options.debug = value.toLowerCase() === 'true'
    else if (isInput(definition, name)) {
      given[name] = value
      if (definition.inputs[name].secret) secretFlags.push(name)
    } else throw unknownArgument(definition, arg)
  }
  return { given, options, secretFlags }
}

function isInput<I extends string>(definition: ActionDefinition<I>, name: string): name is I {
  return Object.hasOwn(definition.inputs, name)
}

function unknownArgument(definition: ActionDefinition, arg: string): InputError {
  const flags = [...Object.keys(definition.inputs), ...OPTION_FLAGS].map((name) => `--${name}`)
  return new InputError(
    arg,
    `Unknown argument '${arg}' for '${definition.id}'. Expected one of: ${flags.join(', ')}.`,
  )
}

export function usage(definition: ActionDefinition): string {
  const lines = [
    `Usage: olympe-deploy ${definition.id} [--<input> <value>]...`,
    '',
    definition.description,
    '',
    'Inputs (also read from INPUT_<NAME> environment variables, with - or _):',
  ]
  for (const [name, spec] of Object.entries(definition.inputs)) {
    const flag = spec.type === 'boolean' ? `--${name}` : `--${name} <value>`
    const notes = [
      spec.required ? 'required' : '',
      spec.secret ? 'secret: prefer the environment variable' : '',
      spec.default ? `default ${spec.default}` : '',
    ]
      .filter(Boolean)
      .join(', ')
    lines.push(`  ${flag.padEnd(34)} ${spec.description}${notes ? ` (${notes})` : ''}`)
  }
  lines.push(
    '',
    'Options:',
    `  ${'--dotenv <file>'.padEnd(34)} write the outputs as KEY=value lines (GitLab dotenv report)`,
    `  ${'--debug'.padEnd(34)} print debug lines`,
    `  ${'--help'.padEnd(34)} print this help`,
  )
  return lines.join('\n')
}
