import { ActionError, errorMessage } from '../shared/errors.js'
import { commandLine } from '../shared/exec.js'
import type { Logger } from '../shared/ports.js'
import type { ImageKind } from './definition.js'
import { buildArgv } from './docker-args.js'
import { DockerCommandError, type DockerClient } from './docker.js'
import type { ImagePlan } from './plan.js'

/** The three images are independent; the engine builds them side by side. */
export const MAX_PARALLEL_BUILDS = 3
const SHOWN_TAIL_LINES = 20
/** Docker 23+ prints this banner before every build without buildx: noise in an error. */
const BUILDER_BANNER =
  /legacy builder is deprecated|Install the buildx component|docs\.docker\.com\/go\/buildx/

export interface BuiltImage {
  kind: ImageKind
  reference: string
  references: string[]
  /** The manifest digest after push; undefined when not pushed. */
  digest?: string
  size?: number
}

export interface BuildOptions {
  push: boolean
  /** Whether `docker login` ran: it changes the advice when a push is refused. */
  loggedIn: boolean
  parallel?: number
}

export interface BuildTools {
  docker: DockerClient
  logger: Logger
  redact: (text: string) => string
}

/**
 * Builds every plan, at most `parallel` at a time, pushing each image as soon as its own build
 * succeeds. After the first failure no new build or push starts; builds already running finish
 * (so none is left writing after the step ends), then the step fails with that first error.
 */
export async function buildAndPush(
  plans: readonly ImagePlan[],
  options: BuildOptions,
  tools: BuildTools,
): Promise<BuiltImage[]> {
  const queue = [...plans]
  const built = new Map<ImageKind, BuiltImage>()
  let failure: ActionError | undefined
  const stopped = (): boolean => failure !== undefined
  const worker = async (): Promise<void> => {
    while (!stopped()) {
      const plan = queue.shift()
      if (!plan) return
      try {
        const image = await buildOne(plan, options, tools, stopped)
        if (image) built.set(plan.kind, image)
      } catch (error) {
        failure ??= explain(error, plan, options, tools.redact)
      }
    }
  }
  const workers = Math.max(1, Math.min(options.parallel ?? MAX_PARALLEL_BUILDS, plans.length))
  await Promise.all(Array.from({ length: workers }, worker))
  if (failure) throw failure
  return plans.flatMap((plan) => built.get(plan.kind) ?? [])
}

async function buildOne(
  plan: ImagePlan,
  options: BuildOptions,
  tools: BuildTools,
  stopped: () => boolean,
): Promise<BuiltImage | undefined> {
  const { docker, logger } = tools
  const say = (line: string): void => logger.info(`[${plan.kind}] ${line}`)
  say(`$ ${commandLine('docker', buildArgv(plan.command))}`)
  await docker.build(plan.command, say)
  say(`built ${plan.references.join(', ')}`)
  const image: BuiltImage = {
    kind: plan.kind,
    reference: plan.reference,
    references: plan.references,
  }
  if (options.push) {
    for (const reference of plan.references) {
      if (stopped()) {
        say('not pushed: another image failed')
        return undefined
      }
      say(`$ docker push ${reference}`)
      const digest = await docker.push(reference, say)
      image.digest ??= digest
    }
    say(`pushed, digest ${image.digest ?? '(none)'}`)
  }
  image.size = await docker.imageSize(plan.reference)
  return image
}

function explain(
  error: unknown,
  plan: ImagePlan,
  options: BuildOptions,
  redact: (text: string) => string,
): ActionError {
  if (!(error instanceof DockerCommandError)) {
    return new ActionError(redact(`The ${plan.kind} image failed: ${errorMessage(error)}`))
  }
  const tail = error.tail
    .filter((line) => line.trim() !== '' && !BUILDER_BANNER.test(line))
    .slice(-SHOWN_TAIL_LINES)
    .map((line) => `  ${line}`)
  const output = tail.length > 0 ? ` Last lines of its output:\n${tail.join('\n')}\n` : ' '
  const pushing = error.command === 'docker push'
  const what = pushing
    ? `Pushing the ${plan.kind} image '${plan.reference}' failed`
    : `Building the ${plan.kind} image failed`
  const advice = pushing
    ? pushAdvice(error.tail.join('\n'), options.loggedIn)
    : `Fix '${plan.dockerfile}' or the sources in '${plan.sources}' and run again; no other image was built after this failure.`
  return new ActionError(redact(`${what}: ${error.message}.${output}${advice}`))
}

function pushAdvice(output: string, loggedIn: boolean): string {
  if (
    /unauthori[sz]ed|denied|authentication required|no basic auth credentials|forbidden/i.test(
      output,
    )
  ) {
    return loggedIn
      ? "The registry refused the push: check that 'registry-username' and 'registry-password' may write to this image name (a token needs package write access)."
      : "The registry refused the push: set 'registry-username' and 'registry-password', or log in to the registry in an earlier step."
  }
  return 'Check that the registry is reachable from the runner and run again.'
}
