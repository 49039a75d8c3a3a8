import { isWholeSecret, type ActionDefinition } from '../core/definition.js'
import { InputError } from '../core/shared/errors.js'

export interface CliOptions {
  /** Write outputs as KEY=value lines here (GitLab `artifacts:reports:dotenv`). */
  dotenv?: string
  /** Write the summaries' links here as GitLab's `artifacts:reports:annotations` JSON. */
  annotations?: string
  help: boolean
  debug: boolean
}

export interface CliArgs<I extends string> {
  given: Partial<Record<I, string>>
  options: CliOptions
  /** The inputs given as flags: visible in process lists and job logs (see secretFlagWarnings). */
  flags: I[]
}

const OPTION_FLAGS = ['dotenv', 'annotations', 'help', 'debug'] as const
/** The options that take a file path. */
const PATH_FLAGS = new Set(['dotenv', 'annotations'])

/** `--name value`, `--name=value`, and a bare `--flag` for boolean inputs. */
export function parseCliArgs<I extends string>(
  definition: ActionDefinition<I>,
  argv: readonly string[],
): CliArgs<I> {
  const given: Partial<Record<I, string>> = {}
  const options: CliOptions = { help: false, debug: false }
  const flags: I[] = []
  // Where a boolean flag took no value: a stray argument right after it is most likely its value.
  let bareFlag = -1
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? ''
    if (arg === '-h') {
      options.help = true
      continue
    }
    const match = /^--([a-z][a-z0-9-]*)(?:=([\s\S]*))?$/.exec(arg)
    const name = match?.[1] ?? ''
    const known = isInput(definition, name) || (OPTION_FLAGS as readonly string[]).includes(name)
    if (!match || !known) throw unknownArgument(definition, argv, index, bareFlag === index - 1)
    let value = match[2]
    const takesValue =
      PATH_FLAGS.has(name) ||
      (isInput(definition, name) && definition.inputs[name].type !== 'boolean')
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
        bareFlag = index
      }
    }
    if (name === 'dotenv') options.dotenv = value
    else if (name === 'annotations') options.annotations = value
    else if (name === 'help') options.help = value.toLowerCase() === 'true'
    else if (name === 'debug') options.debug = value.toLowerCase() === 'true'
    else if (isInput(definition, name)) {
      given[name] = value
      flags.push(name)
    }
  }
  return { given, options, flags }
}

function isInput<I extends string>(definition: ActionDefinition<I>, name: string): name is I {
  return Object.hasOwn(definition.inputs, name)
}

/**
 * An argument we do not know, reported without its value: GitLab has no run-time masking, and a
 * mistyped flag (`--webhook-tokn=<token>`) or a value after a flag that takes none is as likely
 * to hold a secret as any. A flag is named when its name looks like one (`--` and words of
 * letters and digits joined by - or _, 40 characters at most, or a dash and one letter), never
 * what follows its `=`; anything else (a token may start with a dash) by its position only.
 */
function unknownArgument(
  definition: ActionDefinition,
  argv: readonly string[],
  index: number,
  afterBareFlag: boolean,
): InputError {
  const arg = argv[index] ?? ''
  const flag = /^(--[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*|-[A-Za-z])(=|$)/.exec(arg)
  if (!flag || (flag[1] ?? '').length > 40)
    return unknownArgumentAt(definition, argv, index, afterBareFlag)
  const name = flag[1] ?? ''
  const valueNote = flag[2] === '=' ? ' (its value is not shown)' : ''
  const suggestion = closestFlag(name, knownFlags(definition))
  const hint = suggestion
    ? ` Did you mean '--${suggestion}'?${name !== name.toLowerCase() || name.includes('_') ? ' Flags are lower-case, with hyphens.' : ''}`
    : ''
  return new InputError(
    name,
    `Unknown flag '${name}'${valueNote} for '${definition.id}'.${hint} ${expectedFlags(definition)}`,
  )
}

function unknownArgumentAt(
  definition: ActionDefinition,
  argv: readonly string[],
  index: number,
  afterBareFlag: boolean,
): InputError {
  const where = `argument ${index + 1}`
  const after = afterBareFlag ? argv[index - 1] : undefined
  const why = after
    ? ` It follows '${after}', a true/false flag, which takes 'true', 'false' or nothing after it.`
    : ` Every input is given as '--<input> <value>' or '--<input>=<value>'.`
  return new InputError(
    where,
    `Unexpected ${where} after '${definition.id}' (not shown: it may be a secret).${why} ${expectedFlags(definition)}`,
  )
}

function knownFlags(definition: ActionDefinition): string[] {
  return [...Object.keys(definition.inputs), ...OPTION_FLAGS]
}

function expectedFlags(definition: ActionDefinition): string {
  return `Expected one of: ${knownFlags(definition)
    .map((name) => `--${name}`)
    .join(', ')}.`
}

/**
 * The flag a mistyped one most likely meant: the same in another case or with _, at most two
 * edits away, or the one flag it begins.
 */
function closestFlag(typed: string, known: readonly string[]): string | undefined {
  const normal = typed.replace(/^-+/, '').toLowerCase().replace(/_/g, '-')
  const longer = known.filter((name) => normal.length >= 4 && name.startsWith(normal))
  let best: { name: string; distance: number } | undefined
  for (const name of known) {
    const distance = editDistance(normal, name)
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance }
  }
  return best?.name ?? (longer.length === 1 ? longer[0] : undefined)
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution)
    }
    previous = current
  }
  return previous[b.length] ?? 0
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
      isWholeSecret(spec)
        ? 'secret: prefer the environment variable'
        : typeof spec.secret === 'object'
          ? `when it holds ${spec.secret.said}, prefer the environment variable`
          : '',
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
    `  ${'--annotations <file>'.padEnd(34)} write the summary's links as JSON (GitLab annotations report)`,
    `  ${'--debug'.padEnd(34)} print debug lines`,
    `  ${'--help'.padEnd(34)} print this help`,
  )
  return lines.join('\n')
}
