import { DockerfileProblem, type Escape, type Instruction } from './syntax.js'
import { processWord, ShellNotUnderstood, ShellSyntaxError, type Env } from './shell-words.js'

/**
 * Build arguments as BuildKit reads them: the ARG lines before the first FROM (the meta
 * arguments FROM lines see) and the image a FROM line names once they are expanded.
 */

/** The `--build-arg` values a build gets, in the order given. */
export type BuildArgs = ReadonlyArray<readonly [string, string]>

/** The names an ARG line declares. */
export const argNames = (instruction: Instruction): string[] =>
  instruction.args.map((word) => word.split('=')[0] ?? '')

/** The ARG lines before the first FROM: what FROM lines and stage ARGs without a value see. */
export class MetaArgs {
  /** Name to value; '' for an ARG without one (set, but empty, as BuildKit's map has it). */
  readonly values = new Map<string, string>()
  /** The ARGs declared without a value and given none: FROM lines that use them are unknown. */
  readonly empty = new Set<string>()

  constructor(readonly given: ReadonlyMap<string, string>) {}

  declare(instruction: Instruction, escape: Escape): void {
    for (const { name, value } of argPairs(instruction)) {
      const given = this.given.get(name)
      if (given !== undefined) this.values.set(name, given)
      else if (value !== undefined) this.values.set(name, expandPlain(value, this.values, escape))
      else {
        this.values.set(name, '')
        this.empty.add(name)
      }
    }
  }
}

/** A word expanded with known values; a DockerfileProblem when BuildKit or this step cannot. */
function expandPlain(word: string, env: Env, escape: Escape): string {
  try {
    return processWord(word, env, escape)
  } catch (error) {
    if (error instanceof ShellSyntaxError) throw new DockerfileProblem(error.message, true)
    if (error instanceof ShellNotUnderstood)
      throw new DockerfileProblem(
        `'${word}' uses ${error.message}, which this step does not expand`,
        false,
      )
    throw error
  }
}

interface ArgPair {
  name: string
  value?: string
}

export function argPairs(instruction: Instruction): ArgPair[] {
  return instruction.args.map((word) => {
    const at = word.indexOf('=')
    const name = at < 0 ? word : word.slice(0, at)
    if (name === '' || /[$"'`\\]/.test(name))
      throw new DockerfileProblem(`its ARG name '${name}' is not a plain name`, name === '')
    return at < 0 ? { name } : { name, value: word.slice(at + 1) }
  })
}

export interface From {
  /** The image, expanded; undefined when it uses a meta ARG without a value. */
  image?: string
  stage?: number
  name?: string
}

export function readFrom(
  instruction: Instruction,
  meta: MetaArgs,
  escape: Escape,
  names: ReadonlyMap<string, number>,
): From {
  const [image = '', as, name] = instruction.args
  const stageName = as?.toLowerCase() === 'as' && name ? name.toLowerCase() : undefined
  const seen = { blank: false }
  const env: Env = {
    get: (key) => {
      const value = meta.values.get(key)
      if (value === undefined || value === '') seen.blank = true
      return value
    },
  }
  let expanded: string
  try {
    expanded = processWord(image, env, escape)
  } catch (error) {
    if (error instanceof ShellSyntaxError || error instanceof ShellNotUnderstood)
      return { name: stageName }
    throw error
  }
  if (seen.blank || expanded === '') return { name: stageName }
  const stage = names.get(expanded.toLowerCase())
  return stage === undefined ? { image: expanded, name: stageName } : { stage, name: stageName }
}
