import { join } from 'node:path'
import { mirroredReference, type RegistryMirrors } from '../registry/mirrors.js'
import type { Files, Logger } from '../shared/ports.js'
import { mapLimit } from '../shared/concurrency.js'
import { errorMessage } from '../shared/errors.js'
import { COPY_STEP, type HistoryEntry } from './builders/build-command.js'
import { imageNoun } from './image-kinds.js'
import { BuilderCommandError, type ImageBuilder } from './builders/image-builder.js'
import { triggersOf, type Stage } from '../dockerfile/stages.js'
import type { ImagePlan } from './plan/plan.js'

/**
 * `SOURCES_PATH` that nothing declares expands to nothing, and `COPY $SOURCES_PATH <dest>` then
 * copies the whole build context (.git, node_modules, .env files) into the image: BuildKit does
 * not fail. So before any build, each Dockerfile stage that uses it must declare it, itself
 * (`ARG SOURCES_PATH`) or through its base image (`ONBUILD ARG SOURCES_PATH`, as Olympe's base
 * images do). After each build whose image passes through the engine (not one a builder pushed
 * itself), the layer that COPY added is compared with the sources folder.
 */

const ALLOW_INPUT = 'allow-undeclared-sources-path'

export interface SourcesPathPorts {
  builder: ImageBuilder
  files: Pick<Files, 'stat' | 'listFilesDeep'>
  logger: Logger
  redact: (text: string) => string
}

export interface SourcesPathFindings {
  problems: string[]
  warnings: string[]
  /**
   * Each image's base image, by the name the builder holds it under (its mirror's when
   * `registry-mirrors` serves it), for the size check after its build (undefined: not known).
   */
  bases: Map<string, string | undefined>
}

/** A Dockerfile as the check phase read it (see checkDockerfiles), with what its text says. */
export interface DockerfileStages {
  /** Project-relative, for messages. */
  path: string
  /** Its images' sources folder, for messages. */
  sources: string
  stages: Stage[]
  /** The stages whose verdict needs their base image's ONBUILD triggers, read by the builder. */
  askEngine: Stage[]
}

/**
 * What a Dockerfile's text alone says of SOURCES_PATH, in the check phase: a stage that declares
 * it is fine, a stage built FROM an earlier stage that uses it without declaring it is refused,
 * and a base image named through a build argument without a value cannot be read. The other
 * stages' bases are read by the builder when the step runs (checkSourcesPathDeclared).
 */
export function sourcesPathFromText(
  dockerfile: Omit<DockerfileStages, 'askEngine'>,
  allowUnreadable: boolean,
): { problems: string[]; warnings: string[]; askEngine: Stage[] } {
  const found = { problems: [] as string[], warnings: [] as string[], askEngine: [] as Stage[] }
  for (const stage of dockerfile.stages) {
    const verdict = judgeText(stage, dockerfile.stages)
    if (verdict.kind === 'fine') continue
    if (verdict.kind === 'ask') found.askEngine.push(stage)
    else judged(dockerfile, verdict, allowUnreadable, found)
  }
  return found
}

/**
 * Before any build, once the builder runs: each stage that its text left open (see
 * sourcesPathFromText) is judged by its base image's ONBUILD triggers. A base that a mirror
 * serves is read there, as the build pulls it.
 */
export async function checkSourcesPathDeclared(
  plans: readonly ImagePlan[],
  dockerfiles: ReadonlyMap<string, DockerfileStages>,
  options: { allowUnreadable: boolean; mirrors: RegistryMirrors },
  ports: SourcesPathPorts,
): Promise<SourcesPathFindings> {
  const { allowUnreadable, mirrors } = options
  const pulled = (base: string | undefined): string | undefined =>
    base === undefined ? undefined : (mirroredReference(base, mirrors) ?? base)
  const findings: SourcesPathFindings = { problems: [], warnings: [], bases: new Map() }
  for (const plan of plans) {
    const dockerfile = dockerfiles.get(plan.id)
    if (!dockerfile) continue
    findings.bases.set(plan.id, pulled(rootBase(dockerfile.stages)))
    for (const stage of dockerfile.askEngine) {
      const verdict = await judgeBase(stage, ports, pulled)
      if (verdict.kind !== 'fine') judged(dockerfile, verdict, allowUnreadable, findings)
    }
  }
  return findings
}

type Verdict = { kind: 'fine' } | { kind: 'undeclared' | 'unreadable'; why: string }

function judged(
  dockerfile: Pick<DockerfileStages, 'path' | 'sources'>,
  verdict: Exclude<Verdict, { kind: 'fine' }>,
  allowUnreadable: boolean,
  findings: { problems: string[]; warnings: string[] },
): void {
  if (verdict.kind === 'undeclared') findings.problems.push(undeclared(dockerfile, verdict.why))
  else if (allowUnreadable) findings.warnings.push(unreadableAllowed(dockerfile, verdict.why))
  else findings.problems.push(unreadable(dockerfile, verdict.why))
}

function judgeText(stage: Stage, stages: Stage[]): Verdict | { kind: 'ask' } {
  if (stage.declaresSourcesPath) return { kind: 'fine' }
  if (stage.parentStage !== undefined) {
    if (!stage.usesSourcesPath) return { kind: 'fine' }
    const parent = stages[stage.parentStage]?.from ?? ''
    return {
      kind: 'undeclared',
      why: `its stage '${stage.from}' has no 'ARG SOURCES_PATH' line, and build arguments do not pass from '${parent}' to the stages built FROM it`,
    }
  }
  if (stage.base === undefined) {
    return {
      kind: 'unreadable',
      why: `its line '${stage.from}' names the base image through a build argument without a value`,
    }
  }
  return { kind: 'ask' }
}

async function judgeBase(
  stage: Stage,
  ports: SourcesPathPorts,
  pulled: (base: string) => string | undefined,
): Promise<Verdict> {
  const base = stage.base ?? ''
  let triggers: string[]
  try {
    triggers = await ports.builder.onBuildTriggers(pulled(base) ?? base)
  } catch (error) {
    const said = error instanceof BuilderCommandError ? error.tail.slice(-2).join(' ').trim() : ''
    const reason = `${errorMessage(error)}${said ? `: ${said}` : ''}`
    return {
      kind: 'unreadable',
      why: ports.redact(
        `whether its base image '${base}' declares it (ONBUILD ARG SOURCES_PATH) could not be read (${reason})`,
      ),
    }
  }
  const declared = triggersOf(triggers)
  if (declared.declares) {
    ports.logger.debug(`'${base}' declares SOURCES_PATH with ONBUILD ARG.`)
    return { kind: 'fine' }
  }
  if (!stage.usesSourcesPath && !declared.uses) return { kind: 'fine' }
  return {
    kind: 'undeclared',
    why: `it has no 'ARG SOURCES_PATH' line, and its base image '${base}' has no 'ONBUILD ARG SOURCES_PATH'`,
  }
}

const HAZARD =
  "The build would expand $SOURCES_PATH to nothing and copy the whole build context (.git, node_modules, .env files…) into the image, where it expects '{sources}'."
const FIXES =
  "Fix it either way: add the line 'ARG SOURCES_PATH' after the FROM line, or build FROM a base image that declares it (Olympe's olympeio/* base images do, with ONBUILD ARG SOURCES_PATH)."

type Named = Pick<DockerfileStages, 'path' | 'sources'>

const hazard = (dockerfile: Named): string => HAZARD.replace('{sources}', dockerfile.sources)

function undeclared(dockerfile: Named, why: string): string {
  return `'${dockerfile.path}' uses $SOURCES_PATH but nothing declares it: ${why}. ${hazard(dockerfile)} ${FIXES}`
}

function unreadable(dockerfile: Named, why: string): string {
  return `'${dockerfile.path}' has no 'ARG SOURCES_PATH' line, and ${why}. If nothing declares it, ${lower(hazard(dockerfile))} ${FIXES} If you know that the base image declares it, set '${ALLOW_INPUT}' to true.`
}

function unreadableAllowed(dockerfile: Named, why: string): string {
  return `'${dockerfile.path}' has no 'ARG SOURCES_PATH' line, and ${why}. Building anyway, as '${ALLOW_INPUT}' is true; the size check after the build still stops an image whose COPY took far more than '${dockerfile.sources}'.`
}

const lower = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1)

/** The external image at the root of the final stage's FROM chain. */
function rootBase(stages: readonly Stage[]): string | undefined {
  let stage = stages[stages.length - 1]
  // readStages links a stage only to an earlier one, so this walk ends.
  while (stage?.parentStage !== undefined) stage = stages[stage.parentStage]
  return stage?.base
}

/** A COPY larger than this many times its sources, plus SLACK_BYTES, took something else too. */
const FACTOR = 2
const SLACK_BYTES = 1024 * 1024

/**
 * The base images' histories a run has read, by reference: most of a run's images share one
 * base (every backend of `backends`), whose history is the same for each, and each read is a
 * docker process. A read that failed is forgotten, so that the next image tries again.
 */
export type BaseHistories = Map<string, Promise<HistoryEntry[]>>

function baseHistory(
  base: string,
  builder: ImageBuilder,
  read: BaseHistories,
): Promise<HistoryEntry[]> {
  let history = read.get(base)
  if (!history) {
    history = builder.history(base)
    read.set(base, history)
    history.catch(() => read.delete(base))
  }
  return history
}

/**
 * The second line of defence, after a build and before its push: the largest COPY or ADD layer
 * the build added over its base image, against the size of the sources folder. Resolves to the
 * problem, or undefined when the sizes agree or cannot be compared (said in the log). The base's
 * history comes from `baseHistories` when an earlier image of the run read it.
 */
export async function checkCopiedSize(
  plan: ImagePlan,
  base: string | undefined,
  root: string,
  ports: SourcesPathPorts,
  baseHistories: BaseHistories = new Map(),
): Promise<string | undefined> {
  const notCompared = (why: string): void => {
    ports.logger.info(`[${plan.id}] size of what COPY added not compared: ${why}.`)
  }
  if (base === undefined) {
    notCompared('the base image is not known before the build')
    return undefined
  }
  let added
  try {
    const [image, parent] = await Promise.all([
      ports.builder.history(plan.reference),
      baseHistory(base, ports.builder, baseHistories),
    ])
    added = image.slice(0, Math.max(0, image.length - parent.length))
  } catch (error) {
    notCompared(ports.redact(`reading the images' history failed (${errorMessage(error)})`))
    return undefined
  }
  const copies = added.filter((entry) => COPY_STEP.test(entry.createdBy))
  const largest = copies.sort((a, b) => b.bytes - a.bytes)[0]
  if (!largest) return undefined
  const sources = await folderBytes(join(root, plan.sources), ports.files)
  if (largest.bytes <= FACTOR * sources + SLACK_BYTES) return undefined
  const step = largest.createdBy
    .replace(/^\/bin\/sh -c #\(nop\)\s+/, '')
    .replace(/\s*# buildkit$/, '')
    .trim()
  return `The ${imageNoun(plan)} image was built but not pushed: its step '${step}' added ${megabytes(largest.bytes)}, while '${plan.sources}' holds ${megabytes(sources)}. It copied more than the build output, most likely the whole build context (.git, node_modules, .env files…). Check the COPY lines of '${plan.dockerfile}' (COPY $SOURCES_PATH, with SOURCES_PATH declared; not COPY .) and its .dockerignore.`
}

/** Files stat'ed at once: a real backend folder holds some 15,000 (one by one, seconds). */
const STAT_CALLS = 256

async function folderBytes(
  folder: string,
  files: Pick<Files, 'stat' | 'listFilesDeep'>,
): Promise<number> {
  const paths = await files.listFilesDeep(folder)
  const found = await mapLimit(paths, STAT_CALLS, (path) => files.stat(path))
  return found.reduce((total, entry) => total + (entry?.size ?? 0), 0)
}

const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`
