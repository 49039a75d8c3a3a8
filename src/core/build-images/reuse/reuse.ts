import { join } from 'node:path'
import {
  credentialSource,
  type CredentialsFor,
  type InputsLogin,
  type LoginPorts,
} from '../../registry/logins.js'
import {
  readImage,
  tagManifest,
  type Manifest,
  type ReadOutcome,
} from '../../registry/manifests.js'
import {
  MIRRORS_EXAMPLE,
  registryShown,
  resolvedImage,
  type RegistryMirrors,
} from '../../registry/mirrors.js'
import { registryImage } from '../../registry/reference.js'
import { RegistrySession, type SessionPorts } from '../../registry/session.js'
import { unique } from '../../shared/collections.js'
import { mapLimit } from '../../shared/concurrency.js'
import { startDeadline, type Deadline } from '../../shared/deadline.js'
import { errorMessage } from '../../shared/errors.js'
import type { Logger } from '../../shared/ports.js'
import type { BuiltImage } from '../build.js'
import type { ImageKind } from '../image-kinds.js'
import { builderReading } from '../builders/reading.js'
import { isRecordProof, recordProof, untrustedRecords, type ReuseRecords } from './ci-record.js'
import { readBuildInputs, type BaseFacts, type BuildInputs } from '../../dockerfile/build-inputs.js'
import { readIgnoreFile, type IgnoreMatcher } from '../../dockerfile/dockerignore.js'
import { BUILT_AS_LABEL, FINGERPRINT_LABEL } from '../../shared/image-labels.js'
import { fingerprintOf, sourceDigest, type SourceDigest } from './fingerprint.js'
import type { ReuseProof } from './proof.js'
import type { SigningKey } from '../../signing/private-key.js'
import { buildArgsOf, movingTag, type ImagePlan } from '../plan/plan.js'
import type { ImageBuilder } from '../builders/image-builder.js'

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
/** Registries are asked a few at a time, as the image check does. */
const CONCURRENT_READS = 4

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
  /** Each image's Dockerfile, as the check phase read it. */
  dockerfiles: ReadonlyMap<ImageKind, { text: string; sha256: string }>
  /** `signing-key`: reuse then asks for a signature under it (proof (a)). */
  signingKey?: SigningKey
  /** `registry-mirrors`: base images are looked up where the build pulls them. */
  mirrors: RegistryMirrors
}

export interface ReusePorts extends SessionPorts, LoginPorts {
  logger: Logger
  builder: Pick<ImageBuilder, 'name' | 'versions'>
  redact: (text: string) => string
  /** Where the CI keeps its records of what the default branch built; undefined: nowhere here. */
  records?: ReuseRecords
}

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

/**
 * Each image's plan to build (with the fingerprint label, and `--pull` so that the bases it was
 * fingerprinted with are the ones built on), and the earlier image to reuse instead, if any.
 */
export interface ReuseVerdict {
  plan: ImagePlan
  unchanged?: Unchanged
  /** The image's fingerprint, when it could be known: its label, and its record once pushed. */
  fingerprint?: string
}

export interface ReuseOutcome {
  reused: BuiltImage[]
  /** The plans to build, in the plans' order. */
  build: ImagePlan[]
  /** Each image's fingerprint, when known: what the records of a later run need. */
  fingerprints: Map<ImagePlan['kind'], string>
  /** The images reused on a proof that is the CI's own record: recorded already. */
  recorded: Set<ImagePlan['kind']>
  /** Why the CI's records are not trusted in this run, said in the log already. */
  untrusted?: string
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
    return { reused: [], build: [...plans], fingerprints: new Map(), recorded: new Set() }
  }
}

/** Gives each unchanged image this run's tags; an image that cannot get them all is built. */
async function tagAll(verdicts: readonly ReuseVerdict[], ports: ReusePorts): Promise<ReuseOutcome> {
  const reused: BuiltImage[] = []
  const build: ImagePlan[] = []
  const fingerprints = new Map<ImagePlan['kind'], string>()
  const recorded = new Set<ImagePlan['kind']>()
  for (const verdict of verdicts)
    if (verdict.fingerprint) fingerprints.set(verdict.plan.kind, verdict.fingerprint)
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
      if (verdict.unchanged && isRecordProof(verdict.unchanged.proof))
        recorded.add(verdict.plan.kind)
    } else build.push(verdict.plan)
  })
  if (verdicts.length > 0 && build.length === 0)
    ports.logger.info('Nothing to build: no image changed since it was last pushed.')
  return { reused, build, fingerprints, recorded }
}

/**
 * The proof reuse asks of a candidate, or why there is none (every image is then built): (a) with
 * 'signing-key', a signature under that key whose payload carries the fingerprint (the signing
 * code loads only then); (b) with nothing configured, the CI's own record of what the default
 * branch built.
 */
async function proofFor(
  options: Pick<ReuseOptions, 'signingKey'>,
  ports: Pick<ReusePorts, 'records'>,
): Promise<ReuseProof | { none: string; untrusted?: string }> {
  if (options.signingKey) {
    const [{ signatureProof }, { keyVerifier }] = await Promise.all([
      import('./signature-proof.js'),
      import('../../signing/signer.js'),
    ])
    return signatureProof(keyVerifier(options.signingKey.publicKey, 'signing-key'))
  }
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
    plans.map((plan) => prepare(plan, options.dockerfiles.get(plan.kind), ports)),
  )
  // The bases where they are read: at their mirror when one serves them.
  const targets = [
    ...unique(prepared.map((image) => image.plan.reference)).map((ref) => registryImage(ref)),
    ...unique(prepared.flatMap((image) => image.inputs?.images ?? [])).map((base) =>
      resolvedImage(base, options.mirrors),
    ),
  ].flatMap((target) => ('problem' in target ? [] : [target]))
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
    ports,
    credentialsFor,
    deadline,
    proof: proof && !('none' in proof) ? proof : undefined,
    images: new Map(),
    sources: new Map(),
  }
  const verdicts = await Promise.all(prepared.map((image) => judge(image, context)))
  // Said in the plans' order, whatever order the answers came in.
  for (const verdict of verdicts) for (const line of verdict.said) logger.info(ports.redact(line))
  return {
    verdicts: verdicts.map(({ plan, unchanged, fingerprint }) => ({
      plan,
      unchanged,
      fingerprint,
    })),
    ...(untrusted ? { untrusted } : {}),
  }
}

interface Prepared {
  plan: ImagePlan
  /** SHA-256 of the Dockerfile's bytes, and its text; or why they are not known. */
  dockerfile?: { hash: string; text: string }
  inputs?: BuildInputs
  /** The `.dockerignore` BuildKit applies for it, and its SHA-256 (none: null). */
  ignore?: { path: string; hash: string | null; matcher?: IgnoreMatcher }
  problem?: string
}

/** The Dockerfile the check phase read, what its build reads, and its ignore file. */
async function prepare(
  plan: ImagePlan,
  read: { text: string; sha256: string } | undefined,
  ports: ReusePorts,
): Promise<Prepared> {
  if (!read) return { plan, problem: `'${plan.dockerfile}' was not read` }
  try {
    const ignore = await ignoreFileOf(plan, ports)
    if ('problem' in ignore) return { plan, problem: ignore.problem }
    return {
      plan,
      dockerfile: { hash: read.sha256, text: read.text },
      inputs: readBuildInputs(read.text, buildArgsOf(plan)),
      ignore,
    }
  } catch (error) {
    return { plan, problem: `its .dockerignore could not be read (${errorMessage(error)})` }
  }
}

/**
 * The ignore file BuildKit applies to this image's context: `<Dockerfile>.dockerignore` when it
 * exists, else the context's `.dockerignore`.
 */
async function ignoreFileOf(
  plan: ImagePlan,
  ports: ReusePorts,
): Promise<NonNullable<Prepared['ignore']> | { problem: string }> {
  const root = plan.command.context
  for (const path of [`${plan.command.dockerfile}.dockerignore`, join(root, '.dockerignore')]) {
    const shown = path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path
    if ((await ports.files.linkTarget(path)) !== undefined)
      return { problem: `'${shown}' is a symbolic link, which this step does not follow` }
    const found = await ports.files.stat(path)
    if (!found) continue
    if (found.kind !== 'file') return { problem: `'${shown}' is not a file` }
    const [hash, text] = await Promise.all([ports.files.hashFile(path), ports.files.readText(path)])
    const rules = readIgnoreFile(text)
    if ('invalid' in rules) return { problem: `BuildKit cannot read '${shown}' (${rules.invalid})` }
    // Not applied: every file of the context counts, more than the build reads.
    return { path: shown, hash, matcher: 'matcher' in rules ? rules.matcher : undefined }
  }
  return { path: '.dockerignore', hash: null }
}

interface Context {
  options: ReuseOptions
  platform: string
  /** The builder, whose reading of a Dockerfile may differ from BuildKit's (builders/reading.ts). */
  builder: { name: ImageBuilder['name']; version?: string }
  /** The builder's: what `$BUILDPLATFORM` names. */
  buildPlatform?: string
  ports: ReusePorts
  credentialsFor: CredentialsFor
  deadline: Deadline
  /** The proof a candidate needs; undefined: nothing is looked up, the fingerprint only labels. */
  proof?: ReuseProof
  /** Each image read once, whichever Dockerfiles name it. */
  images: Map<string, Promise<Resolved>>
  /** Each context path hashed once. */
  sources: Map<string, Promise<SourceDigest>>
}

type Resolved = ({ digest: string } & BaseFacts) | { problem: string }

async function judge(
  image: Prepared,
  context: Context,
): Promise<ReuseVerdict & { said: string[] }> {
  const { plan } = image
  const built = (why: string): ReuseVerdict & { said: string[] } => ({
    plan,
    said: [`${plan.kind}: built, not looked up: ${why}.`],
  })
  if (!image.dockerfile || !image.inputs)
    return built(image.problem ?? 'its Dockerfile could not be read')
  // Bases first: their ONBUILD triggers run in our stages, and may copy from our context too.
  const first = await resolveAll(image.inputs.images, context)
  if ('problem' in first) return built(first.problem)
  const inputs = readBuildInputs(image.dockerfile.text, buildArgsOf(plan), (base) => {
    const found = first.resolved.get(base)
    return found && 'digest' in found ? found : undefined
  })
  if (inputs.unknowable) return built(inputs.unknowable)
  const all = await resolveAll(inputs.images, context)
  if ('problem' in all) return built(all.problem)
  const staged = await resolveAtPlatforms(inputs.platformImages, context)
  if ('problem' in staged) return built(staged.problem)
  // The earlier images are looked up while the sources are hashed.
  const target = registryImage(plan.reference)
  if ('problem' in target) return built(target.problem)
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
  if ('problem' in hashed) return built(hashed.problem)
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
  const what = `${plan.kind}: fingerprint ${fingerprint} (${hashed.summary})`
  if (!proof || !found) return { plan: labelled, fingerprint, said: [what] }
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
      if (verdict.proven)
        return {
          plan: labelled,
          fingerprint,
          unchanged: { manifest, fingerprint, builtAs, session, proof },
          said: [
            what,
            `${plan.kind}: '${tag}' (built as ${builtAs}) has the same fingerprint, and ${verdict.said}.`,
          ],
        }
      looked.push(
        `'${tag}' (built as ${builtAs}) has the same fingerprint, but ${verdict.said}, so it is not trusted`,
      )
      continue
    }
    looked.push(describeEarlier(tag, outcome))
  }
  return { plan: labelled, fingerprint, said: [what, `${plan.kind}: built: ${looked.join('; ')}.`] }
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

/** Every reference read once (see Context.images); the first that cannot be, with why. */
async function resolveAll(
  references: readonly string[],
  context: Context,
): Promise<{ resolved: Map<string, Resolved> } | { problem: string }> {
  const resolved = new Map<string, Resolved>()
  const answers = await mapLimit(references, CONCURRENT_READS, (reference) => {
    let pending = context.images.get(reference)
    if (!pending) {
      pending = resolve(reference, context)
      context.images.set(reference, pending)
    }
    return pending
  })
  for (const [index, reference] of references.entries()) {
    const answer = answers[index] as Resolved
    if ('problem' in answer)
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
async function resolveAtPlatforms(
  staged: BuildInputs['platformImages'],
  context: Context,
): Promise<{ images: Array<[string, string]> } | { problem: string }> {
  const images: Array<[string, string]> = []
  for (const { image, platform: written } of staged) {
    const platform = written
      .replace(/\$\{?BUILDPLATFORM\}?/g, context.buildPlatform ?? '$BUILDPLATFORM')
      .replace(/\$\{?TARGETPLATFORM\}?/g, context.platform)
    if (platform.includes('$'))
      return {
        problem: `the stage FROM --platform=${written} ${image} names a platform whose value is not known before the build`,
      }
    const key = `${image} --platform=${platform}`
    let pending = context.images.get(key)
    if (!pending) {
      pending = resolve(image, context, platform)
      context.images.set(key, pending)
    }
    const answer = await pending
    if ('problem' in answer)
      return { problem: `the image '${image}' it builds from for ${platform} ${answer.problem}` }
    images.push([key, answer.digest])
  }
  return { images }
}

async function resolve(
  reference: string,
  context: Context,
  platform = context.platform,
): Promise<Resolved> {
  const target = resolvedImage(reference, context.options.mirrors)
  if ('problem' in target) return { problem: `is not a registry image (${target.problem})` }
  const session = new RegistrySession(
    target,
    context.credentialsFor(target),
    'pull',
    context.deadline,
    context.ports,
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

interface Hashed {
  parts: Omit<Parameters<typeof fingerprintOf>[0], 'images'>
  summary: string
}

/** SHA-256 of the file at `path`; undefined when no file is there. */
async function hashIfFile(path: string, files: ReusePorts['files']): Promise<string | undefined> {
  return (await files.stat(path))?.kind === 'file' ? files.hashFile(path) : undefined
}

async function hashSources(
  image: Prepared,
  inputs: BuildInputs,
  context: Context,
): Promise<Hashed | { problem: string }> {
  const { plan } = image
  const root = plan.command.context
  const { files } = context.ports
  const ignore = image.ignore ?? { path: '.dockerignore', hash: null }
  const view = { root, ignore: ignore.matcher, files }
  const digests = await Promise.all(
    inputs.sources.map((source) => {
      // Each image may have an ignore file of its own: a source is hashed once per ignore file.
      const key = `${ignore.path}\0${source}`
      let pending = context.sources.get(key)
      if (!pending) {
        pending = sourceDigest(source, view).catch((error: unknown) => ({
          problem: `'${source}' could not be read (${errorMessage(error)})`,
        }))
        context.sources.set(key, pending)
      }
      return pending
    }),
  )
  const sources: Array<[string, string | null]> = []
  let count = 0
  for (const [index, source] of inputs.sources.entries()) {
    const digest = digests[index] as SourceDigest
    if ('problem' in digest) return { problem: digest.problem }
    sources.push([source, digest.digest])
    count += digest.files
  }
  const reading =
    context.builder.name === 'docker'
      ? undefined
      : builderReading(context.builder, {
          dockerfile: image.dockerfile?.text ?? '',
          images: inputs.images,
          containerignore: await hashIfFile(join(root, '.containerignore'), files),
          // `<Dockerfile>.dockerignore` wins over the context's files, for Buildah too.
          ownIgnoreFile: ignore.hash !== null && ignore.path !== '.dockerignore',
        })
  return {
    parts: {
      dockerfile: image.dockerfile?.hash ?? '',
      ignoreFiles: [[ignore.path, ignore.hash]],
      sources,
      pinned: inputs.pinned,
      buildArgs: buildArgsOf(plan),
      labels: plan.command.labels,
      platform: plan.command.platform ?? context.platform,
      ...(reading === undefined ? {} : { builder: reading }),
    },
    summary: `${count.toLocaleString('en-US')} file${count === 1 ? '' : 's'} in ${inputs.sources.join(', ') || 'no context path'}; ${inputs.images.length} image(s) built from: ${inputs.images.join(', ') || 'none'}`,
  }
}

/** Gives the manifest every tag of the plan: the image reused, or none; what to say either way. */
async function tagUnchanged(
  plan: ImagePlan,
  unchanged: Unchanged,
  deadline: Deadline,
): Promise<{ image?: BuiltImage; said: string }> {
  const session = unchanged.session.within(deadline)
  for (const reference of plan.command.tags) {
    const problem = await tagManifest(session, unchanged.manifest, tagOf(reference))
    if (problem)
      return {
        said: `${plan.kind}: built after all: giving its unchanged image the tag '${tagOf(reference)}' failed (${problem}).`,
      }
  }
  return {
    image: {
      kind: plan.kind,
      reference: plan.reference,
      references: plan.references,
      digest: unchanged.manifest.digest,
      reused: { since: unchanged.builtAs, fingerprint: unchanged.fingerprint },
    },
    said: `${plan.kind} unchanged since ${unchanged.builtAs} (fingerprint ${unchanged.fingerprint}): tagged ${plan.references.map(tagOf).join(', ')}, not rebuilt.`,
  }
}

/** The tag of `host[:port]/name:tag`: a tag holds neither ':' nor '/'. */
function tagOf(reference: string): string {
  return reference.slice(reference.lastIndexOf(':') + 1)
}
