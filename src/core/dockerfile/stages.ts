import {
  DockerfileProblem,
  parseDockerfile,
  type DockerfileSyntax,
  type Instruction,
} from './syntax.js'
import { argNames, MetaArgs, readFrom, type BuildArgs } from './arguments.js'

/**
 * A Dockerfile's stages as BuildKit reads them (syntax.ts): what each builds FROM, and whether
 * it declares and uses SOURCES_PATH (the SOURCES_PATH pre-flight), its base's ONBUILD triggers
 * included.
 */

export interface Stage {
  /** The FROM line as written, for messages. */
  from: string
  /** The image it builds FROM, build arguments expanded; undefined when one has no value. */
  base?: string
  /** The earlier stage it builds FROM, when its FROM names one. */
  parentStage?: number
  /** An `ARG SOURCES_PATH` line in the stage. */
  declaresSourcesPath: boolean
  /** `$SOURCES_PATH` or `${SOURCES_PATH}` in the stage's instructions. */
  usesSourcesPath: boolean
}

const SOURCES_PATH_USE = /\$(?:SOURCES_PATH\b|\{SOURCES_PATH[}:])/

/**
 * The stages, in order. `buildArgs` are the `--build-arg` values the build will get: they
 * override the defaults of the ARG lines before the first FROM, which FROM lines may use. A
 * Dockerfile BuildKit cannot read has no stages here: its build fails and says why.
 */
export function readStages(dockerfile: string, buildArgs: BuildArgs): Stage[] {
  try {
    return stagesOf(parseDockerfile(dockerfile), buildArgs)
  } catch (error) {
    if (error instanceof DockerfileProblem) return []
    throw error
  }
}

function stagesOf(syntax: DockerfileSyntax, buildArgs: BuildArgs): Stage[] {
  const meta = new MetaArgs(new Map(buildArgs.map(([name, value]) => [name, value])))
  const stages: Stage[] = []
  const names = new Map<string, number>()
  for (const instruction of syntax.instructions) {
    const current = stages[stages.length - 1]
    if (instruction.keyword === 'FROM') {
      const from = readFrom(instruction, meta, syntax.escape, names)
      stages.push({
        from: instruction.original.trim(),
        base: from.stage === undefined ? from.image : undefined,
        parentStage: from.stage,
        declaresSourcesPath: false,
        usesSourcesPath: false,
      })
      if (from.name) names.set(from.name, stages.length - 1)
    } else if (!current) {
      if (instruction.keyword === 'ARG') meta.declare(instruction, syntax.escape)
    } else if (instruction.keyword === 'ARG') {
      current.declaresSourcesPath ||= argNames(instruction).includes('SOURCES_PATH')
    } else if (usesSourcesPath(instruction)) {
      current.usesSourcesPath = true
    }
  }
  return stages
}

function usesSourcesPath(instruction: Instruction): boolean {
  return [instruction.original, ...instruction.heredocs.map((doc) => doc.content)].some((text) =>
    SOURCES_PATH_USE.test(text),
  )
}

/** Whether ONBUILD triggers declare, or use, `SOURCES_PATH`. */
export function triggersOf(triggers: readonly string[]): { declares: boolean; uses: boolean } {
  let declares = false
  let uses = false
  for (const trigger of triggers) {
    const instruction = parseTrigger(trigger)
    if (!instruction) continue
    if (instruction.keyword === 'ARG') declares ||= argNames(instruction).includes('SOURCES_PATH')
    else uses ||= usesSourcesPath(instruction)
  }
  return { declares, uses }
}

/** A base image's ONBUILD trigger, parsed alone as BuildKit parses it; undefined when it cannot be. */
function parseTrigger(trigger: string): Instruction | undefined {
  try {
    const [only, ...more] = parseDockerfile(trigger).instructions
    return more.length === 0 ? only : undefined
  } catch (error) {
    if (error instanceof DockerfileProblem) return undefined
    throw error
  }
}
