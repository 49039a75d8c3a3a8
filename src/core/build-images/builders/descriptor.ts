import type { Logger } from '../../shared/ports.js'
import type { BuildCommand } from './build-command.js'
import type { BuilderName, BuilderSetups, ImageBuilder } from './image-builder.js'

/**
 * What build-images knows of one builder besides its command line (which its adapter in
 * src/tools runs): its checks before the first build, how it reads a Dockerfile otherwise than
 * BuildKit (the fingerprint's reference), and what it says of, or refuses in, the way it will
 * build. One per builder, listed in known-builders.ts.
 */
export interface BuilderDescriptor<N extends BuilderName = BuilderName> {
  readonly name: N
  /** Its name in a sentence: `Docker`, `Buildah`. */
  readonly title: string
  /** Whether DOCKER_BUILDKIT=false makes it build with docker's legacy builder. */
  readonly readsDockerBuildkit: boolean
  /** The checks of the builder itself before the first build: it runs, in a version supported. */
  preflight(builder: Pick<ImageBuilder, 'versions'>, logger: Logger): Promise<Findings>
  /**
   * What the fingerprint records of how it reads this Dockerfile otherwise than BuildKit, its
   * version included; undefined when it reads it alike (the images are then shared). Absent
   * when it reads every Dockerfile as BuildKit does.
   */
  reading?(version: string | undefined, facts: ReadingFacts): string | undefined
  /**
   * Before the first build: what the log says of how the builds will run, and what this way of
   * building cannot do for these builds (the step then fails, nothing built).
   */
  setupNotes(setup: BuilderSetups[N], commands: readonly BuildCommand[]): SetupNotes
}

/** What a check found: problems fail the step, warnings are said. */
export interface Findings {
  problems: string[]
  warnings: string[]
}

/** What a builder's reading of a Dockerfile depends on, besides the Dockerfile's own text. */
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

export interface SetupNotes {
  /** Said in the log, in order. */
  lines: Array<{ text: string; warning?: boolean; title?: string }>
  /** Why these builds cannot run this way; undefined when they can. */
  refusal?: string
}
