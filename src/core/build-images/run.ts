import type { CiContext } from '../shared/context.js'
import { ActionError } from '../shared/errors.js'
import type { CommonPorts, Reporter } from '../shared/ports.js'
import type { HttpClient } from '../shared/http.js'
import type { RegistryLogin } from '../registry/credentials.js'
import type { RegistryMirrors } from '../registry/mirrors.js'
import { registryName } from '../registry/reference.js'
import { BuildFailure, buildAndPush, type BuiltImage } from './build.js'
import { chooseBuilder, type BuilderCandidates } from './builders/choice.js'
import { builderNamed } from './builders/known-builders.js'
import {
  BuilderCommandError,
  type BuilderName,
  type ImageBuilder,
} from './builders/image-builder.js'
import {
  drawVersionMessage,
  resolveAppVersion,
  resolveDrawVersion,
  type DrawVersion,
} from './plan/draw-version.js'
import type { CheckedBuildImages } from './check.js'
import { FALLBACK_DEFAULT_BRANCH } from './plan/gate.js'
import { looksSecret } from './input-parsers.js'
import { repeatedNamespace } from './plan/image-names.js'
import { planImages, type ImagePlan } from './plan/plan.js'
import { servedFiles } from './plan/served-files-label.js'
import {
  DRAW_VERSION_LABEL,
  OCI_LABELS,
  SERVED_FILES_LABEL,
  type ServedFiles,
} from '../shared/image-labels.js'
import { preflight } from './preflight.js'
import { recordImages, type ReuseRecords } from './reuse/ci-record.js'
import { reuseUnchanged, type ReuseOutcome } from './reuse/reuse.js'
import { attestationPhase, type AttestationPorts } from './attest/phase.js'
import type { KeySigning } from './sign.js'
import { checkCopiedSize, type BaseHistories } from './sources-path.js'
import { registryRetag } from './retag.js'
import {
  buildOutputs,
  builtSummary,
  CODEASDATA_WARNING,
  failureReport,
  notSelected,
  skippedSummary,
} from './report.js'

export interface BuildImagesPorts
  extends
    Pick<CommonPorts, 'logger' | 'reporter' | 'redact' | 'files' | 'clock' | 'registerSecret'>,
    AttestationPorts {
  builders: BuilderPorts
  /** The registry API, for the images that did not change. */
  http: HttpClient
  /** Where the CI keeps its records of what the default branch built (reuse/ci-record.ts). */
  records?: ReuseRecords
  /**
   * The signing code (sign.ts), asked for only with 'signing-key': how it is loaded (lazily, in
   * a chunk of its own) is the action's choice, src/actions/build-images.ts.
   */
  signing: () => Promise<KeySigning>
}

/** The builders of the runner: asked which answers, then the one chosen opened for the run. */
export interface BuilderPorts {
  candidates: BuilderCandidates
  open(
    name: BuilderName,
    options: { login: boolean; mirrors: RegistryMirrors },
  ): Promise<OpenBuilder>
}

export interface OpenBuilder {
  builder: ImageBuilder
  /**
   * The runner's own registry logins (a Docker config, or the auth file Buildah reads), which
   * the look-ups of the registry API may use; never the step's own.
   */
  authFile: string
  /** Removes what the builder was given for this step: its config folder, its login. */
  dispose(): Promise<void>
}

type RunPorts = Omit<BuildImagesPorts, 'builders'> & {
  builder: ImageBuilder
  dockerConfigPath: string
}

/** What the check phase found when there is something to build. */
type CheckedBuild = Extract<CheckedBuildImages, { tags: string[] }>

/**
 * From what the check phase found (checkBuildImages: the branch gate, the tags, the Dockerfiles):
 * plan, pre-flight, the images that did not change (given the new tags), login, then build and
 * push what is left: each phase its own log group.
 */
export async function runBuildImages(
  checked: CheckedBuildImages,
  context: CiContext,
  ports: BuildImagesPorts,
): Promise<BuiltImage[]> {
  const { logger, reporter } = ports
  const { inputs } = checked
  if ('skipped' in checked) {
    setOutputs(reporter, [], { skipped: true, targets: inputs.targets })
    await reporter.summary(skippedSummary(checked.skipped))
    return []
  }

  const planned = await logger.group('Plan', () => plan(checked, context, ports))
  const chosen = await logger.group('Builder', async () => {
    const choice = await chooseBuilder(inputs.builder, ports.builders.candidates, ports)
    logger.info(`Building with ${builderNamed(choice.name).title}: ${choice.why}.`)
    return choice
  })
  const { registryMirrors: mirrors } = inputs
  const opened = await ports.builders.open(chosen.name, {
    login: inputs.registryLogin !== undefined,
    mirrors,
  })
  try {
    const runPorts = { ...ports, builder: opened.builder, dockerConfigPath: opened.authFile }
    const { images, built, unchanged } = await buildWith(checked, context, planned, runPorts)
    const signed = await sign(checked, images, built, runPorts)
    const drawVersion = planned.drawVersion?.value
    const made = { images, built, unchanged, ...(drawVersion ? { drawVersion } : {}) }
    const attested = await attestationPhase(checked, context, made, runPorts)
    setOutputs(reporter, images, {
      skipped: false,
      version: planned.version,
      targets: inputs.targets,
      ...(attested ? { sbomFolder: attested.sbomFolder } : {}),
    })
    const summary = builtSummary(images, {
      branch: checked.branch,
      pushed: inputs.push,
      drawVersion: planned.drawVersion?.value,
      version: planned.version,
      selected: inputs.images,
    })
    const rows: Array<[string, string]> = [
      ...(signed ? [['Signatures', signed] as [string, string]] : []),
      ...(attested ? [['Attestations', attested.said] as [string, string]] : []),
    ]
    await reporter.summary({ ...summary, rows: [...summary.rows, ...rows] })
    return images
  } finally {
    await opened.dispose()
  }
}

/** With a `signing-key`, every image pushed or given this run's tags is signed; what to say. */
async function sign(
  checked: CheckedBuild,
  images: BuiltImage[],
  built: ImagePlan[],
  ports: RunPorts,
): Promise<string | undefined> {
  const { inputs, login } = checked
  const { signingKey } = inputs
  if (!signingKey) return undefined
  return ports.logger.group('Image signatures', async () => {
    const { signImages } = await ports.signing()
    return signImages(images, built, { signingKey, push: inputs.push, login }, ports)
  })
}

/**
 * Pre-flight, the images that did not change, login, then build and push what is left: every
 * image in the plans' order, and the plans that were built (their fingerprint labels).
 */
async function buildWith(
  checked: CheckedBuild,
  context: CiContext,
  planned: { plans: ImagePlan[] },
  ports: RunPorts,
): Promise<{ images: BuiltImage[]; built: ImagePlan[]; unchanged: ReuseOutcome }> {
  const { logger } = ports
  const { inputs, branch, dockerfiles } = checked
  const { registryMirrors: mirrors, registryLogin: login } = inputs
  const root = inputs.workingDirectory
  const host = inputs.registry.host
  // A mirror on the push registry's host is read with its login: the builder needs it first.
  let loggedIn = false
  const logIn = async (): Promise<void> => {
    if (!login || loggedIn) return
    await logger.group(`Registry login: ${host}`, () =>
      logInTo(host, login, context.registryLoginHelp, ports),
    )
    loggedIn = true
  }
  if (mirrors.some((mirror) => registryName(mirror.host) === registryName(host))) await logIn()
  const bases = await logger.group('Pre-flight checks', () =>
    preflight(
      planned.plans,
      {
        root,
        allowUndeclaredSourcesPath: inputs.allowUndeclaredSourcesPath,
        mirrors,
        dockerfiles,
      },
      ports,
    ),
  )
  // Each plan with the bases the check phase read, and where a mirror serves them.
  const plans = planned.plans.map((plan) => ({
    ...plan,
    command: { ...plan.command, bases: dockerfiles.get(plan.id)?.bases ?? [] },
  }))
  const defaultBranch = context.defaultBranch ?? FALLBACK_DEFAULT_BRANCH
  const unchanged = await logger.group('Unchanged images', () =>
    reuseUnchanged(
      plans,
      {
        reuse: inputs.reuseUnchanged,
        push: inputs.push,
        platform: inputs.platform,
        branch,
        defaultBranch,
        root,
        login: checked.login,
        dockerfiles,
        signingKey: inputs.signingKey,
        mirrors,
        attestations: checked.attest?.kinds ?? [],
      },
      ports,
    ),
  )
  if (unchanged.build.length > 0) await logIn()
  const inOrder = (done: readonly BuiltImage[]): BuiltImage[] =>
    plans.flatMap((plan) => done.find((image) => image.id === plan.id) ?? [])
  const record = (images: readonly BuiltImage[]): Promise<void> =>
    recordImages(images, unchanged, { push: inputs.push, branch, defaultBranch }, ports)
  let built: BuiltImage[] = []
  // Read once for the run, as the images that share a base share its history.
  const baseHistories: BaseHistories = new Map()
  if (unchanged.build.length > 0)
    try {
      built = await logger.group(inputs.push ? 'Build and push' : 'Build', () =>
        buildAndPush(
          unchanged.build,
          {
            push: inputs.push,
            loggedIn: login !== undefined,
            loginHelp: context.registryLoginHelp,
            // Before each push, what COPY added against the sources: see sources-path.ts.
            check: (plan) => checkCopiedSize(plan, bases.get(plan.id), root, ports, baseHistories),
            // The engine's images: one docker push, then their other tags through the API.
            ...(ports.builder.name === 'docker'
              ? { retag: registryRetag(checked.login, ports) }
              : {}),
          },
          ports,
        ),
      )
    } catch (error) {
      if (!(error instanceof BuildFailure)) throw error
      // What was done stays done, and recorded for the next run: it rebuilds only the rest.
      const done = inOrder([...unchanged.reused, ...error.built])
      await record(done)
      throw new ActionError(failureReport(error, plans, done, inputs.push))
    }
  // In the plans' order, reused or built.
  const images = inOrder([...unchanged.reused, ...built])
  await record(images)
  return { images, built: unchanged.build, unchanged }
}

async function plan(
  checked: CheckedBuild,
  context: CiContext,
  ports: BuildImagesPorts,
): Promise<{ plans: ImagePlan[]; drawVersion?: DrawVersion; version?: string }> {
  const { logger } = ports
  const { inputs } = checked
  const lookup = await resolveDrawVersion(
    inputs.drawVersion,
    {
      root: inputs.workingDirectory,
      frontendSources: inputs.sources.frontend,
      codeasdataSources: inputs.sources.codeasdata,
    },
    ports.files,
  )
  for (const note of lookup.notes)
    logger.warning(`Not used for the ${DRAW_VERSION_LABEL} label: ${note}.`)
  if (lookup.found?.doubtful) logger.warning(drawVersionMessage(lookup.found))
  else if (lookup.found) logger.info(drawVersionMessage(lookup.found))
  else
    logger.info(
      `No ${DRAW_VERSION_LABEL} label: no version found in ${lookup.looked.join(', ')}; set 'draw-version' to add one.`,
    )

  for (const [name] of inputs.buildArgs.filter(([arg]) => looksSecret(arg)))
    logger.warning(
      `'build-args' sets ${name}, whose name says it holds a secret: a build argument stays in the image, where 'docker history' shows it to anyone who can pull the image, and on docker's command line. Give it in 'build-secrets' instead (${name}=<value>) and read it with RUN --mount=type=secret,id=${name}.`,
      { title: 'Build argument' },
    )
  const app = await resolveAppVersion(
    { root: inputs.workingDirectory, frontendSources: inputs.sources.frontend },
    ports.files,
  )
  for (const note of app.notes) logger.warning(`Not used for the version label: ${note}.`)
  const version = app.found?.value
  logger.info(
    app.found
      ? `${OCI_LABELS.version} ${app.found.value} (from 'version' in ${app.found.source}): the version the deploy action waits for the app to serve.`
      : `No ${OCI_LABELS.version} label: no 'version' in ${inputs.sources.frontend}/version.json nor in package.json; the deploy action will not know which version to wait for (set its 'expected-version').`,
  )
  const served = inputs.images.includes('frontend')
    ? await frontendFiles(inputs.workingDirectory, inputs.sources.frontend, ports)
    : undefined

  const plans = planImages(inputs, context, {
    branch: checked.branch,
    tags: checked.tags,
    drawVersion: lookup.found?.value,
    version,
    ...(served ? { served } : {}),
    now: checked.now,
  })
  // Said once: with the default names, every image repeats it alike.
  const repeated = inputs.targets
    .map((target) => repeatedNamespace(inputs.registry, target.imageName))
    .find((warning) => warning !== undefined)
  if (repeated) logger.warning(repeated, { title: 'Image name' })
  for (const image of plans) {
    logger.info(
      `${image.id}: ${image.references.join(', ')} from ${image.dockerfile} with SOURCES_PATH=${image.sources}`,
    )
  }
  const left = notSelected(inputs.images)
  if (left.length > 0) logger.info(`Not built (not named in 'images'): ${left.join(', ')}.`)
  if (inputs.images.includes('codeasdata'))
    logger.warning(CODEASDATA_WARNING, { title: 'Code as data' })
  return { plans, drawVersion: lookup.found, version }
}

/** The served files' digests for the frontend's label, said in the log. */
async function frontendFiles(
  root: string,
  sources: string,
  ports: BuildImagesPorts,
): Promise<ServedFiles | undefined> {
  const found = await servedFiles(root, sources, ports.files)
  for (const note of found.notes)
    ports.logger.info(`Not in the ${SERVED_FILES_LABEL} label: ${note}.`)
  const paths = Object.keys(found.files)
  if (paths.length === 0) return undefined
  ports.logger.info(
    `${SERVED_FILES_LABEL}: the digests of ${paths.join(', ')} in ${sources}, which the deploy action compares with what the app serves when the version did not change.`,
  )
  return found.files
}

async function logInTo(
  host: string,
  credentials: RegistryLogin,
  help: string,
  ports: RunPorts,
): Promise<void> {
  try {
    await ports.builder.login(host, credentials.username, credentials.password)
  } catch (error) {
    if (!(error instanceof BuilderCommandError)) throw error
    const said = error.tail
      .filter((line) => !/^WARNING!/.test(line))
      .slice(-5)
      .join(' ')
      .trim()
    throw new ActionError(
      ports.redact(
        `Logging in to the registry '${host}' as '${credentials.username}' failed: ${error.message}${said ? ` (${said})` : ''}. ${help}. Nothing was built.`,
      ),
    )
  }
  ports.logger.info(`Logged in to ${host} as ${credentials.username}.`)
}

function setOutputs(
  reporter: Reporter,
  images: readonly BuiltImage[],
  facts: Parameters<typeof buildOutputs>[1],
): void {
  for (const [name, value] of Object.entries(buildOutputs(images, facts)))
    reporter.setOutput(name, value)
}
