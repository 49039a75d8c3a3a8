import {
  checkImage,
  type CheckOutcome,
  type ManifestCheckPorts,
} from '../registry/manifest-check.js'
import type { ImageConfigRead } from '../registry/manifest-check.js'
import type { RegistryLogin } from '../registry/credentials.js'
import {
  credentialSource,
  loginForImages,
  type InputsLogin,
  type LoginPorts,
} from '../registry/logins.js'
import { pinReference, type PinnedReference } from '../registry/pinned-reference.js'
import { registryImage } from '../registry/reference.js'
import { registryShown, resolvedImage, type RegistryMirrors } from '../registry/mirrors.js'
import { RegistrySession } from '../registry/session.js'
import { isProblem, type Problem } from '../shared/problem.js'
import type { SignatureVerifier } from '../signing/signer.js'
import type { SignaturesReader, SignatureVerdict } from '../signing/signatures.js'
import { unique } from '../shared/collections.js'
import { mapLimit } from '../shared/concurrency.js'
import { ActionError } from '../shared/errors.js'
import { builtReferences } from './built-images.js'
import type { Deadline } from '../shared/deadline.js'
import type { CommonPorts, Logger } from '../shared/ports.js'
import { payloadImages, type PayloadImage, type PayloadInputs } from './payload.js'
import type { Payload } from './payload-schema.js'
import { provenanceLogNote, provenanceProblem, type ProvenanceCheck } from './provenance.js'
import type { ProvenanceVerdict } from '../attestations/provenance-check.js'

export const VERIFY_MODES = ['auto', 'true', 'false'] as const
export type VerifyMode = (typeof VERIFY_MODES)[number]

/**
 * Which images the check pins, as `pin-digests` decides it (see pinPlan): every image checked;
 * only those a mirror answered for (a mirror may answer only for a reference then sent pinned:
 * the platform pulls from the registry the reference names); or none, references sent as given,
 * and a mirrored registry's images checked there.
 */
export type PinPlan = 'every' | 'mirrored' | 'none'

/** Registries are asked a few at a time: enough to overlap, not enough to trip a rate limit. */
const CONCURRENT_CHECKS = 4
/**
 * The share of the step's time left that the check may use: the webhook call keeps the rest, so
 * that a registry that never answers is a warning under 'auto', not a step out of time.
 */
const CHECK_SHARE = 0.5

export interface VerifyInputs {
  verifyImages: VerifyMode
  /** The inputs' login and the registry it is for, decided in the check phase (see checkLogin). */
  login?: InputsLogin
  /**
   * `registry-mirrors`: an image of a registry one serves is checked there, unless nothing is
   * pinned (`pinning: 'none'`): a mirror may answer only for a reference then sent pinned.
   */
  registryMirrors?: RegistryMirrors
  /** Which images found get a pinned reference (see pinPlan); none by default. */
  pinning?: PinPlan
  /** Why they are pinned, for the message when one cannot be checked (see pinReason). */
  pinReason?: string
  /**
   * References given with the digest that was pushed (`built-images`): asked by that digest, not
   * by their tag, which is not resolved again (a later push may have moved it; the platform pulls
   * the digest).
   */
  byDigest?: ReadonlySet<string>
  /** The step's 'timeout-seconds', already running. */
  deadline: Deadline
  /** Read the frontend image's labels too (its config blob), with the same login and time. */
  readFrontendLabels?: boolean
  /**
   * `verify-signatures`: every image must carry a valid signature under this verifier for its
   * digest; an image that cannot be checked then fails the step under `auto` too.
   */
  signatures?: SignatureVerifier
  /**
   * `require-provenance`, with `signatures`: every signed image must carry a provenance under
   * the same key, for its digest, naming one of these repositories.
   */
  provenance?: ProvenanceCheck
}

/**
 * What the check found: the summary's note beside each image (by the reference sent), the
 * frontend's labels if asked, and the images to send pinned, by the reference given.
 */
export interface VerifyResult {
  beside: Map<string, string>
  pins: Map<string, PinnedReference>
  /** When asked for: the frontend image's labels, or why they could not be read. */
  frontendLabels?: ImageConfigRead
}

export interface VerifyPorts
  extends ManifestCheckPorts, LoginPorts, Pick<CommonPorts, 'reporter' | 'redact'> {
  /**
   * Reads an image's signatures: given by the action's module, which loads it only when
   * `verify-signatures` is set.
   */
  readSignatures?: SignaturesReader
}

/** One image of the payload, by the part of it that deploys the image. */
type Verdict = CheckOutcome | { kind: 'invalid'; detail: string }

interface Checked extends PayloadImage {
  registry?: string
  /** The registry whose images `registry` serves, when it is a mirror. */
  mirrorOf?: string
  verdict: Verdict
  /** With `verify-signatures`, for an image found: what its signatures say. */
  signature?: SignatureVerdict
  /** With `require-provenance`, for an image signed: what its provenance says. */
  provenance?: ProvenanceVerdict
  /** For an image found that is to be sent pinned: its pinned reference, or why there is none. */
  pin?: PinnedReference | Problem
}

/**
 * Every image of the payload, those of `payload-file` included, must exist before the
 * webhook is called. A missing image (or a digest that does not match, or a registry whose digest
 * header is not its bytes') fails the step; a registry that cannot be asked fails it under `true`
 * (and with `verify-signatures` or every image to pin) and earns a warning under `auto`. Sets the
 * `digests` output and returns what the summary shows beside each reference (see besideImage)
 * and the pinned reference of each image `pinning` pins.
 */
export async function verifyImages(
  payload: Payload,
  inputs: VerifyInputs,
  ports: VerifyPorts,
): Promise<VerifyResult> {
  const { logger, reporter } = ports
  const images = deployedImages(payload)
  const asked = inputs.readFrontendLabels === true
  if (inputs.verifyImages === 'false' || images.length === 0) {
    if (images.length > 0)
      logger.info("The images were not checked in their registries ('verify-images: false').")
    reporter.setOutput('digests', '{}')
    const why = payload.frontend
      ? "the registry was not asked ('verify-images: false')"
      : 'the payload has no frontend image'
    return {
      beside: new Map(),
      pins: new Map(),
      ...(asked ? { frontendLabels: { problem: why } } : {}),
    }
  }
  if (inputs.signatures && !ports.readSignatures)
    throw new Error("'verify-signatures' is set, and the signature reader was not given")
  const checked = await logger.group('Image check', () => checkAll(images, inputs, ports))
  reporter.setOutput('digests', JSON.stringify(digestsOf(checked, ports.redact)))
  judge(checked, strictness(inputs), logger, inputs)
  const pins = new Map(
    checked.flatMap(({ reference, pin }) => (pin && 'digest' in pin ? [[reference, pin]] : [])),
  )
  const beside = new Map(
    checked.map((image) => {
      const sent = pins.get(image.reference)?.reference ?? image.reference
      return [sent, shownBeside(sent, image)]
    }),
  )
  return { beside, pins, ...(asked ? { frontendLabels: frontendLabels(checked) } : {}) }
}

/**
 * The mode the verdicts are judged in, and what the failure message says of it: an image that
 * cannot be checked has no signature to trust and no digest to pin, so both make `auto` act as
 * `true`.
 */
function strictness(inputs: VerifyInputs): { mode: VerifyMode; advice: string } {
  if (inputs.signatures && inputs.provenance)
    return {
      mode: 'true',
      advice:
        " ('verify-signatures' and 'require-provenance' require every image to be checked, signed and attested)",
    }
  if (inputs.signatures)
    return {
      mode: 'true',
      advice: " ('verify-signatures' requires every image to be checked and signed)",
    }
  if (inputs.pinning === 'every')
    return {
      mode: 'true',
      advice: ` (${inputs.pinReason ?? "'pin-digests'"} requires every image to be checked, to send it by the digest read)`,
    }
  if (inputs.verifyImages === 'true')
    return {
      mode: 'true',
      advice:
        " ('verify-images: true' requires every image to be checked; 'auto' deploys those that cannot be checked with a warning)",
    }
  return { mode: inputs.verifyImages, advice: '' }
}

function frontendLabels(checked: Checked[]): ImageConfigRead {
  const frontend = checked.find((image) => image.role === 'frontend')
  if (!frontend) return { problem: 'the payload has no frontend image' }
  const { verdict } = frontend
  if (verdict.kind !== 'found')
    return { problem: 'detail' in verdict ? verdict.detail : 'the image check did not find it' }
  return verdict.config ?? { problem: 'its labels were not read' }
}

/** The references are the inputs'; the digests are the registries' word, redacted as logs are. */
function digestsOf(checked: Checked[], redact: (text: string) => string): Record<string, string> {
  return Object.fromEntries(
    checked.flatMap(({ reference, verdict }) =>
      verdict.kind === 'found' && verdict.digest ? [[reference, redact(verdict.digest)]] : [],
    ),
  )
}

/** Warns about what `auto` lets through, and throws one error listing every failure. */
function judge(
  checked: Checked[],
  { mode, advice }: { mode: VerifyMode; advice: string },
  logger: Logger,
  { signatures, provenance }: Pick<VerifyInputs, 'signatures' | 'provenance'>,
): void {
  const failures: string[] = []
  for (const image of checked) {
    const cannotAsk = image.verdict.kind === 'unreachable' || image.verdict.kind === 'unauthorised'
    if (cannotAsk && mode === 'auto') {
      logger.warning(
        `${problemOf(image)}. It is deployed unchecked ('verify-images: auto'); set 'verify-images: true' to require the check.`,
        { title: 'Image not checked' },
      )
    } else if (image.verdict.kind !== 'found') failures.push(problemOf(image))
    else if (signatures && image.signature?.kind !== 'signed')
      failures.push(signatureProblem(image, signatures))
    else if (signatures && provenance && image.provenance?.kind !== 'proven')
      failures.push(provenanceFailure(image, signatures, provenance))
    else if (image.pin && isProblem(image.pin))
      failures.push(
        `The ${image.role} image '${image.reference}' cannot be sent pinned: ${image.pin.problem}`,
      )
  }
  if (failures.length === 0) return
  throw new ActionError(
    `The image check failed for ${failures.length} of ${checked.length} image(s), so the deployment was not requested${advice}:\n${failures.map((line) => `- ${line}`).join('\n')}`,
  )
}

/** The payload's images in its order, each reference once. */
function deployedImages(payload: Payload): PayloadImage[] {
  const seen = new Set<string>()
  return payloadImages(payload).filter(
    ({ reference }) => !seen.has(reference) && seen.add(reference),
  )
}

async function checkAll(
  images: PayloadImage[],
  inputs: VerifyInputs,
  ports: VerifyPorts,
): Promise<Checked[]> {
  const pinning = inputs.pinning ?? 'none'
  const mirrors = pinning === 'none' ? [] : (inputs.registryMirrors ?? [])
  if (pinning === 'none') sayMirrorsUnused(images, inputs.registryMirrors ?? [], ports.logger)
  const located = images.map((image) => {
    const target = resolvedImage(image.reference, mirrors)
    const byDigest = !isProblem(target) && target.pinned && inputs.byDigest?.has(image.reference)
    return { ...image, target: byDigest ? { ...target, lookup: target.pinned ?? '' } : target }
  })
  const targets = located.flatMap(({ target }) => (isProblem(target) ? [] : [target]))
  const credentialsFor = await credentialSource(targets, inputs.login, ports)
  const deadline = checkDeadline(inputs.deadline)
  const checked = await mapLimit(located, CONCURRENT_CHECKS, async (image): Promise<Checked> => {
    const { role, reference, target } = image
    if (isProblem(target))
      return { role, reference, verdict: { kind: 'invalid', detail: target.problem } }
    const readConfig = role === 'frontend' && inputs.readFrontendLabels === true
    const credentials = credentialsFor(target)
    const verdict = await checkImage(target, credentials, deadline, ports, { readConfig })
    const mirrorOf = target.mirrorOf ? { mirrorOf: target.mirrorOf } : {}
    const checked: Checked = { role, reference, registry: target.registry, ...mirrorOf, verdict }
    if (verdict.kind !== 'found') return checked
    // The digest read is the one pinned, and the one whose signatures are read: a tag moved
    // after this GET changes neither.
    const pins = pinning === 'every' || (pinning === 'mirrored' && target.mirrorOf !== undefined)
    const pin = pins ? { pin: pinReference(reference, verdict.digest) } : {}
    if (!inputs.signatures || !ports.readSignatures) return { ...checked, ...pin }
    // A mirror is asked for the signatures too, as for the image.
    const session = new RegistrySession(target, credentials, 'pull', deadline, ports)
    const read = await ports.readSignatures(session, verdict.digest, inputs.signatures)
    const signed = { ...checked, ...pin, signature: read.verdict }
    if (!inputs.provenance || read.verdict.kind !== 'signed') return signed
    const { repositories } = inputs.provenance
    const provenance = await inputs.provenance.read(
      session,
      verdict.digest,
      inputs.signatures,
      repositories,
    )
    return { ...signed, provenance }
  })
  for (const image of checked) ports.logger.info(logLine(image))
  return checked
}

/**
 * With nothing to pin, a mirror may not answer for an image (the platform pulls from the
 * registry its reference names, which may hold another image under that tag): each registry a
 * mirror serves is asked itself, and the log says so.
 */
function sayMirrorsUnused(images: PayloadImage[], mirrors: RegistryMirrors, logger: Logger): void {
  const served = unique(
    images.flatMap(({ reference }) => {
      const target = resolvedImage(reference, mirrors)
      return 'mirrorOf' in target && target.mirrorOf ? [target.mirrorOf] : []
    }),
  )
  for (const registry of served)
    logger.info(
      `The images of '${registry}' are asked at '${registry}' itself, not at its mirror in 'registry-mirrors': nothing is sent pinned by digest ('pin-digests'), and a mirror may answer only for an image sent by the digest it gave, since the platform pulls from '${registry}'.`,
    )
}

/**
 * The registry the inputs' login is for, decided in the check phase before anything is read or
 * sent (see loginForImages). It is never taken from 'payload-file', a repository file that anyone
 * who may push can point at a registry of their own: only the image inputs may name it. Nothing
 * is decided when the images are not checked.
 */
export function checkLogin(
  payload: Payload,
  inputs: Pick<
    PayloadInputs,
    'frontendImage' | 'backendImages' | 'codeasdataImage' | 'builtImages'
  > & {
    verifyImages: VerifyMode
    registryLogin?: RegistryLogin
  },
): { login?: InputsLogin; warning?: string } {
  if (inputs.verifyImages === 'false') return {}
  const { frontendImage, backendImages, codeasdataImage, builtImages: built } = inputs
  const given = new Set([
    frontendImage,
    ...backendImages,
    codeasdataImage,
    ...builtReferences(built),
  ])
  const targets = deployedImages(payload).flatMap(({ reference }) => {
    const target = registryImage(reference)
    return isProblem(target) ? [] : [target]
  })
  const registries = (list: typeof targets): string[] =>
    unique(list.map((target) => target.registry))
  const named = targets.filter((target) => given.has(target.reference))
  return loginForImages(inputs.registryLogin, registries(targets), registries(named))
}

/** The check's slice of the step's time, worded so that a registry's silence names its cause. */
function checkDeadline(step: Deadline): Deadline {
  return step.slice(
    CHECK_SHARE,
    (allowedMs) =>
      `the ${(allowedMs / 1000).toFixed(1)} s the image check had: half of what was left of ${step.limit}; raise it to give registries more time`,
  )
}

function logLine(image: Checked): string {
  const { role, reference, registry, mirrorOf, verdict, signature, provenance } = image
  const what = `${role} ${reference}${mirrorOf ? ` (asked at its mirror '${registry ?? ''}')` : ''}`
  switch (verdict.kind) {
    case 'found':
      return `${what}: found, ${verdict.digest}${signature ? `; ${signatureLogNote(signature)}` : ''}${provenance ? `; ${provenanceLogNote(provenance)}` : ''}`
    case 'missing':
      return `${what}: does not exist (${verdict.detail})`
    case 'mismatch':
      return `${what}: the registry answers ${verdict.digest} for '${verdict.asked}', not the pinned ${verdict.pinned}`
    case 'misnamed':
      return `${what}: the registry named its manifest ${verdict.named}, but sent bytes that hash to ${verdict.hashed}`
    case 'invalid':
      return `${what}: not a valid image reference`
    default:
      return `${what}: not checked (${verdict.detail})`
  }
}

function problemOf({ role, reference, registry, mirrorOf, verdict }: Checked): string {
  const image = `The ${role} image '${reference}'`
  const where = `registry ${registryShown({ registry: registry ?? '', mirrorOf })}`
  switch (verdict.kind) {
    case 'missing':
      return `${image} does not exist in ${where} (${verdict.detail}): check its tag or digest, and that it was pushed`
    case 'mismatch':
      return `${image} pins ${verdict.pinned}, but ${where} answers ${verdict.digest} for '${verdict.asked}': deploy the digest the registry holds, or fix the reference`
    case 'misnamed':
      return `${image}: ${where} named its manifest ${verdict.named} (Docker-Content-Digest), but the manifest it sent hashes to ${verdict.hashed}; a registry whose digest is not that of what it sends cannot say what the platform would pull: check the registry, and any proxy or cache in front of it`
    case 'invalid':
      return `${image} cannot be checked: ${verdict.detail}`
    case 'found':
      return `${image} was found`
    default:
      return `${image} could not be checked in ${where}: ${verdict.detail}`
  }
}

function signatureLogNote(signature: SignatureVerdict): string {
  switch (signature.kind) {
    case 'signed':
      return 'signed'
    case 'unsigned':
      return `no signature (${signature.detail})`
    case 'other-key':
      return `${signature.count} signature(s), none under the key`
    case 'other-digest':
      return `signed for another digest (${signature.digests.join(', ')})`
    default:
      return `signatures not read (${signature.detail})`
  }
}

/** What was found instead of a provenance from a repository accepted. */
function provenanceFailure(
  { role, reference, registry, verdict, provenance }: Checked,
  verifier: SignatureVerifier,
  check: ProvenanceCheck,
): string {
  const digest = verdict.kind === 'found' ? verdict.digest : ''
  if (!provenance) return `The ${role} image '${reference}' was not checked for a provenance`
  const image = { role, reference, digest, registry: registry ?? '' }
  return provenanceProblem(image, provenance, verifier, check.repositories)
}

/** What was found instead of a valid signature, for the image the payload would deploy. */
function signatureProblem(
  { role, reference, registry, verdict, signature }: Checked,
  verifier: SignatureVerifier,
): string {
  const digest = verdict.kind === 'found' ? verdict.digest : undefined
  const what = `${role} image '${reference}'${digest ? ` (${digest})` : ''}`
  const image = `The ${what}`
  if (!signature) return `${image} was not checked for signatures`
  switch (signature.kind) {
    case 'unsigned':
      return `${image} has no signature under ${verifier.shown} (${signature.detail}): sign it with the matching private key (build-images' 'signing-key', or \`cosign sign --key\`)`
    case 'other-key':
      return `${image} carries ${signature.count} signature(s), none under ${verifier.shown}: it was signed with another key; check that 'verify-signatures' holds the public key of build-images' 'signing-key'`
    case 'other-digest':
      return `${image} carries a signature under ${verifier.shown} made for another image (${signature.digests.join(', ')}), not for this digest: a signature moved from another image proves nothing about this one`
    case 'signed':
      return `${image} is signed`
    default:
      return `The signatures of the ${what} could not be read in registry '${registry ?? ''}': ${signature.detail}`
  }
}

/** What the summary shows beside the reference sent: its digest, or why it has none. */
function shownBeside(sent: string, { verdict }: Checked): string {
  if (verdict.kind !== 'found') return 'not checked'
  // A reference pinned by digest already shows it.
  return sent.endsWith(`@${verdict.digest}`) ? 'verified' : verdict.digest
}

/** A reference as the summary shows it: with its digest, or why it has none. */
export function besideImage(reference: string, checked: ReadonlyMap<string, string>): string {
  const beside = checked.get(reference)
  return beside ? `${reference} (${beside})` : reference
}
