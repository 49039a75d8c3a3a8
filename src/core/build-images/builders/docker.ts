import { majorVersion, type BuildCommand } from './build-command.js'
import type { BuilderDescriptor, Findings, SetupNotes } from './descriptor.js'
import { loadsIntoEngine, type DockerBuilder } from './docker-args.js'
import { legacyMirrorsRefusal, legacySecretsRefusal } from './legacy-builder.js'

/**
 * Docker as build-images knows it (its command lines: docker-args.ts, its adapter:
 * src/tools/docker.ts): BuildKit through buildx's current builder, or the legacy builder when
 * DOCKER_BUILDKIT is false or buildx is missing. BuildKit's reading of a Dockerfile is the
 * fingerprint's reference: Docker has no reading of its own.
 */
export const dockerBuilder: BuilderDescriptor<'docker'> = {
  name: 'docker',
  title: 'Docker',
  readsDockerBuildkit: true,
  preflight: (docker, logger) => checkDocker(docker, logger),
  setupNotes,
}

/** Olympe's deployment process needs Docker 24 or newer. */
export const MIN_DOCKER_MAJOR = 24

export const CONTEXT_NOTE =
  "Each image's build context is the project folder through a link named after the image ('<folder>.<image>'), so that BuildKit keeps one copy of the context per image and later runs send only the files that changed."

/** Docker 24 or newer, client and daemon. */
const checkDocker: BuilderDescriptor['preflight'] = async (docker, logger) => {
  const findings: Findings = { problems: [], warnings: [] }
  const versions = await docker.versions()
  if (!versions.client) {
    findings.problems.push(
      `Docker could not be run: ${versions.problem ?? 'no version answer'}. Install Docker ${MIN_DOCKER_MAJOR} or newer on the runner and put 'docker' on PATH.`,
    )
    return findings
  }
  logger.info(`Docker client ${versions.client}, daemon ${versions.server ?? 'not answering'}`)
  const major = majorVersion(versions.client)
  if (major === undefined) {
    findings.warnings.push(
      `Docker client version '${versions.client}' is not a release number; Docker ${MIN_DOCKER_MAJOR} or newer is required, so builds may fail.`,
    )
  } else if (major < MIN_DOCKER_MAJOR) {
    findings.problems.push(
      `Docker client '${versions.client}' is too old: the project needs Docker ${MIN_DOCKER_MAJOR} or newer. Upgrade Docker on the runner.`,
    )
  }
  if (!versions.server) {
    findings.problems.push(
      `The Docker daemon does not answer${versions.problem ? ` (${versions.problem})` : ''}. Start it, or point DOCKER_HOST at a running one.`,
    )
  }
  return findings
}

/**
 * What the log says of the builder, and, with the legacy builder (buildx may be missing even
 * where the check phase let DOCKER_BUILDKIT through), what it cannot build.
 */
function setupNotes(builder: DockerBuilder, commands: readonly BuildCommand[]): SetupNotes {
  const said = describeBuilder(builder)
  const notes: SetupNotes = {
    lines: [{ text: said, warning: builder.kind === 'legacy' && builder.reason === 'no-buildx' }],
  }
  if (builder.kind === 'buildkit') notes.lines.push({ text: CONTEXT_NOTE })
  if (builder.kind === 'legacy') {
    const refusal = commands.some((command) => (command.secrets ?? []).length > 0)
      ? legacySecretsRefusal(builder.reason)
      : legacyMirrorsRefusal(
          builder.reason,
          commands.flatMap((command) => command.bases ?? []),
        )
    if (refusal) notes.refusal = refusal
  }
  return notes
}

function describeBuilder(builder: DockerBuilder): string {
  if (builder.kind === 'legacy') {
    return builder.reason === 'disabled'
      ? 'Builder: the legacy builder, because DOCKER_BUILDKIT is false.'
      : 'Builder: the legacy builder, because the buildx plugin is not installed (Docker deprecated the legacy builder in version 23). Install buildx (package docker-buildx-plugin, or docker-buildx on Debian) to build with BuildKit.'
  }
  const where = loadsIntoEngine(builder)
    ? 'the images go into the engine, then docker push sends them'
    : "this driver keeps images in the builder, so each build pushes its image itself ('--push'), or loads it into the engine when push is false ('--load')"
  return `Builder: BuildKit, builder '${builder.name}' (${builder.driver} driver): ${where}.`
}
