import { join } from 'node:path'
import { attachAttestations, PREDICATE_TYPES } from '../../attestations/attach.js'
import type { AttestationFacts } from '../../attestations/facts.js'
import { ATTESTATION_TITLES, type AttestationKind } from '../../attestations/kinds.js'
import { readAttestations, type AttestationsRead } from '../../attestations/read.js'
import type { CycloneDxWriter } from '../../attestations/sbom.js'
import { credentialSource, type InputsLogin, type LoginPorts } from '../../registry/logins.js'
import { registryImage } from '../../registry/reference.js'
import { RegistrySession, type SessionPorts } from '../../registry/session.js'
import { mapLimit } from '../../shared/concurrency.js'
import { startDeadline } from '../../shared/deadline.js'
import { ActionError } from '../../shared/errors.js'
import type { Files, Logger } from '../../shared/ports.js'
import { isProblem } from '../../shared/problem.js'
import type { SigningKey } from '../../signing/private-key.js'
import { keySigner, keyVerifier } from '../../signing/signer.js'
import type { CarriedDocuments, ReuseRequirement } from '../reuse/proof.js'
import { SBOM_FOLDER, sbomFileName } from './sbom-files.js'

/**
 * build-images' use of the attestations library (src/core/attestations), with 'signing-key' and
 * 'attestations': each image this run built gets its provenance and SBOM, attached as `cosign
 * attest --key` would; a reused image keeps those of the run that built it, and a candidate
 * without them is built again (attestationsCarried). The step loads this module only when it
 * attests: src/actions/build-images.ts gives it as the `attesting` port.
 */
export interface KeyAttesting {
  attestImages: typeof attestImages
  attestationsCarried: typeof attestationsCarried
}

/** The registry requests of the attestations, all images together, must end within this. */
const ATTESTING_SECONDS = 120
/** Images attested at once, as they are signed. */
const CONCURRENT_ATTESTATIONS = 3

/** An image this run built and pushed, with what its attestations say. */
export interface ImageToAttest {
  /** What the log, the errors and the SBOM's file call it: `frontend`. */
  name: string
  reference: string
  /** The manifest digest deploy pins; undefined when the push gave none (the image then fails). */
  digest?: string
  facts: AttestationFacts
}

/** An image reused: the attestations it carries from the run that built it. */
interface ImageAttested {
  name: string
  reference: string
  digest?: string
  documents: CarriedDocuments
}

export interface AttestOptions {
  kinds: readonly AttestationKind[]
  signingKey: SigningKey
  /** The `push` input: only an image in a registry can carry an attestation. */
  push: boolean
  login?: InputsLogin
  /** Where the SBOMs' folder is made (SBOM_FOLDER). */
  workspace: string
}

export interface AttestPorts extends SessionPorts, LoginPorts {
  logger: Logger
  redact: (text: string) => string
  files: LoginPorts['files'] & Pick<Files, 'writeText'>
  /** Loads the CycloneDX writer (sbom.ts): asked for only when an SBOM is to be made. */
  cycloneDx: () => Promise<CycloneDxWriter>
}

/** What the phase did: the summary's words, and the SBOMs' folder when it wrote any. */
export interface Attested {
  said: string
  sbomFolder?: string
}

type Outcome = { said: string; tag: string; sbom?: string } | { failed: string }

/**
 * Attaches the attestations of `options.kinds` to every image of `built`, in one write each (see
 * attachAttestations), and writes each image's SBOM, `reused` ones' included, to SBOM_FOLDER.
 * Fails, naming each image, when any built image is left without them: it is pushed, tagged and
 * signed already, but a deploy that requires provenance would refuse it.
 */
export async function attestImages(
  built: readonly ImageToAttest[],
  reused: readonly ImageAttested[],
  options: AttestOptions,
  ports: AttestPorts,
): Promise<Attested> {
  const { logger } = ports
  const what = options.kinds.map((kind) => ATTESTATION_TITLES[kind]).join(' and ')
  if (!options.push) {
    logger.info(
      `Nothing is attested: 'push' is false, and only an image in a registry can carry an attestation.`,
    )
    return { said: "nothing attested ('push' is false)" }
  }
  const signer = keySigner(
    options.signingKey.privateKey,
    options.signingKey.publicKey,
    'signing-key',
  )
  const cycloneDx =
    options.kinds.includes('sbom') && built.length > 0 ? await ports.cycloneDx() : undefined
  if (built.length > 0) logger.info(`Attesting with ${signer.shown}: ${what} of each image built.`)
  const targets = built.map((image) => registryImage(image.reference))
  const credentialsFor =
    built.length > 0
      ? await credentialSource(
          targets.flatMap((target) => (isProblem(target) ? [] : [target])),
          options.login,
          ports,
        )
      : undefined
  const deadline = startDeadline(
    ports.clock,
    ATTESTING_SECONDS,
    `the ${ATTESTING_SECONDS} s given to attestations`,
  )
  const outcomes = await mapLimit(built, CONCURRENT_ATTESTATIONS, async (image) => {
    const target = registryImage(image.reference)
    if (isProblem(target)) return { failed: target.problem }
    if (!image.digest)
      return { failed: 'the push gave no digest, and only a digest can be attested' }
    const session = new RegistrySession(
      target,
      credentialsFor?.(target),
      'pull,push',
      deadline,
      ports,
    )
    const attached = await attachAttestations(
      { reference: image.reference, digest: image.digest },
      image.facts,
      signer,
      { session, ...(cycloneDx ? { cycloneDx } : {}) },
      options.kinds,
    )
    if (isProblem(attached)) return { failed: attached.problem }
    return {
      tag: attached.tag,
      said: `attested ${image.digest} (${attached.tag}): ${describe(image.facts, options.kinds)}${attached.kept > 0 ? `; ${attached.kept} attestation(s) there before kept` : ''}`,
      ...(attached.documents.sbom ? { sbom: attached.documents.sbom } : {}),
    } satisfies Outcome
  })
  const failures: string[] = []
  const sboms: Array<[string, string]> = []
  const attached: string[] = []
  for (const [index, outcome] of outcomes.entries()) {
    const image = built[index] as ImageToAttest
    if ('said' in outcome) {
      logger.info(ports.redact(`${image.name}: ${outcome.said}.`))
      attached.push(`${image.name} (\`${outcome.tag}\`)`)
      if (outcome.sbom) sboms.push([image.name, outcome.sbom])
    } else failures.push(`${image.name} '${image.reference}': ${outcome.failed}`)
  }
  for (const image of reused) {
    logger.info(
      `${image.name}: unchanged, it keeps the attestations of the run that built it (${Object.keys(image.documents).join(', ')}).`,
    )
    if (image.documents.sbom) sboms.push([image.name, image.documents.sbom])
  }
  const written = await writeSboms(sboms, options.workspace, ports)
  if (failures.length > 0)
    throw new ActionError(
      ports.redact(
        `Attesting failed for ${failures.length} of ${built.length} image(s); they are pushed, tagged and signed, but carry no ${what}: a deploy with 'require-provenance' refuses them, and the next run builds them again. Run the job again once the registry accepts the attestations:\n${failures.map((line) => `- ${line}`).join('\n')}`,
      ),
    )
  return {
    said: summaryOf(what, attached, reused, signer.shown, written),
    ...(written.length > 0 ? { sbomFolder: SBOM_FOLDER } : {}),
  }
}

/** What an image's attestations say, in a few words for the log. */
function describe(facts: AttestationFacts, kinds: readonly AttestationKind[]): string {
  const bases = facts.image.baseImages.length
  const packages = facts.image.lockFile?.packages.length ?? 0
  return kinds
    .map((kind) =>
      kind === 'provenance'
        ? `${ATTESTATION_TITLES.provenance} (commit ${facts.source.commit ?? 'unknown'}, ${bases} base image(s))`
        : `${ATTESTATION_TITLES.sbom} (${bases} base image(s), ${packages} npm package(s))`,
    )
    .join(', ')
}

/** Each SBOM as `<workspace>/olympe-sbom/gl-sbom-<image>.cdx.json`; the paths written, relative. */
async function writeSboms(
  sboms: ReadonlyArray<readonly [string, string]>,
  workspace: string,
  ports: Pick<AttestPorts, 'files' | 'logger'>,
): Promise<string[]> {
  const written: string[] = []
  for (const [name, text] of sboms) {
    const path = join(SBOM_FOLDER, sbomFileName(name))
    await ports.files.writeText(join(workspace, path), `${text}\n`)
    written.push(path)
  }
  if (written.length > 0) ports.logger.info(`SBOMs written: ${written.join(', ')}.`)
  return written
}

/** The summary's words: each image attached (with its `.att` tag), each reused, the SBOMs. */
function summaryOf(
  what: string,
  attached: readonly string[],
  reused: readonly ImageAttested[],
  shown: string,
  written: readonly string[],
): string {
  const parts = [
    ...(attached.length > 0 ? [`${attached.join(', ')}: ${what} attached under ${shown}`] : []),
    ...(reused.length > 0
      ? [
          `${reused.map((image) => image.name).join(', ')}: unchanged, with those of the run that built ${reused.length === 1 ? 'it' : 'them'}`,
        ]
      : []),
    ...(written.length > 0 ? [`SBOMs: ${written.map((path) => `\`${path}\``).join(', ')}`] : []),
  ]
  return parts.length > 0 ? parts.join('; ') : 'nothing to attest'
}

/**
 * The requirement reuse puts on a proven candidate (see ReuseRequirement): an attestation of each
 * kind asked for, under the key of `signing-key`, for its digest, read as `cosign
 * verify-attestation --key` reads it; the newest of each is what it carries.
 */
export function attestationsCarried(
  signingKey: SigningKey,
  kinds: readonly AttestationKind[],
): ReuseRequirement {
  const verifier = keyVerifier(signingKey.publicKey, 'signing-key')
  return {
    async verify(candidate) {
      const documents: CarriedDocuments = {}
      const missing: string[] = []
      for (const kind of kinds) {
        const read = await readAttestations(
          candidate.session,
          candidate.digest,
          PREDICATE_TYPES[kind],
          verifier,
        )
        const statement = read.kind === 'read' ? read.statements.at(-1) : undefined
        if (statement) documents[kind] = JSON.stringify(statement.predicate)
        else missing.push(lacking(kind, read))
      }
      if (missing.length === 0) return { met: true, documents }
      return {
        met: false,
        said: `it lacks the attestations 'attestations' asks for (${missing.join('; ')})`,
      }
    },
  }
}

/** Why a candidate has no attestation of `kind` under the key, in a few words. */
function lacking(kind: AttestationKind, read: AttestationsRead): string {
  const title = ATTESTATION_TITLES[kind]
  switch (read.kind) {
    case 'read':
      return read.otherDigests.length > 0
        ? `its ${title} under the key is for another digest`
        : `no ${title} under the key of 'signing-key'`
    case 'none':
      return `no ${title}: ${read.detail}`
    default:
      return `its ${title} could not be read (${read.detail})`
  }
}
