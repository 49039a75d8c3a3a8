import type { AttestationFacts } from './facts.js'
import { REPOSITORY_FIELD } from './source-repository.js'

/**
 * The SLSA provenance v1 predicate (https://slsa.dev/spec/v1.0/provenance) of one image, from
 * typed facts. Its meaning is our build type's, which docs/provenance.md defines: which fields
 * hold what, and which one holds the source repository that deploy's 'require-provenance'
 * checks. No value of a build argument or of an input is written, only their names: a value may
 * be a secret, and the provenance is readable by whoever may pull the image.
 */

/**
 * Our build type: build-images' build of one image of an Olympe project. A new version of this
 * URI is due whenever a field changes meaning (docs/provenance.md).
 */
export const BUILD_TYPE =
  'https://www.npmjs.com/package/olympe-deploy-actions#provenance-build-images-v1'

/** A resource as SLSA describes one (its ResourceDescriptor): at least a URI or a digest. */
export interface ResourceDescriptor {
  uri?: string
  name?: string
  digest: Record<string, string>
}

export interface ProvenancePredicate {
  buildDefinition: {
    buildType: string
    externalParameters: Record<string, unknown>
    resolvedDependencies: ResourceDescriptor[]
  }
  runDetails: {
    builder: { id: string }
    metadata: { invocationId?: string; startedOn: string; finishedOn: string }
  }
  // The in-toto statement's predicate is a JSON object.
  [key: string]: unknown
}

export function provenancePredicate(facts: AttestationFacts): ProvenancePredicate {
  const { source, run, image } = facts
  const external: Record<string, unknown> = {
    [REPOSITORY_FIELD]: source.repository,
    ...(source.ref ? { ref: source.ref } : {}),
    ...(run.workflow ? { workflow: run.workflow } : {}),
    image: image.image,
    buildArgs: sortedNames(image.buildArgs.map(([name]) => name)),
    inputs: sortedNames(Object.keys(image.inputs)),
  }
  return {
    buildDefinition: {
      buildType: BUILD_TYPE,
      externalParameters: external,
      resolvedDependencies: resolvedDependencies(facts),
    },
    runDetails: {
      builder: { id: run.builderId },
      metadata: {
        ...(run.invocationId ? { invocationId: run.invocationId } : {}),
        startedOn: run.startedOn.toISOString(),
        finishedOn: run.finishedOn.toISOString(),
      },
    },
  }
}

/**
 * What the build read that its parameters do not pin: the commit (as SLSA's git convention
 * writes it, `git+<repository>@<ref>` with a `gitCommit` digest), each base image by the digest
 * used, and the lock file by the hash of its bytes.
 */
function resolvedDependencies({ source, image }: AttestationFacts): ResourceDescriptor[] {
  const commit: ResourceDescriptor[] = source.commit
    ? [
        {
          uri: `git+${source.repository}${source.ref ? `@${source.ref}` : ''}`,
          digest: { gitCommit: source.commit },
        },
      ]
    : []
  const bases = image.baseImages.map((base) => ({
    name: base.reference,
    digest: digestMap(base.digest),
  }))
  const lock = image.lockFile
    ? [{ name: image.lockFile.path, digest: digestMap(image.lockFile.digest) }]
    : []
  return [...commit, ...bases, ...lock]
}

/** `sha256:<hex>` → `{ "sha256": "<hex>" }`. */
function digestMap(digest: string): Record<string, string> {
  const [algorithm = '', hex = ''] = digest.split(':')
  return { [algorithm]: hex }
}

function sortedNames(names: readonly string[]): string[] {
  return [...new Set(names)].sort()
}
