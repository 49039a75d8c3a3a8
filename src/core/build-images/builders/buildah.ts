import { parseImageName } from '../../shared/image-ref.js'
import {
  DockerfileProblem,
  parseDockerfile,
  type DockerfileSyntax,
} from '../../dockerfile/syntax.js'
import { describeBuildah, MIN_BUILDAH } from './buildah-args.js'
import { releaseNumber } from './build-command.js'
import type { BuilderDescriptor, Findings, ReadingFacts, SetupNotes } from './descriptor.js'

/**
 * Buildah as build-images knows it (its command lines: buildah-args.ts, its adapter:
 * src/tools/buildah.ts): no daemon, no privileges, for runners without Docker.
 *
 * Where it reads a Dockerfile otherwise than BuildKit, the reference of the fingerprint
 * (reuse/fingerprint.ts): an image that BuildKit built is reused by a Buildah run, and the other
 * way round, only when both read the Dockerfile alike. Buildah 1.28 (Debian bookworm's):
 * - has no here-documents (`RUN <<EOF`): it reads their lines as instructions;
 * - ignores the `# syntax=` directive, where BuildKit runs the frontend it names;
 * - reads `.containerignore` before `.dockerignore` (a Dockerfile's own
 *   `<Dockerfile>.dockerignore` comes first for both);
 * - resolves an image named without a registry through its registries configuration, whose
 *   short-name aliases (registries.conf.d) may name another registry than Docker Hub.
 */
export const buildahBuilder: BuilderDescriptor<'buildah'> = {
  name: 'buildah',
  title: 'Buildah',
  // Buildah ignores DOCKER_BUILDKIT.
  readsDockerBuildkit: false,
  preflight: (buildah, logger) => checkBuildah(buildah, logger),
  reading(version, facts) {
    const differences = buildahDifferences(facts)
    if (differences.length === 0) return undefined
    return `buildah ${minorVersion(version)}: ${differences.join('; ')}`
  },
  setupNotes(setup, commands) {
    const lines: SetupNotes['lines'] = [{ text: describeBuildah(setup) }]
    if (commands.some((command) => command.cacheFrom.length > 0))
      lines.push({
        text: "'cache-from' is not used: Buildah takes a repository of its own layer cache there, not the images it names.",
        warning: true,
        title: 'Build cache',
      })
    return { lines }
  },
}

/** Buildah MIN_BUILDAH or newer. */
const checkBuildah: BuilderDescriptor['preflight'] = async (buildah, logger) => {
  const findings: Findings = { problems: [], warnings: [] }
  const versions = await buildah.versions()
  const minimum = `${MIN_BUILDAH.major}.${MIN_BUILDAH.minor}`
  if (!versions.client) {
    findings.problems.push(
      `Buildah could not be run: ${versions.problem ?? 'no version answer'}. Install Buildah ${minimum} or newer on the runner (Debian: apt-get install buildah uidmap) and put 'buildah' on PATH.`,
    )
    return findings
  }
  logger.info(
    `Buildah ${versions.client}, building for ${versions.platform ?? 'an unknown platform'}`,
  )
  const release = releaseNumber(versions.client)
  const old =
    release &&
    (release.major < MIN_BUILDAH.major ||
      (release.major === MIN_BUILDAH.major && release.minor < MIN_BUILDAH.minor))
  if (!release)
    findings.warnings.push(
      `Buildah version '${versions.client}' is not a release number; Buildah ${minimum} or newer is required, so builds may fail.`,
    )
  else if (old)
    findings.problems.push(
      `Buildah '${versions.client}' is too old: build-images needs Buildah ${minimum} or newer (build secrets from the environment, no label of Buildah's own on the image). Upgrade Buildah on the runner.`,
    )
  return findings
}

function buildahDifferences(facts: ReadingFacts): string[] {
  const found = dockerfileDifferences(facts.dockerfile)
  if (facts.containerignore && !facts.ownIgnoreFile)
    found.push(`.containerignore ${facts.containerignore}`)
  const short = facts.images.filter(isShortName)
  if (short.length > 0) found.push(`names without a registry (${short.join(', ')})`)
  return found
}

/**
 * Here-documents and a `syntax` directive, as BuildKit finds them (an ONBUILD's here-documents
 * are kept on the ONBUILD instruction). A file this reading refuses is told apart too: its
 * images are then never shared between the builders.
 */
function dockerfileDifferences(dockerfile: string): string[] {
  let syntax: DockerfileSyntax
  try {
    syntax = parseDockerfile(dockerfile)
  } catch (error) {
    if (error instanceof DockerfileProblem)
      return ['a Dockerfile this step cannot read as BuildKit does']
    throw error
  }
  const found: string[] = []
  if (syntax.instructions.some((instruction) => instruction.heredocs.length > 0))
    found.push('here-documents')
  if (syntax.syntax !== undefined) found.push('a # syntax directive')
  return found
}

/** An image named without a registry: Docker reads Docker Hub, Buildah its search rules. */
function isShortName(reference: string): boolean {
  const read = parseImageName(reference)
  return read !== undefined && read.domain === undefined
}

/** `1.28.2` → `1.28`: what a patch release changes is no reading. */
function minorVersion(version: string | undefined): string {
  return /^v?(\d+\.\d+)/.exec(version ?? '')?.[1] ?? version ?? 'unknown version'
}
