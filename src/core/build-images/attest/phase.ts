import type { AttestationFacts, BaseImage } from '../../attestations/facts.js'
import { ciFacts } from '../../attestations/facts.js'
import type { CycloneDxWriter } from '../../attestations/sbom.js'
import type { CiContext } from '../../shared/context.js'
import { ActionError } from '../../shared/errors.js'
import { isProblem } from '../../shared/problem.js'
import type { BuiltImage } from '../build.js'
import type { CheckedBuildImages } from '../check.js'
import { buildArgsOf, type ImagePlan } from '../plan/plan.js'
import type { ReuseOutcome } from '../reuse/reuse.js'
import type { AttestPorts, Attested, KeyAttesting } from './attest.js'

/** The ports of the attestation phase that the step gives: the code it loads when it attests. */
export interface AttestationPorts {
  /**
   * The attestation code (attest.ts), asked for only with 'attestations': how it is loaded
   * (lazily, in a chunk of its own) is the action's choice, src/actions/build-images.ts.
   */
  attesting: () => Promise<KeyAttesting>
  /** The CycloneDX writer (attestations/sbom.ts), a large library: loaded only for an SBOM. */
  cycloneDx: () => Promise<CycloneDxWriter>
  /** This tool, as the SBOMs name it: `{ name: 'olympe-deploy-actions', version }`. */
  tool: { name: string; version: string }
}

/** What the run made: every image, the plans built, what reuse found, Draw's version. */
export interface MadeImages {
  images: readonly BuiltImage[]
  built: readonly ImagePlan[]
  unchanged: Pick<ReuseOutcome, 'bases' | 'attested'>
  drawVersion?: string
}

type CheckedBuild = Extract<CheckedBuildImages, { tags: string[] }>

/**
 * With attestations asked for (`checked.attest`): the 'Image attestations' phase, after the
 * signatures. Each image built gets the attestations its facts make; each image reused keeps
 * its own. Undefined when none is asked.
 */
export async function attestationPhase(
  checked: CheckedBuild,
  context: CiContext,
  made: MadeImages,
  ports: Omit<AttestPorts, 'cycloneDx'> & AttestationPorts,
): Promise<Attested | undefined> {
  const { attest, inputs } = checked
  const { signingKey } = inputs
  if (!attest || !signingKey) return undefined
  return ports.logger.group('Image attestations', async () => {
    const { attestImages } = await ports.attesting()
    const lock = attest.lockFile
    ports.logger.info(
      lock
        ? `From the lock file '${lock.path}' (${lock.digest})${attest.kinds.includes('sbom') ? `: ${lock.packages.length} npm package(s) that are not development-only` : ''}.`
        : "No lock file (npm-shrinkwrap.json, package-lock.json) in 'working-directory': the provenance names none, and the SBOM lists no npm package.",
    )
    const built = made.images.flatMap((image) => {
      const plan = made.built.find((each) => each.id === image.id)
      if (image.reused || !plan) return []
      const bases = made.unchanged.bases.get(image.id)
      if (!bases)
        ports.logger.warning(
          `${image.id}: its base images were not resolved (see 'Unchanged images'), so its attestations name none.`,
        )
      return [
        {
          name: image.id,
          reference: image.reference,
          ...(image.digest ? { digest: image.digest } : {}),
          facts: imageFacts(checked, context, { plan, bases: bases ?? [], made }, ports),
        },
      ]
    })
    const reused = made.images.flatMap((image) => {
      const documents = made.unchanged.attested.get(image.id)
      return image.reused && documents
        ? [
            {
              name: image.id,
              reference: image.reference,
              ...(image.digest ? { digest: image.digest } : {}),
              documents,
            },
          ]
        : []
    })
    return attestImages(
      built,
      reused,
      {
        kinds: attest.kinds,
        signingKey,
        push: inputs.push,
        workspace: context.workspace,
        ...(checked.login ? { login: checked.login } : {}),
      },
      ports,
    )
  })
}

/**
 * What one image's attestations say: the run (its start, now as its end), the source, the build
 * arguments (SOURCES_PATH first) and the inputs that shaped it (names only are written), its
 * bases, the lock file, and Draw's version.
 */
function imageFacts(
  checked: CheckedBuild,
  context: CiContext,
  image: { plan: ImagePlan; bases: BaseImage[]; made: MadeImages },
  ports: Pick<AttestPorts, 'clock'> & Pick<AttestationPorts, 'tool'>,
): AttestationFacts {
  const { plan } = image
  const ci = ciFacts(context, { startedOn: checked.now, finishedOn: ports.clock.now() })
  // The check phase refused a run that does not know the repository or the builder.
  if (isProblem(ci)) throw new ActionError(`The attestations cannot be made: ${ci.problem}.`)
  const given = checked.attest?.inputs ?? {}
  const inputs = Object.fromEntries(
    Object.entries(given).filter(([name]) =>
      name === 'backends'
        ? plan.kind === 'backend'
        : !name.endsWith('-sources') || name === `${plan.kind}-sources`,
    ),
  )
  return {
    ...ci,
    image: {
      image: plan.id,
      buildArgs: buildArgsOf(plan),
      inputs,
      baseImages: image.bases,
      ...(checked.attest?.lockFile ? { lockFile: checked.attest.lockFile } : {}),
      ...(image.made.drawVersion ? { drawVersion: image.made.drawVersion } : {}),
    },
    tool: ports.tool,
  }
}
