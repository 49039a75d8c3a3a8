import { parseImageName } from '../shared/image-ref.js'
import type { BuilderName } from './ports.js'

/**
 * Where a builder reads a Dockerfile otherwise than BuildKit, the reference of the fingerprint
 * (fingerprint.ts): an image that BuildKit built is reused by a Buildah run, and the other way
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

const HEREDOC = /^\s*(?:RUN|COPY|ADD)\b[^\n]*<<-?["']?[A-Za-z_]/im
const SYNTAX = /^\s*#\s*syntax\s*=/i

function buildahDifferences(facts: ReadingFacts): string[] {
  const found: string[] = []
  if (HEREDOC.test(facts.dockerfile)) found.push('here-documents')
  if (directives(facts.dockerfile).some((line) => SYNTAX.test(line)))
    found.push('a # syntax directive')
  if (facts.containerignore && !facts.ownIgnoreFile)
    found.push(`.containerignore ${facts.containerignore}`)
  const short = facts.images.filter(isShortName)
  if (short.length > 0) found.push(`names without a registry (${short.join(', ')})`)
  return found
}

/** The comment lines at the very top, where parser directives are. */
function directives(dockerfile: string): string[] {
  const lines: string[] = []
  for (const line of dockerfile.split(/\r?\n/)) {
    if (!/^\s*#/.test(line)) break
    lines.push(line)
  }
  return lines
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
