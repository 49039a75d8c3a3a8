import { errorMessage } from '../../shared/errors.js'
import type { Logger } from '../../shared/ports.js'
import type { BuiltImage } from '../build.js'
import type { ProofVerdict, ReuseCandidate, ReuseProof } from './proof.js'

/**
 * Proof (b), with nothing configured: a record that only the default branch can write, kept by
 * the CI itself, that it built the image of this digest from inputs of this fingerprint. On
 * GitHub it is an entry of the Actions cache (a branch's caches are written only by workflows
 * that run on that branch's ref; every branch reads the default branch's); on GitLab a file in
 * the folder the build-images template keeps with `cache:`, read and written on protected refs
 * only (GitLab keeps their caches apart from the others', which any branch's pipeline can
 * write), and never when it came with the checkout. src/platform picks the store, and says
 * where it cannot be trusted.
 */

/** One image the default branch built (or gave this run's tags). */
export interface ReuseRecord {
  fingerprint: string
  /** The manifest digest its tags name. */
  digest: string
  /** `<registry>/<name>:<tag>`, for people reading the record. */
  image: string
}

/** Where the CI keeps the records: a port, so that the core never knows which CI it runs on. */
export interface ReuseRecords {
  /** What it is, for the log: "the GitHub Actions cache". */
  readonly where: string
  /**
   * Why the records cannot be trusted in this run, said after `where` ("is trusted only on
   * protected branches and tags, …"); undefined when they can. Neither read nor written then.
   */
  untrusted(): Promise<string | undefined>
  /** Whether a record of exactly this fingerprint and digest is there. */
  has(record: Pick<ReuseRecord, 'fingerprint' | 'digest'>): Promise<boolean>
  /** Adds records; resolves to what went wrong, if anything (a record not kept only means a build later). */
  add(records: readonly ReuseRecord[]): Promise<string | undefined>
}

/** `records.untrusted()`, where a failure to judge is a reason not to trust them either. */
export async function untrustedRecords(records: ReuseRecords): Promise<string | undefined> {
  try {
    return await records.untrusted()
  } catch (error) {
    return `is not trusted: judging whether it can be failed (${errorMessage(error)})`
  }
}

/** The key a record is filed under: both digests, so that no other image can match it. */
export function recordKey(record: Pick<ReuseRecord, 'fingerprint' | 'digest'>): string {
  const hex = (digest: string): string => digest.replace(/^sha256:/, '')
  return `olympe-reuse-${hex(record.fingerprint)}-${hex(record.digest)}`
}

/** The proofs recordProof made: an image reused on one of them is recorded already. */
const RECORD_PROOFS = new WeakSet<ReuseProof>()

export function isRecordProof(proof: ReuseProof): boolean {
  return RECORD_PROOFS.has(proof)
}

/** Trusts a candidate only when the CI's records say the default branch built that digest. */
export function recordProof(records: ReuseRecords): ReuseProof {
  const proof: ReuseProof = {
    name: `a record in ${records.where} that the default branch built it`,
    async verify(candidate: ReuseCandidate): Promise<ProofVerdict> {
      let found: boolean
      try {
        found = await records.has(candidate)
      } catch (error) {
        return {
          proven: false,
          said: `${records.where} could not be read (${errorMessage(error)})`,
        }
      }
      return found
        ? { proven: true, said: `${records.where} records that the default branch built it` }
        : {
            proven: false,
            said: `no record in ${records.where} that the default branch built ${candidate.digest} (never recorded, or evicted)`,
          }
    },
  }
  RECORD_PROOFS.add(proof)
  return proof
}

/** What the look-up of unchanged images (reuse.ts) found that the records need. */
export interface FoundFingerprints {
  /** Each image's fingerprint, by image id, when known. */
  fingerprints: ReadonlyMap<string, string>
  /** The images (ids) reused on a proof that is the CI's own record: recorded already. */
  recorded: ReadonlySet<string>
  /** Why the CI's records are not trusted in this run, said in the log already. */
  untrusted?: string
}

export interface RecordOptions {
  push: boolean
  branch: string
  defaultBranch: string
}

export interface RecordPorts {
  records?: ReuseRecords
  logger: Logger
  redact: (text: string) => string
}

/**
 * After the push: records each image this run pushed with its fingerprint, so that a later run
 * can reuse it, whether this run looked for unchanged images or not. Only on the default
 * branch: the records are what later runs trust as that branch's.
 */
export async function recordImages(
  images: readonly BuiltImage[],
  outcome: FoundFingerprints,
  options: RecordOptions,
  ports: RecordPorts,
): Promise<void> {
  const { records, logger } = ports
  if (!records || !options.push) return
  const candidates = images.flatMap((image): Array<ReuseRecord & { reused: boolean }> => {
    const fingerprint = outcome.fingerprints.get(image.id)
    if (!fingerprint || !image.digest || outcome.recorded.has(image.id)) return []
    return [{ fingerprint, digest: image.digest, image: image.reference, reused: !!image.reused }]
  })
  if (candidates.length === 0) return
  // Said once: the look-up of unchanged images may have said it already.
  if (outcome.untrusted) return
  const untrusted = await untrustedRecords(records)
  if (untrusted) {
    logger.info(ports.redact(`Not recorded in ${records.where}: it ${untrusted}.`))
    return
  }
  // An image reused on another proof (a signature) may be recorded already: a cache entry is
  // written once, so it is looked up first.
  const known = await Promise.all(
    candidates.map((record) =>
      record.reused ? records.has(record).catch(() => false) : Promise.resolve(false),
    ),
  )
  const due = candidates
    .filter((_, index) => !known[index])
    .map(({ fingerprint, digest, image }): ReuseRecord => ({ fingerprint, digest, image }))
  if (due.length === 0) return
  if (options.branch !== options.defaultBranch) {
    logger.info(
      `Not recorded in ${records.where}: later runs trust only what the default branch '${options.defaultBranch}' built, and this run builds '${options.branch}'.`,
    )
    return
  }
  const problem = await records.add(due).catch((error: unknown) => errorMessage(error))
  if (problem) {
    logger.info(
      ports.redact(
        `Not recorded in ${records.where} (${problem}): the next run builds these images again.`,
      ),
    )
    return
  }
  for (const record of due)
    logger.info(
      `Recorded in ${records.where}: the default branch built ${record.image} as ${record.digest} (fingerprint ${record.fingerprint}).`,
    )
}
