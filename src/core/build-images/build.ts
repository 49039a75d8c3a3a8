import { ActionError, CancelledError, errorMessage } from '../shared/errors.js'
import type { Logger } from '../shared/ports.js'
import { imageNoun } from './image-kinds.js'
import { type ImageKind } from '../shared/project-images.js'
import {
  BuilderCommandError,
  type BuilderSetup,
  type ImageBuilder,
} from './builders/image-builder.js'
import { builderNamed } from './builders/known-builders.js'
import type { ImagePlan } from './plan/plan.js'
import type { Retag } from './retag.js'

/**
 * The images are independent, so they are built side by side, at most this many at once. Their
 * builds copy a build output into a base image: disk and network more than CPU. On a 2-core
 * runner, three at once keep both cores busy while one build waits on its pull, its layer export
 * or its push; more only make them wait on each other for the same disk and uplink, each build
 * holding its context and, with Buildah (no daemon), a process and a copy of its layers.
 */
export const MAX_PARALLEL_BUILDS = 3
const SHOWN_TAIL_LINES = 20
/** Docker 23+ prints this banner before every build without buildx: noise in an error. */
const BUILDER_BANNER =
  /legacy builder is deprecated|Install the buildx component|docs\.docker\.com\/go\/buildx/

export interface BuiltImage {
  /** Its plan's id: `backend:<name>` for one of `backends`. */
  id: string
  kind: ImageKind
  /** The backend's name, with `backends`. */
  name?: string
  reference: string
  references: string[]
  /** The manifest digest after push; undefined when not pushed. */
  digest?: string
  size?: number
  /** Not built: the earlier image with the same fingerprint, given this run's tags. */
  reused?: { since: string; fingerprint: string }
}

export interface BuildOptions {
  push: boolean
  /** Whether the step's registry login ran: it changes the advice when a push is refused. */
  loggedIn: boolean
  /** Where the login comes from on this platform, for that advice (CiContext.registryLoginHelp). */
  loginHelp: string
  parallel?: number
  /** Run on each image the builder holds, after its build and before its push: a problem, or undefined. */
  check?: (plan: ImagePlan) => Promise<string | undefined>
  /**
   * Gives a pushed image its further tags through the registry API (see retag.ts) instead of one
   * push each. Without it, or once it failed in this run, each tag is pushed.
   */
  retag?: Retag
}

export interface BuildTools {
  builder: ImageBuilder
  logger: Logger
  redact: (text: string) => string
}

/**
 * Some images failed: each one's error, in the plans' order; the images built (and pushed, with
 * push) before the step stopped, which the records of later runs still need; and those built but
 * not pushed, as another had failed by then.
 */
export class BuildFailure extends ActionError {
  constructor(
    readonly failed: ReadonlyArray<{ plan: ImagePlan; error: ActionError }>,
    readonly built: readonly BuiltImage[],
    readonly unpushed: ReadonlySet<string>,
  ) {
    super(failed.map(({ error }) => error.message).join('\n'))
  }
}

/**
 * Builds every plan, at most `parallel` at a time, pushing each image as soon as its own build
 * succeeds. After the first failure no new build or push starts; builds already running finish
 * (so none is left writing after the step ends), then the step fails with a BuildFailure that
 * names each image that failed by then, and holds those that were done.
 */
export async function buildAndPush(
  plans: readonly ImagePlan[],
  options: BuildOptions,
  tools: BuildTools,
): Promise<BuiltImage[]> {
  const builder = await detectBuilder(tools, plans)
  // Tagging through the API stops at its first failure: the rest are pushed, as the engine can.
  const retagging: Retagging = { retag: options.retag }
  const queue = [...plans]
  const built = new Map<string, BuiltImage>()
  const unpushed = new Set<string>()
  const failed = new Map<string, ActionError>()
  let cancelled: CancelledError | undefined
  const stopped = (): boolean => failed.size > 0 || cancelled !== undefined
  const worker = async (): Promise<void> => {
    while (!stopped()) {
      const plan = queue.shift()
      if (!plan) return
      try {
        const image = await buildOne(plan, { ...options, builder, retagging }, tools, stopped)
        if (image) built.set(plan.id, image)
        else unpushed.add(plan.id)
      } catch (error) {
        const explained = explain(error, plan, options, tools.redact)
        if (explained instanceof CancelledError) cancelled ??= explained
        else failed.set(plan.id, explained)
      }
    }
  }
  const workers = Math.max(1, Math.min(options.parallel ?? MAX_PARALLEL_BUILDS, plans.length))
  await Promise.all(Array.from({ length: workers }, worker))
  if (cancelled) throw cancelled
  const done = plans.flatMap((plan) => built.get(plan.id) ?? [])
  if (failed.size > 0)
    throw new BuildFailure(
      plans.flatMap((plan) => {
        const error = failed.get(plan.id)
        return error ? [{ plan, error }] : []
      }),
      done,
      unpushed,
    )
  return done
}

async function buildOne(
  plan: ImagePlan,
  options: BuildOptions & { builder: BuilderSetup; retagging: Retagging },
  tools: BuildTools,
  stopped: () => boolean,
): Promise<BuiltImage | undefined> {
  const { builder, logger } = tools
  const say = (line: string): void => logger.info(`[${plan.id}] ${line}`)
  const built = await builder.build(plan.command, { push: options.push }, say)
  say(`built ${plan.references.join(', ')}`)
  // A builder other than the engine's, with push on, sends the image to the registry itself
  // (every tag) and reports its digest: nothing is left in the engine to check or to push.
  const pushedByBuilder = built.digest !== undefined
  if (!pushedByBuilder) {
    const problem = await options.check?.(plan)
    if (problem) throw new ActionError(tools.redact(problem))
  }
  const image: BuiltImage = {
    id: plan.id,
    kind: plan.kind,
    ...(plan.name === undefined ? {} : { name: plan.name }),
    reference: plan.reference,
    references: plan.references,
    digest: built.digest,
  }
  if (options.push && !pushedByBuilder) {
    // Every tag the build gave: the references, then the branch's moving tag.
    const first = plan.command.tags[0]
    for (const reference of plan.command.tags) {
      if (stopped()) {
        say('not pushed: another image failed')
        return undefined
      }
      const { digest } = image
      const { retag } = options.retagging
      if (first !== undefined && reference !== first && digest && retag) {
        const problem = await retag(first, digest, reference)
        if (problem === undefined) {
          say(`tagged ${reference}: the manifest pushed as ${first} (${digest})`)
          continue
        }
        options.retagging.retag = undefined
        say(
          tools.redact(
            `tagging ${reference} through the registry API failed (${problem}): pushed instead, as are the next tags of this run`,
          ),
        )
      }
      const pushed = await builder.push(reference, say)
      image.digest ??= pushed
    }
  }
  if (options.push) say(`pushed, digest ${image.digest ?? '(none)'}`)
  // Only the builder's image store knows the size.
  if (!pushedByBuilder) image.size = await builder.imageSize(plan.reference)
  return image
}

/** The run's tagging through the registry API, shared by its images: dropped at its first failure. */
interface Retagging {
  retag?: Retag
}

/**
 * How the builds will run, said in the log: it decides where the images end up. What this way
 * of building cannot do for these plans fails the step before the first build (with
 * DOCKER_BUILDKIT false the check phase refused it already; buildx may still be missing).
 */
async function detectBuilder(
  tools: BuildTools,
  plans: readonly ImagePlan[],
): Promise<BuilderSetup> {
  let builder: BuilderSetup
  try {
    builder = await tools.builder.setup()
  } catch (error) {
    const said = error instanceof BuilderCommandError ? ` (${error.tail.join(' ').trim()})` : ''
    throw new ActionError(
      tools.redact(
        `Finding the current buildx builder failed: ${errorMessage(error)}${said}. Select a working builder with 'docker buildx use default' (or set BUILDX_BUILDER to one that 'docker buildx ls' lists), then run again. Nothing was built.`,
      ),
    )
  }
  const notes = builderNamed(tools.builder.name).setupNotes(
    builder,
    plans.map((plan) => plan.command),
  )
  for (const { text, warning, title } of notes.lines) {
    if (!warning) tools.logger.info(text)
    else if (title) tools.logger.warning(text, { title })
    else tools.logger.warning(text)
  }
  if (notes.refusal) throw new ActionError(`${notes.refusal} Nothing was built.`)
  return builder
}

function explain(
  error: unknown,
  plan: ImagePlan,
  options: BuildOptions,
  redact: (text: string) => string,
): ActionError | CancelledError {
  // Cancelled: the platform says so, and what the step undid.
  if (error instanceof ActionError || error instanceof CancelledError) return error
  if (!(error instanceof BuilderCommandError)) {
    return new ActionError(redact(`The ${imageNoun(plan)} image failed: ${errorMessage(error)}`))
  }
  const tail = failureLines(error.tail).map((line) => `  ${line}`)
  const output = tail.length > 0 ? ` Last lines of its output:\n${tail.join('\n')}\n` : ' '
  const pushing = / push$/.test(error.command)
  const what = pushing
    ? `Pushing the ${imageNoun(plan)} image '${plan.reference}' failed`
    : `Building the ${imageNoun(plan)} image failed`
  const advice = pushing
    ? pushAdvice(error.tail.join('\n'), options)
    : buildAdvice(error.tail.join('\n'), plan, options)
  return new ActionError(redact(`${what}: ${error.message}.${output}${advice}`))
}

/**
 * The lines that explain a failure. BuildKit ends a failed build with a block that starts at the
 * failing step's `#N ERROR:` line (the step, the Dockerfile excerpt, `ERROR: failed to solve`):
 * shown whole, without the steps before it. Other output: its last lines.
 */
function failureLines(output: readonly string[]): string[] {
  const lines = output.filter((line) => line.trim() !== '' && !BUILDER_BANNER.test(line))
  const start = lines.findIndex((line) => /^#\d+ ERROR:/.test(line))
  return (start >= 0 ? lines.slice(start) : lines).slice(-SHOWN_TAIL_LINES)
}

type LoginFacts = Pick<BuildOptions, 'loggedIn' | 'loginHelp'>

function buildAdvice(output: string, plan: ImagePlan, login: LoginFacts): string {
  const rest = 'no other image was built after this failure.'
  if (/booting buildkit/i.test(output)) {
    return `The current buildx builder could not start BuildKit: let the runner pull the builder's BuildKit image (moby/buildkit unless set otherwise), or select the engine's own builder with 'docker buildx use default'; ${rest}`
  }
  if (
    /pushing|exporting to image|failed to push/i.test(output) &&
    /unauthori[sz]ed|denied|authentication required|forbidden/i.test(output)
  ) {
    return pushAdvice(output, login)
  }
  // BuildKit: `"/dist/web": not found`; Buildah: `copier: stat: "/dist/web": no such file or directory`.
  const missing = /"\/?([^"]+)": (?:not found|no such file or directory)/.exec(output)?.[1]
  if (missing) {
    return `'${missing}' is not in the build context. BuildKit sends only the files the Dockerfile uses, minus those .dockerignore (or '${plan.dockerfile}.dockerignore') leaves out: check the path and those files; ${rest}`
  }
  return `Fix '${plan.dockerfile}' or the sources in '${plan.sources}' and run again; ${rest}`
}

function pushAdvice(output: string, login: LoginFacts): string {
  if (
    /unauthori[sz]ed|denied|authentication required|no basic auth credentials|forbidden/i.test(
      output,
    )
  ) {
    return login.loggedIn
      ? `The registry refused the push: the login may not write to this image name. ${login.loginHelp}.`
      : `The registry refused the push, and the step was given no login ('registry-username' and 'registry-password'; or a docker login in an earlier step). ${login.loginHelp}.`
  }
  return 'Check that the registry is reachable from the runner and run again.'
}
