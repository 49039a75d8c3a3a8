import type { BaseImage as ResolvedBase } from '../../attestations/facts.js'
import type { AttestationKind } from '../../attestations/kinds.js'
import { credentialSource, type InputsLogin, type LoginPorts } from '../../registry/logins.js'
import { readImage, type ReadOutcome } from '../../registry/manifests.js'
import { resolvedImage, type RegistryMirrors } from '../../registry/mirrors.js'
import { registryImage } from '../../registry/reference.js'
import { RegistrySession, type SessionPorts } from '../../registry/session.js'
import { unique } from '../../shared/collections.js'
import { startDeadline } from '../../shared/deadline.js'
import { errorMessage } from '../../shared/errors.js'
import { BUILT_AS_LABEL, FINGERPRINT_LABEL } from '../../shared/image-labels.js'
import { tagOf } from '../../shared/image-ref.js'
import type { Logger } from '../../shared/ports.js'
import { isProblem } from '../../shared/problem.js'
import type { SigningKey } from '../../signing/private-key.js'
import { readBuildInputs } from '../../dockerfile/build-inputs.js'
import type { BuiltImage } from '../build.js'
import type { ImageBuilder } from '../builders/image-builder.js'
import type { KeySigning } from '../sign.js'
import type { KeyAttesting } from '../attest/attest.js'
import { buildArgsOf, movingTag, type ImagePlan } from '../plan/plan.js'
import { resolveAll, resolveAtPlatforms, type BaseLookup } from './base-images.js'
import {
  isRecordProof,
  recordProof,
  untrustedRecords,
  type FoundFingerprints,
  type ReuseRecords,
} from './ci-record.js'
import { fingerprintOf } from './fingerprint.js'
import { hashSources, prepare, type Prepared, type SourceHashing } from './fingerprint-inputs.js'
import type { CarriedDocuments, ReuseProof, ReuseRequirement } from './proof.js'
import { tagUnchanged, type Unchanged } from './tagging.js'

/**
 * Fresh runners start every job with an empty engine: only the registry remembers the last run.
 * So before building, each image's fingerprint (fingerprint.ts) is compared with the label of
 * the image that the branch's moving tag names, then the default branch's. A label anyone who
 * can push can write, so an equal label only makes a candidate: it is reused (that manifest
 * given this run's tags instead of building and pushing the same image again) only when a
 * proof (proof.ts) says that this project's default branch built it. Whatever goes wrong
 * on the way, or cannot be known, only means that the image is built, as without this.
 */
/** The time the registry requests of the look-up may take, then those of the tagging. */
export const LOOKUP_SECONDS = 30

export interface ReuseOptions {
  /** The `reuse-unchanged` input. */
  reuse: boolean
  push: boolean
  /** The `platform` input; without it, the engine's. */
  platform?: string
  /** The branch this run builds, and the repository's default branch. */
  branch: string
  defaultBranch: string
  /** The build context. */
  root: string
  /** The login given as inputs, for the images' registry. */
  login?: InputsLogin
  /** Each image's Dockerfile, as the check phase read it, by image id. */
  dockerfiles: ReadonlyMap<string, { text: string; sha256: string }>
  /** `signing-key`: reuse then asks for a signature under it (proof (a)). */
  signingKey?: SigningKey
  /** `registry-mirrors`: base images are looked up where the build pulls them. */
  mirrors: RegistryMirrors
  /** What every image must carry (with `signing-key`): a candidate without it is built again. */
  attestations?: readonly AttestationKind[]
}

export interface ReusePorts extends SessionPorts, LoginPorts {
  logger: Logger
  builder: Pick<ImageBuilder, 'name' | 'versions'>
  redact: (text: string) => string
  /** Where the CI keeps its records of what the default branch built; undefined: nowhere here. */
  records?: ReuseRecords
  /** The signing code, loaded when asked (with 'signing-key' only): see sign.ts. */
  signing: () => Promise<Pick<KeySigning, 'keyProof'>>
  /** The attestation code, loaded when asked (with 'attestations' only): see attest/attest.ts. */
  attesting: () => Promise<Pick<KeyAttesting, 'attestationsCarried'>>
}

/**
 * Each image's plan to build (with the fingerprint label, and `--pull` so that the bases it was
 * fingerprinted with are the ones built on), and the earlier image to reuse instead, if any.
 */
export interface ReuseVerdict {
  plan: ImagePlan
  unchanged?: Unchanged
  /** The image's fingerprint, when it could be known: its label, and its record once pushed. */
  fingerprint?: string
  /** Its base images as resolved for the fingerprint, by the digests the build is to use. */
  bases?: ResolvedBase[]
  /** What the earlier image carries of the attestations asked for (see ReuseRequirement). */
  attested?: CarriedDocuments
}

export interface ReuseOutcome extends FoundFingerprints {
  reused: BuiltImage[]
  /** The plans to build, in the plans' order. */
  build: ImagePlan[]
  /** Each image's fingerprint, by image id, when known: what the records of a later run need. */
  fingerprints: Map<string, string>
  recorded: Set<string>
  /** Each image's base images, by image id, when they were resolved (for its provenance and SBOM). */
  bases: Map<string, ResolvedBase[]>
  /** Each image reused, by image id: the attestations it carries from the run that built it. */
  attested: Map<string, CarriedDocuments>
}

/** Finds the unchanged images, gives them this run's tags, and returns what is left to build. */
export async function reuseUnchanged(
  plans: readonly ImagePlan[],
  options: ReuseOptions,
  ports: ReusePorts,
): Promise<ReuseOutcome> {
  try {
    const found = await findUnchanged(plans, options, ports)
    const outcome = await tagAll(found.verdicts, ports)
    return found.untrusted ? { ...outcome, untrusted: found.untrusted } : outcome
  } catch (error) {
    // Reuse only saves time: whatever goes wrong in it, the images are built as without it.
    ports.logger.info(
      ports.redact(
        `Every image is built: looking for unchanged images failed (${errorMessage(error)}).`,
      ),
    )
    return {
      reused: [],
      build: [...plans],
      fingerprints: new Map(),
      recorded: new Set(),
      bases: new Map(),
      attested: new Map(),
    }
  }
}

/** Gives each unchanged image this run's tags; an image that cannot get them all is built. */
async function tagAll(verdicts: readonly ReuseVerdict[], ports: ReusePorts): Promise<ReuseOutcome> {
  const reused: BuiltImage[] = []
  const build: ImagePlan[] = []
  const fingerprints = new Map<string, string>()
  const recorded = new Set<string>()
  const bases = new Map<string, ResolvedBase[]>()
  const attested = new Map<string, CarriedDocuments>()
  for (const verdict of verdicts) {
    if (verdict.fingerprint) fingerprints.set(verdict.plan.id, verdict.fingerprint)
    if (verdict.bases) bases.set(verdict.plan.id, verdict.bases)
  }
  const deadline = startDeadline(
    ports.clock,
    LOOKUP_SECONDS,
    `the ${LOOKUP_SECONDS} s given to tagging`,
  )
  const tagged = await Promise.all(
    verdicts.map(async (verdict) =>
      verdict.unchanged ? tagUnchanged(verdict.plan, verdict.unchanged, deadline) : undefined,
    ),
  )
  verdicts.forEach((verdict, index) => {
    const outcome = tagged[index]
    if (outcome) ports.logger.info(ports.redact(outcome.said))
    if (outcome?.image) {
      reused.push(outcome.image)
      if (verdict.attested) attested.set(verdict.plan.id, verdict.attested)
      if (verdict.unchanged && isRecordProof(verdict.unchanged.proof)) recorded.add(verdict.plan.id)
    } else build.push(verdict.plan)
  })
  if (verdicts.length > 0 && build.length === 0)
    ports.logger.info('Nothing to build: no image changed since it was last pushed.')
  return { reused, build, fingerprints, recorded, bases, attested }
}

/**
 * The proof reuse asks of a candidate, or why there is none (every image is then built): (a) with
 * 'signing-key', a signature under that key whose payload carries the fingerprint (the signing
 * code loads only then); (b) with nothing configured, the CI's own record of what the default
 * branch built.
 */
async function proofFor(
  options: Pick<ReuseOptions, 'signingKey'>,
  ports: Pick<ReusePorts, 'records' | 'signing'>,
): Promise<ReuseProof | { none: string; untrusted?: string }> {
  if (options.signingKey) return (await ports.signing()).keyProof(options.signingKey)
  const { records } = ports
  if (records) {
    const untrusted = await untrustedRecords(records)
    return untrusted ? { none: `${records.where} ${untrusted}`, untrusted } : recordProof(records)
  }
  return {
    none: "no proof that the default branch built an image can be had here: neither a signature under 'signing-key' (not set) nor the CI's own record of what it built (the GitHub Actions cache, or the cache the GitLab template declares)",
  }
}

/** The verdict of each plan, in order; says in the log why each image is built or reused. */
async function findUnchanged(
  plans: readonly ImagePlan[],
  options: ReuseOptions,
  ports: ReusePorts,
): Promise<{ verdicts: ReuseVerdict[]; untrusted?: string }> {
  const { logger } = ports
  const builtAll = (why: string): { verdicts: ReuseVerdict[] } => {
    logger.info(`Every image is built: ${why}.`)
    return { verdicts: plans.map((plan) => ({ plan })) }
  }
  if (!options.push)
    return builtAll('push is false, and only an image in the registry can be reused')
  const proof = options.reuse ? await proofFor(options, ports) : undefined
  // Said once; the fingerprints are still computed, for the labels and records later runs need.
  if (!options.reuse)
    logger.info(
      "Every image is built: 'reuse-unchanged' is false. Each is labelled with its fingerprint, and recorded, so that later runs can reuse it.",
    )
  else if (proof && 'none' in proof)
    logger.info(ports.redact(`Every image is built: ${proof.none}.`))
  const untrusted = proof && 'none' in proof ? proof.untrusted : undefined
  // The builder's platform is the build machine's (`$BUILDPLATFORM`), whatever the target.
  const versions = await ports.builder.versions()
  const buildPlatform = versions.platform
  const platform = options.platform ?? buildPlatform
  if (!platform)
    return {
      ...builtAll(
        "the builder did not say its platform, which is part of what goes into an image (set 'platform')",
      ),
      ...(untrusted ? { untrusted } : {}),
    }
  const prepared = await Promise.all(
    plans.map((plan) => prepare(plan, options.dockerfiles.get(plan.id), ports.files)),
  )
  // The bases where they are read: at their mirror when one serves them.
  const targets = [
    ...unique(prepared.map((image) => image.plan.reference)).map((ref) => registryImage(ref)),
    ...unique(prepared.flatMap((image) => image.inputs?.images ?? [])).map((base) =>
      resolvedImage(base, options.mirrors),
    ),
  ].flatMap((target) => (isProblem(target) ? [] : [target]))
  const credentialsFor = await credentialSource(targets, options.login, ports)
  const deadline = startDeadline(
    ports.clock,
    LOOKUP_SECONDS,
    `the ${LOOKUP_SECONDS} s given to the look-up of unchanged images`,
  )
  const context: Context = {
    options,
    platform,
    builder: { name: ports.builder.name, version: versions.client },
    buildPlatform,
    mirrors: options.mirrors,
    files: ports.files,
    ports,
    credentialsFor,
    deadline,
    proof: proof && !('none' in proof) ? proof : undefined,
    required: proof && !('none' in proof) ? await requirementFor(options, ports) : undefined,
    images: new Map(),
    sources: new Map(),
  }
  const verdicts = await Promise.all(prepared.map((image) => judge(image, context)))
  // Said in the plans' order, whatever order the answers came in.
  for (const verdict of verdicts) for (const line of verdict.said) logger.info(ports.redact(line))
  return {
    verdicts: verdicts.map(({ plan, unchanged, fingerprint, bases, attested }) => ({
      plan,
      unchanged,
      fingerprint,
      ...(bases ? { bases } : {}),
      ...(attested ? { attested } : {}),
    })),
    ...(untrusted ? { untrusted } : {}),
  }
}

/** What judging each image needs: the bases' look-up, the sources' hashing, and the proof. */
interface Context extends BaseLookup, SourceHashing {
  options: ReuseOptions
  ports: ReusePorts
  /** The proof a candidate needs; undefined: nothing is looked up, the fingerprint only labels. */
  proof?: ReuseProof
  /** What a proven candidate must carry besides (the attestations asked for). */
  required?: ReuseRequirement
}

/** The attestations a candidate must carry: with 'signing-key' and 'attestations' only. */
async function requirementFor(
  options: Pick<ReuseOptions, 'signingKey' | 'attestations'>,
  ports: Pick<ReusePorts, 'attesting'>,
): Promise<ReuseRequirement | undefined> {
  const { signingKey, attestations } = options
  if (!signingKey || !attestations || attestations.length === 0) return undefined
  return (await ports.attesting()).attestationsCarried(signingKey, attestations)
}

async function judge(
  image: Prepared,
  context: Context,
): Promise<ReuseVerdict & { said: string[] }> {
  const { plan } = image
  const built = (why: string): ReuseVerdict & { said: string[] } => ({
    plan,
    said: [`${plan.id}: built, not looked up: ${why}.`],
  })
  if (!image.dockerfile || !image.inputs)
    return built(image.problem ?? 'its Dockerfile could not be read')
  // Bases first: their ONBUILD triggers run in our stages, and may copy from our context too.
  const first = await resolveAll(image.inputs.images, context)
  if (isProblem(first)) return built(first.problem)
  const inputs = readBuildInputs(image.dockerfile.text, buildArgsOf(plan), (base) => {
    const found = first.resolved.get(base)
    return found && 'digest' in found ? found : undefined
  })
  if (inputs.unknowable) return built(inputs.unknowable)
  const all = await resolveAll(inputs.images, context)
  if (isProblem(all)) return built(all.problem)
  const staged = await resolveAtPlatforms(inputs.platformImages, context)
  if (isProblem(staged)) return built(staged.problem)
  const bases = resolvedBases(inputs.images, all.resolved, staged.images)
  // The earlier images are looked up while the sources are hashed.
  const target = registryImage(plan.reference)
  if (isProblem(target)) return built(target.problem)
  const session = new RegistrySession(
    target,
    context.credentialsFor(target),
    'pull,push',
    context.deadline,
    context.ports,
    1,
  )
  const tags = unique([movingTag(context.options.branch), movingTag(context.options.defaultBranch)])
  const { proof } = context
  const earlier = proof ? Promise.all(tags.map((tag) => readImage(session, tag))) : undefined
  const hashed = await hashSources(image, inputs, context)
  const found = await earlier
  if (isProblem(hashed)) return built(hashed.problem)
  const fingerprint = fingerprintOf({
    ...hashed.parts,
    images: [
      ...inputs.images.map((reference): [string, string] => {
        const resolved = all.resolved.get(reference)
        return [reference, resolved && 'digest' in resolved ? resolved.digest : '']
      }),
      ...staged.images,
    ],
  })
  const labelled: ImagePlan = {
    ...plan,
    command: {
      ...plan.command,
      labels: [
        ...plan.command.labels,
        [FINGERPRINT_LABEL, fingerprint],
        [BUILT_AS_LABEL, tagOf(plan.reference)],
      ],
      pull: true,
    },
  }
  const what = `${plan.id}: fingerprint ${fingerprint} (${hashed.summary})`
  if (!proof || !found) return { plan: labelled, fingerprint, bases, said: [what] }
  const looked: string[] = []
  for (const [index, outcome] of found.entries()) {
    const tag = tags[index] ?? ''
    if (outcome.kind === 'read' && outcome.image.labels[FINGERPRINT_LABEL] === fingerprint) {
      const builtAs = outcome.image.labels[BUILT_AS_LABEL] ?? tag
      const { manifest } = outcome.image
      const verdict = await proof.verify({
        kind: plan.kind,
        digest: manifest.digest,
        fingerprint,
        session,
      })
      const carried = verdict.proven
        ? await context.required?.verify({
            kind: plan.kind,
            digest: manifest.digest,
            fingerprint,
            session,
          })
        : undefined
      if (carried && !carried.met) {
        looked.push(
          `'${tag}' (built as ${builtAs}) has the same fingerprint, and ${verdict.said}, but ${carried.said}, so it is built again`,
        )
        continue
      }
      if (verdict.proven)
        return {
          plan: labelled,
          fingerprint,
          bases,
          ...(carried ? { attested: carried.documents } : {}),
          unchanged: { manifest, fingerprint, builtAs, session, proof },
          said: [
            what,
            `${plan.id}: '${tag}' (built as ${builtAs}) has the same fingerprint, and ${verdict.said}.`,
          ],
        }
      looked.push(
        `'${tag}' (built as ${builtAs}) has the same fingerprint, but ${verdict.said}, so it is not trusted`,
      )
      continue
    }
    looked.push(describeEarlier(tag, outcome))
  }
  return {
    plan: labelled,
    fingerprint,
    bases,
    said: [what, `${plan.id}: built: ${looked.join('; ')}.`],
  }
}

/**
 * The bases as a provenance names them: each reference the Dockerfile builds from, by the digest
 * of the image manifest read for the target platform; a stage built for a platform of its own by
 * the digest read for that one (`<image> --platform=<it>`, named by its image). Each once.
 */
function resolvedBases(
  references: readonly string[],
  resolved: ReadonlyMap<string, { digest: string } | { problem: string }>,
  staged: ReadonlyArray<readonly [string, string]>,
): ResolvedBase[] {
  const bases = [
    ...references.flatMap((reference) => {
      const found = resolved.get(reference)
      return found && 'digest' in found ? [{ reference, digest: found.digest }] : []
    }),
    ...staged.map(([key, digest]) => ({ reference: key.split(' --platform=')[0] ?? key, digest })),
  ]
  return bases.filter(
    (base, index) =>
      bases.findIndex(
        (each) => each.reference === base.reference && each.digest === base.digest,
      ) === index,
  )
}

/** Why the image under `tag` is not reused, for the log. */
function describeEarlier(tag: string, outcome: ReadOutcome): string {
  if (outcome.kind === 'missing') return `no image '${tag}' in the registry yet`
  if (outcome.kind !== 'read') return `'${tag}' could not be looked up (${outcome.detail})`
  const label = outcome.image.labels[FINGERPRINT_LABEL]
  if (label === undefined) return `'${tag}' has no fingerprint label`
  const builtAs = outcome.image.labels[BUILT_AS_LABEL]
  return `'${tag}'${builtAs ? ` (built as ${builtAs})` : ''} was built from other inputs (fingerprint ${label})`
}
