import type { ProvenanceReader, ProvenanceVerdict } from '../attestations/provenance-check.js'
import { unknownFact } from '../attestations/facts.js'
import { attestationTag } from '../attestations/layout.js'
import { REPOSITORY_EXPECTED, repositoryAddress } from '../attestations/source-repository.js'
import type { CiContext } from '../shared/context.js'
import { parseList } from '../shared/inputs.js'
import type { Problem } from '../shared/problem.js'
import type { SignatureVerifier } from '../signing/signer.js'

/**
 * `require-provenance`: deploy only images that carry a SLSA provenance under the key of
 * `verify-signatures`, made for the digest deployed, that names this repository (or one of a
 * list) as the source built (docs/provenance.md). The provenance is read as
 * `cosign verify-attestation --type slsaprovenance1` reads it.
 */

/** The input's value: not required, this run's repository, or the repositories listed. */
export type ProvenanceRule = { thisRepository: true } | { repositories: string[] } | undefined

export const PROVENANCE_EXPECTED = `expected 'false', 'true' (the provenance must name this repository), or the addresses of the repositories whose provenance is accepted, one per line or comma-separated; each ${REPOSITORY_EXPECTED.replace(/^expected /, '')}`

export function parseProvenanceRule(raw: string): ProvenanceRule | Problem {
  const value = raw.trim()
  if (value === '' || /^false$/i.test(value)) return undefined
  if (/^true$/i.test(value)) return { thisRepository: true }
  const repositories: string[] = []
  for (const item of parseList(value)) {
    const address = repositoryAddress(item)
    if (typeof address !== 'string')
      return { problem: `${address.problem.replace(/; expected .*$/, '')}; ${PROVENANCE_EXPECTED}` }
    repositories.push(address)
  }
  return { repositories }
}

/** The repositories a provenance may name; a problem when the rule needs the CI's and it has none. */
export function acceptedRepositories(
  rule: NonNullable<ProvenanceRule>,
  context: Pick<CiContext, 'platform' | 'repositoryUrl'>,
): string[] | Problem {
  if ('repositories' in rule) return rule.repositories
  if (context.repositoryUrl) return [context.repositoryUrl]
  return {
    problem: `is true, but this run's repository is unknown (${unknownFact(context.platform, 'repository')}); give the addresses of the repositories whose provenance is accepted instead, such as 'https://github.com/acme/shop'`,
  }
}

/** What the image check needs to require a provenance: the repositories, and the reader. */
export interface ProvenanceCheck {
  repositories: readonly string[]
  read: ProvenanceReader
}

/** The log's note on an image's provenance. */
export function provenanceLogNote(verdict: ProvenanceVerdict): string {
  switch (verdict.kind) {
    case 'proven':
      return `provenance from ${verdict.repository}`
    case 'none':
      return `no provenance (${verdict.detail})`
    case 'other-key':
      return `${verdict.count} provenance(s), none under the key`
    case 'other-digest':
      return `a provenance for another digest (${verdict.digests.join(', ')})`
    case 'other-repository':
      return `a provenance that ${namesShown(verdict.repositories)}`
    default:
      return `provenance not read (${verdict.detail})`
  }
}

/** Why an image is refused for its provenance, naming the image, its digest and what was found. */
export function provenanceProblem(
  image: { role: string; reference: string; digest: string; registry: string },
  verdict: ProvenanceVerdict,
  verifier: SignatureVerifier,
  accepted: readonly string[],
): string {
  const what = `The ${image.role} image '${image.reference}' (${image.digest})`
  const wanted = accepted.map((each) => `'${each}'`).join(', ')
  switch (verdict.kind) {
    case 'none':
      return `${what} has no provenance (${verdict.detail}): 'require-provenance' asks for a SLSA provenance under ${verifier.shown}, which build-images attaches to each image it builds with 'signing-key' (see its 'attestations' input); an image built without one gets it when build-images builds it again, or from \`cosign attest --key cosign.key --type slsaprovenance1\` (see the provenance guide)`
    case 'other-key':
      return `${what} carries ${verdict.count} provenance(s), none under ${verifier.shown}: it was attested with another key`
    case 'other-digest':
      return `${what} carries a provenance under ${verifier.shown} made for another image (${verdict.digests.join(', ')}), not for this digest: a provenance moved from another image proves nothing about this one`
    case 'other-repository':
      return `${what} carries a provenance under ${verifier.shown} that ${namesShown(verdict.repositories)}, and 'require-provenance' accepts ${accepted.length > 1 ? `one of ${wanted}` : `only ${wanted}`}`
    case 'proven':
      return `${what} has a provenance from ${verdict.repository}`
    default:
      return `The provenance of the ${image.role} image '${image.reference}' (${image.digest}) could not be read in registry '${image.registry}' ('${attestationTag(image.digest)}'): ${verdict.detail}`
  }
}

/** What the provenances found name: `names the repository 'https://…'`. */
function namesShown(repositories: ReadonlyArray<string | undefined>): string {
  const named = repositories.filter((each) => each !== undefined).map((each) => `'${each}'`)
  if (named.length === 0)
    return 'names no source repository (buildDefinition.externalParameters.repository)'
  return named.length > 1
    ? `names the repositories ${named.join(', ')}`
    : `names the repository ${named.join('')}`
}
