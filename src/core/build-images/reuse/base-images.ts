import type { CredentialsFor } from '../../registry/logins.js'
import { readImage } from '../../registry/manifests.js'
import {
  MIRRORS_EXAMPLE,
  registryShown,
  resolvedImage,
  type RegistryMirrors,
} from '../../registry/mirrors.js'
import { RegistrySession, type SessionPorts } from '../../registry/session.js'
import { mapLimit } from '../../shared/concurrency.js'
import type { Deadline } from '../../shared/deadline.js'
import type { BaseFacts, BuildInputs } from '../../dockerfile/build-inputs.js'
import { isProblem, type Problem } from '../../shared/problem.js'

/**
 * The images a build pulls, resolved to the digests their registries (or the mirrors that serve
 * them) give, for the fingerprint: each read once for the run, whichever Dockerfiles name it.
 */

/** Registries are asked a few at a time, as the image check does. */
const CONCURRENT_READS = 4

/** A base image read: its digest and what it brings to our stages, or why it cannot be. */
export type Resolved = ({ digest: string } & BaseFacts) | Problem

/** What the reading of base images needs, the same for every image of the run. */
export interface BaseLookup {
  mirrors: RegistryMirrors
  /** The target platform: the `platform` input, else the builder's. */
  platform: string
  /** The builder's: what `$BUILDPLATFORM` names. */
  buildPlatform?: string
  ports: SessionPorts
  credentialsFor: CredentialsFor
  deadline: Deadline
  /** Each image read once, whichever Dockerfiles name it. */
  images: Map<string, Promise<Resolved>>
}

/** Every reference read once (see BaseLookup.images); the first that cannot be, with why. */
export async function resolveAll(
  references: readonly string[],
  lookup: BaseLookup,
): Promise<{ resolved: Map<string, Resolved> } | Problem> {
  const resolved = new Map<string, Resolved>()
  const answers = await mapLimit(references, CONCURRENT_READS, (reference) => {
    let pending = lookup.images.get(reference)
    if (!pending) {
      pending = resolve(reference, lookup)
      lookup.images.set(reference, pending)
    }
    return pending
  })
  for (const [index, reference] of references.entries()) {
    const answer = answers[index] as Resolved
    if (isProblem(answer))
      return { problem: `the image '${reference}' it builds from ${answer.problem}` }
    resolved.set(reference, answer)
  }
  return { resolved }
}

/**
 * The bases of stages built for a platform of their own (`FROM --platform=$BUILDPLATFORM`), each
 * read for that platform: a builder stage runs on the build machine, whose variant of a
 * multi-platform image may change while the target's does not. Named `<image> --platform=<it>`.
 */
export async function resolveAtPlatforms(
  staged: BuildInputs['platformImages'],
  lookup: BaseLookup,
): Promise<{ images: Array<[string, string]> } | Problem> {
  const images: Array<[string, string]> = []
  for (const { image, platform: written } of staged) {
    const platform = written
      .replace(/\$\{?BUILDPLATFORM\}?/g, lookup.buildPlatform ?? '$BUILDPLATFORM')
      .replace(/\$\{?TARGETPLATFORM\}?/g, lookup.platform)
    if (platform.includes('$'))
      return {
        problem: `the stage FROM --platform=${written} ${image} names a platform whose value is not known before the build`,
      }
    const key = `${image} --platform=${platform}`
    let pending = lookup.images.get(key)
    if (!pending) {
      pending = resolve(image, lookup, platform)
      lookup.images.set(key, pending)
    }
    const answer = await pending
    if (isProblem(answer))
      return { problem: `the image '${image}' it builds from for ${platform} ${answer.problem}` }
    images.push([key, answer.digest])
  }
  return { images }
}

async function resolve(
  reference: string,
  lookup: BaseLookup,
  platform = lookup.platform,
): Promise<Resolved> {
  const target = resolvedImage(reference, lookup.mirrors)
  if (isProblem(target)) return { problem: `is not a registry image (${target.problem})` }
  const session = new RegistrySession(
    target,
    lookup.credentialsFor(target),
    'pull',
    lookup.deadline,
    lookup.ports,
    1,
  )
  const outcome = await readImage(session, target.lookup, { platform })
  if (outcome.kind !== 'read') {
    const where = target.mirrorOf ? `in ${registryShown(target)}` : 'in its registry'
    const advice =
      outcome.kind === 'missing' || outcome.kind === 'unusable' ? '' : reuseAdvice(target)
    return { problem: `could not be resolved ${where} (${outcome.detail})${advice}` }
  }
  const { manifest, imageDigest, onBuild, env } = outcome.image
  if (target.pinned && manifest.digest !== target.pinned)
    return { problem: `is pinned to ${target.pinned}, but its registry holds ${manifest.digest}` }
  return { digest: imageDigest, onBuild, env }
}

/**
 * How to get reuse back when a base's registry cannot be asked: the runner may not reach it (an
 * on-premise runner and Docker Hub), which `registry-mirrors` answers.
 */
function reuseAdvice(target: { registry: string; mirrorOf?: string }): string {
  if (target.mirrorOf)
    return `; check that the mirror holds it, or correct the line of '${target.mirrorOf}' in 'registry-mirrors'`
  return `; if the runner cannot reach '${target.registry}', give a registry it can reach that serves its images in 'registry-mirrors' (such as ${MIRRORS_EXAMPLE}) to have unchanged images reused`
}
