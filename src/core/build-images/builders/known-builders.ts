import { buildahBuilder } from './buildah.js'
import type { BuilderDescriptor, ReadingFacts } from './descriptor.js'
import { dockerBuilder } from './docker.js'
import type { BuilderName } from './image-builder.js'

/**
 * Every builder build-images can build with, by its descriptor: a builder named in
 * image-builder.ts is added here (the type asks for it), and its adapter in src/tools/builders.ts.
 */
const BUILDERS: { readonly [N in BuilderName]: BuilderDescriptor<N> } = {
  docker: dockerBuilder,
  buildah: buildahBuilder,
}

export function builderNamed(name: BuilderName): BuilderDescriptor {
  return BUILDERS[name]
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
  return builderNamed(builder.name).reading?.(builder.version, facts)
}

/** Whether the builder reads every Dockerfile as BuildKit does (no reading to record). */
export function readsAsBuildKit(name: BuilderName): boolean {
  return builderNamed(name).reading === undefined
}

/**
 * Whether DOCKER_BUILDKIT=false means docker's legacy builder for this `builder` setting:
 * `auto` counts as Docker, which it means wherever an engine answers.
 */
export function legacyWhenBuildkitOff(setting: BuilderName | 'auto'): boolean {
  return setting === 'auto' || builderNamed(setting).readsDockerBuildkit
}
