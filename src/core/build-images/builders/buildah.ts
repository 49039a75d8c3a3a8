import { parseImageName } from '../../shared/image-ref.js'
import {
  DockerfileProblem,
  parseDockerfile,
  type DockerfileSyntax,
} from '../../dockerfile/syntax.js'
import type { BuilderName } from './image-builder.js'

/**
 * Where a builder reads a Dockerfile otherwise than BuildKit, the reference of the fingerprint
 * (reuse/fingerprint.ts): an image that BuildKit built is reused by a Buildah run, and the other way
 * round, only when both read the Dockerfile alike. Buildah 1.28 (Debian bookworm's):
 * - has no here-documents (`RUN <<EOF`): it reads their lines as instructions;
 * - ignores the `# syntax=` directive, where BuildKit runs the frontend it names;
 * - reads `.containerignore` before `.dockerignore` (a Dockerfile's own
 *   `<Dockerfile>.dockerignore` comes first for both);
 * - resolves an image named without a registry through its registries configuration, whose
 *   short-name aliases (registries.conf.d) may name another registry than Docker Hub.
 */

export interface ReadingFacts {
  /** The Dockerfile's text. */
  dockerfile: string
  /** The images it builds FROM or copies from, as written. */
  images: readonly string[]
  /** SHA-256 of the context's `.containerignore`, undefined when there is none. */
  containerignore?: string
  /** Whether `<Dockerfile>.dockerignore` exists: it then wins over both context-wide files. */
  ownIgnoreFile: boolean
}

/**
 * What the fingerprint records of the builder: undefined when it reads this Dockerfile as
 * BuildKit does (the fingerprint is then the same for both), else the builder, its version and
 * what it reads otherwise, so that its images are reused by its own runs only.
 */
export function builderReading(
  builder: { name: BuilderName; version?: string },
  facts: ReadingFacts,
): string | undefined {
  if (builder.name === 'docker') return undefined
  const differences = buildahDifferences(facts)
  if (differences.length === 0) return undefined
  return `buildah ${minorVersion(builder.version)}: ${differences.join('; ')}`
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
