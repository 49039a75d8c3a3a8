import { credentialSource, type InputsLogin, type LoginPorts } from '../registry/logins.js'
import { registryImage, type RegistryImage } from '../registry/reference.js'
import { RegistrySession, type SessionPorts } from '../registry/session.js'
import { mapLimit } from '../shared/concurrency.js'
import { startDeadline } from '../shared/deadline.js'
import { ActionError } from '../shared/errors.js'
import { FINGERPRINT_LABEL } from '../shared/image-labels.js'
import type { Logger } from '../shared/ports.js'
import { isProblem, type Problem } from '../shared/problem.js'
import { dockerReference, signatureTag, simpleSigningPayload } from './cosign-layout.js'
import type { SigningKey } from './private-key.js'
import { keySigner, type Signer } from './signer.js'
import { addSignature, readSignatures, type SignatureVerdict } from './signatures.js'

/** The registry requests of the signing, all images together, must end within this. */
export const SIGNING_SECONDS = 60
/** Images signed at once, as the image check asks registries. */
const CONCURRENT_SIGNINGS = 3

export interface SignOptions {
  signingKey: SigningKey
  /** The `push` input: only an image in a registry can carry a signature. */
  push: boolean
  /** The login given as inputs, for the images' registry. */
  login?: InputsLogin
}

export interface SignPorts extends SessionPorts, LoginPorts {
  logger: Logger
  redact: (text: string) => string
}

/** One image to sign, whatever made it: its reference, the digest its tags name, and its fingerprint. */
export interface ImageToSign {
  /** What the log and the errors call it: `frontend`. */
  name: string
  /** `<registry>/<repository>:<tag>`: where its signatures go. */
  reference: string
  /** The manifest digest to sign; undefined when the push gave none (the image then fails). */
  digest?: string
  /** Its fingerprint (FINGERPRINT_LABEL), carried in the payload's optional claims. */
  fingerprint?: string
}

/** An image to sign with where its signatures go, or why its reference names no repository. */
interface ToSign extends ImageToSign {
  target: RegistryImage | Problem
}

type Outcome = { said: string } | { failed: string }

/**
 * Signs each image's digest, as `cosign sign --key` would: the payload names the digest and
 * carries the image's fingerprint in its optional annotations, so that a later run can prove with
 * the signature that this project built the image it reuses. An image that holds a valid
 * signature under the key for that digest and fingerprint already is not signed again. Fails,
 * naming each image, when any image is left unsigned: its tags are already pushed, and a deploy
 * that checks signatures would refuse it.
 */
export async function signImageDigests(
  images: readonly ImageToSign[],
  options: SignOptions,
  ports: SignPorts,
): Promise<string> {
  const { logger } = ports
  const { privateKey, publicKey } = options.signingKey
  const signer = keySigner(privateKey, publicKey, 'signing-key')
  if (!options.push) {
    logger.info(
      "Nothing is signed: 'push' is false, and only an image in a registry can carry a signature.",
    )
    return "nothing signed ('push' is false)"
  }
  const toSign = images.map((image): ToSign => ({
    ...image,
    target: registryImage(image.reference),
  }))
  if (toSign.length === 0) return 'nothing to sign'
  logger.info(`Signing with ${signer.shown}.`)
  const targets = toSign.flatMap(({ target }) => (isProblem(target) ? [] : [target]))
  const credentialsFor = await credentialSource(targets, options.login, ports)
  const deadline = startDeadline(
    ports.clock,
    SIGNING_SECONDS,
    `the ${SIGNING_SECONDS} s given to signing`,
  )
  const outcomes = await mapLimit(toSign, CONCURRENT_SIGNINGS, async (image) => {
    const { target } = image
    if (isProblem(target)) return { failed: target.problem }
    const session = new RegistrySession(
      target,
      credentialsFor(target),
      'pull,push',
      deadline,
      ports,
    )
    return signOne(image, dockerReference(target.registry, target.repository), session, signer)
  })
  const failures: string[] = []
  for (const [index, outcome] of outcomes.entries()) {
    const image = toSign[index] as ToSign
    if ('said' in outcome) logger.info(ports.redact(`${image.name}: ${outcome.said}.`))
    else failures.push(`${image.name} '${image.reference}': ${outcome.failed}`)
  }
  if (failures.length > 0)
    throw new ActionError(
      ports.redact(
        `Signing failed for ${failures.length} of ${toSign.length} image(s); they are pushed and tagged, but a deploy that checks signatures ('verify-signatures') refuses them. Run the job again once the registry accepts the signatures:\n${failures.map((line) => `- ${line}`).join('\n')}`,
      ),
    )
  return `signed with ${signer.shown}`
}

async function signOne(
  image: ToSign,
  repository: string,
  session: RegistrySession,
  signer: Signer,
): Promise<Outcome> {
  const { digest, fingerprint } = image
  if (!digest) return { failed: 'the push gave no digest, and only a digest can be signed' }
  const before = await readSignatures(session, digest, signer.verifier)
  if (carries(before.verdict, fingerprint))
    return { said: `${digest} is signed already under this key (${signatureTag(digest)})` }
  const { kind } = before.verdict
  if (kind === 'unusable' || kind === 'unauthorised' || kind === 'unreachable')
    return { failed: `its signatures could not be read (${before.verdict.detail})` }
  const optional: Record<string, string> = fingerprint ? { [FINGERPRINT_LABEL]: fingerprint } : {}
  const payload = simpleSigningPayload(repository, digest, optional)
  const annotations = await signer.sign(Buffer.from(payload, 'utf8'))
  const problem = await addSignature(session, digest, before.manifest, payload, annotations)
  if (problem) return { failed: problem }
  // What a verifier will find: read back, as `cosign verify` would read it.
  const after = await readSignatures(session, digest, signer.verifier)
  if (!carries(after.verdict, fingerprint))
    return {
      failed: `the signature was written, but reading '${signatureTag(digest)}' back does not find it (${describe(after.verdict)})`,
    }
  const kept = before.verdict.kind === 'other-key' ? before.verdict.count : 0
  return {
    said: `signed ${digest} (${signatureTag(digest)}${fingerprint ? `, fingerprint ${fingerprint}` : ''}${kept > 0 ? `; ${kept} signature(s) under other keys kept` : ''})`,
  }
}

/** A valid signature for the digest whose payload carries the fingerprint (if the image has one). */
function carries(verdict: SignatureVerdict, fingerprint: string | undefined): boolean {
  return (
    verdict.kind === 'signed' &&
    verdict.claims.some((claims) => claims.optional[FINGERPRINT_LABEL] === fingerprint)
  )
}

function describe(verdict: SignatureVerdict): string {
  switch (verdict.kind) {
    case 'signed':
      return 'a signature without the fingerprint'
    case 'other-key':
      return `${verdict.count} signature(s) under other keys`
    case 'other-digest':
      return `signatures for ${verdict.digests.join(', ')}`
    default:
      return verdict.detail
  }
}
