import type { BaseImage } from './build-command.js'

/**
 * What docker's legacy builder (`DOCKER_BUILDKIT=0`, or an engine without the buildx plugin)
 * cannot do for these images, said once for the check phase, which knows DOCKER_BUILDKIT, and
 * for the run, which finds out whether buildx is there.
 */

/** Why docker would build with the legacy builder. */
export type LegacyReason = 'disabled' | 'no-buildx'

const WHY: Record<LegacyReason, string> = {
  disabled: 'DOCKER_BUILDKIT is false',
  'no-buildx': 'the buildx plugin is not installed',
}
const FIX: Record<LegacyReason, string> = {
  disabled: 'Unset DOCKER_BUILDKIT',
  'no-buildx': 'Install buildx (package docker-buildx-plugin, or docker-buildx on Debian)',
}

/** `build-secrets` mounts each secret in a RUN step: BuildKit does, the legacy builder cannot. */
export function legacySecretsRefusal(reason: LegacyReason): string {
  return `'build-secrets' needs BuildKit, but ${WHY[reason]}, so docker would build with the legacy builder, which cannot mount secrets (RUN --mount=type=secret). ${FIX[reason]}, or leave 'build-secrets' empty.`
}

/**
 * A base that `registry-mirrors` serves reaches a Docker build as a named build context, which
 * the legacy builder does not know: it would pull the base from its own registry, which the
 * runner may not reach, and build on an image nobody looked up. Undefined when no base is mirrored.
 */
export function legacyMirrorsRefusal(
  reason: LegacyReason,
  bases: readonly BaseImage[],
): string | undefined {
  const mirrored = [...new Set(bases.filter((base) => base.mirrored).map((b) => b.reference))]
  if (mirrored.length === 0) return undefined
  return `'registry-mirrors' serves base images of these Dockerfiles (${mirrored.map((base) => `'${base}'`).join(', ')}), which Docker takes from a mirror as named build contexts, a BuildKit feature; but ${WHY[reason]}, so docker would build with the legacy builder, which would pull them from their own registries. ${FIX[reason]}, or set 'builder: buildah'.`
}
