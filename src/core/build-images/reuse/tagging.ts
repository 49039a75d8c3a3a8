import { tagManifest, type Manifest } from '../../registry/manifests.js'
import type { RegistrySession } from '../../registry/session.js'
import type { Deadline } from '../../shared/deadline.js'
import { tagOf } from '../../shared/image-ref.js'
import type { BuiltImage } from '../build.js'
import type { ImagePlan } from '../plan/plan.js'
import type { ReuseProof } from './proof.js'

/**
 * An unchanged image given this run's tags (reuse.ts): the manifest the registry holds, tagged
 * again instead of an image built and pushed.
 */

/** What the registry holds for an image whose fingerprint equals this run's. */
export interface Unchanged {
  manifest: Manifest
  fingerprint: string
  /** The tag the image was built as (its label), or the moving tag it was found under. */
  builtAs: string
  session: RegistrySession
  /** What proved that the default branch built it. */
  proof: ReuseProof
}

/** Gives the manifest every tag of the plan: the image reused, or none; what to say either way. */
export async function tagUnchanged(
  plan: ImagePlan,
  unchanged: Unchanged,
  deadline: Deadline,
): Promise<{ image?: BuiltImage; said: string }> {
  const session = unchanged.session.within(deadline)
  for (const reference of plan.command.tags) {
    const problem = await tagManifest(session, unchanged.manifest, tagOf(reference))
    if (problem)
      return {
        said: `${plan.id}: built after all: giving its unchanged image the tag '${tagOf(reference)}' failed (${problem}).`,
      }
  }
  return {
    image: {
      id: plan.id,
      kind: plan.kind,
      ...(plan.name === undefined ? {} : { name: plan.name }),
      reference: plan.reference,
      references: plan.references,
      digest: unchanged.manifest.digest,
      reused: { since: unchanged.builtAs, fingerprint: unchanged.fingerprint },
    },
    said: `${plan.id} unchanged since ${unchanged.builtAs} (fingerprint ${unchanged.fingerprint}): tagged ${plan.references.map(tagOf).join(', ')}, not rebuilt.`,
  }
}
