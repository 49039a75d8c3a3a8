import type { CiContext } from '../shared/context.js'
import { ActionError } from '../shared/errors.js'
import type { CommonPorts, Reporter } from '../shared/ports.js'
import type { HttpClient } from '../shared/http.js'
import { buildAndPush, type BuiltImage } from './build.js'
import { DockerCommandError, type DockerClient } from './ports.js'
import {
  drawVersionMessage,
  resolveAppVersion,
  resolveDrawVersion,
  type DrawVersion,
} from './draw-version.js'
import type { CheckedBuildImages } from './check.js'
import { FALLBACK_DEFAULT_BRANCH } from './gate.js'
import { looksSecret } from './input-parsers.js'
import { repeatedNamespace } from './image-names.js'
import { planImages, type ImagePlan } from './plan.js'
import { servedFiles } from './served-files.js'
import {
  DRAW_VERSION_LABEL,
  OCI_LABELS,
  SERVED_FILES_LABEL,
  type ServedFiles,
} from '../shared/image-labels.js'
import { preflight } from './preflight.js'
import { recordImages, type ReuseRecords } from './ci-record.js'
import { reuseUnchanged } from './reuse.js'
import { checkCopiedSize } from './sources-path.js'
import {
  buildOutputs,
  builtSummary,
  CODEASDATA_WARNING,
  notSelected,
  skippedSummary,
} from './report.js'

export interface BuildImagesPorts extends Pick<
  CommonPorts,
  'logger' | 'reporter' | 'redact' | 'files' | 'clock' | 'registerSecret'
> {
  docker: DockerClient
  /** The registry API, for the images that did not change. */
  http: HttpClient
  /** The job's Docker config, whose logins the registry requests may use. */
  dockerConfigPath: string
  /** Where the CI keeps its records of what the default branch built (reuse-proof.ts). */
  records?: ReuseRecords
}

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
    setOutputs(reporter, [], true)
    await reporter.summary(skippedSummary(checked.skipped))
    return []
  }

  const { plans, drawVersion, version } = await logger.group('Plan', () =>
    plan(checked, context, ports),
  )
  const root = inputs.workingDirectory
  const bases = await logger.group('Pre-flight checks', () =>
    preflight(
      plans,
      {
        root,
        allowUndeclaredSourcesPath: inputs.allowUndeclaredSourcesPath,
        dockerfiles: checked.dockerfiles,
      },
      ports,
    ),
  )
  const { credentials } = inputs
  const defaultBranch = context.defaultBranch ?? FALLBACK_DEFAULT_BRANCH
  const unchanged = await logger.group('Unchanged images', () =>
    reuseUnchanged(
      plans,
      {
        reuse: inputs.reuseUnchanged,
        push: inputs.push,
        platform: inputs.platform,
        branch: checked.branch,
        defaultBranch,
        root,
        login: checked.login,
        dockerfiles: checked.dockerfiles,
        signingKey: inputs.signingKey,
      },
      ports,
    ),
  )
  if (credentials && unchanged.build.length > 0) {
    await logger.group(`Registry login: ${inputs.registry.host}`, () =>
      login(inputs.registry.host, credentials, context.registryLoginHelp, ports),
    )
  }
  const built =
    unchanged.build.length === 0
      ? []
      : await logger.group(inputs.push ? 'Build and push' : 'Build', () =>
          buildAndPush(
            unchanged.build,
            {
              push: inputs.push,
              loggedIn: credentials !== undefined,
              loginHelp: context.registryLoginHelp,
              // Before each push, what COPY added against the sources: see sources-path.ts.
              check: (plan) => checkCopiedSize(plan, bases.get(plan.kind), root, ports),
            },
            ports,
          ),
        )
  // In the plans' order, reused or built.
  const images = plans.flatMap(
    (plan) => [...unchanged.reused, ...built].find((image) => image.kind === plan.kind) ?? [],
  )
  await recordImages(
    images,
    unchanged,
    { push: inputs.push, branch: checked.branch, defaultBranch },
    ports,
  )
  const { signingKey } = inputs
  const signed = signingKey
    ? await logger.group('Image signatures', async () => {
        // The signing code is loaded only when there is a key.
        const { signImages } = await import('../signing/sign-images.js')
        const { login } = checked
        return signImages(images, unchanged.build, { signingKey, push: inputs.push, login }, ports)
      })
    : undefined
  setOutputs(reporter, images, false, version)
  const summary = builtSummary(images, {
    branch: checked.branch,
    pushed: inputs.push,
    drawVersion: drawVersion?.value,
    version,
    selected: inputs.images,
  })
  await reporter.summary(
    signed ? { ...summary, rows: [...summary.rows, ['Signatures', signed]] } : summary,
  )
  return images
}

async function plan(
  checked: Extract<CheckedBuildImages, { tags: string[] }>,
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
  const repeated = inputs.images
    .map((kind) => repeatedNamespace(inputs.registry, inputs.imageNames[kind]))
    .find((warning) => warning !== undefined)
  if (repeated) logger.warning(repeated, { title: 'Image name' })
  for (const image of plans) {
    logger.info(
      `${image.kind}: ${image.references.join(', ')} from ${image.dockerfile} with SOURCES_PATH=${image.sources}`,
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

async function login(
  host: string,
  credentials: { username: string; password: string },
  help: string,
  ports: BuildImagesPorts,
): Promise<void> {
  try {
    await ports.docker.login(host, credentials.username, credentials.password)
  } catch (error) {
    if (!(error instanceof DockerCommandError)) throw error
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
  skipped: boolean,
  version?: string,
): void {
  for (const [name, value] of Object.entries(buildOutputs(images, skipped, version)))
    reporter.setOutput(name, value)
}
