import { ATTESTATION_KINDS, type AttestationKind } from '../../attestations/kinds.js'
import { unique } from '../../shared/collections.js'
import { parseList, refine } from '../../shared/inputs.js'

/** The `attestations` input: what each image built carries, signed with `signing-key`. */

export const ATTESTATIONS_EXPECTED = `${ATTESTATION_KINDS.map((kind) => `'${kind}'`).join(' and/or ')} (one per line or comma-separated), or 'none'`

const isKind = (name: string): name is AttestationKind =>
  (ATTESTATION_KINDS as readonly string[]).includes(name)

/**
 * The attestations asked for, in ATTESTATION_KINDS order; `[]` for `none`; undefined when empty,
 * where the default depends on `signing-key` (attestationsAsked).
 */
export const attestations = refine<AttestationKind[] | undefined>((raw) => {
  const names = parseList(raw).map((name) => name.toLowerCase())
  if (names.length === 0) return undefined
  if (names.includes('none'))
    return names.every((name) => name === 'none')
      ? []
      : { problem: `names 'none' with other attestations; expected ${ATTESTATIONS_EXPECTED}` }
  const unknown = unique(names.filter((name) => !isKind(name)))
  if (unknown.length > 0)
    return {
      problem: `names ${unknown.length === 1 ? 'an unknown attestation' : 'unknown attestations'} ${unknown.map((name) => `'${name}'`).join(', ')}; expected ${ATTESTATIONS_EXPECTED}`,
    }
  return ATTESTATION_KINDS.filter((kind) => names.includes(kind))
})

/** The default: both with `signing-key`, which signs them; none without. */
const DEFAULT_WITH_KEY: readonly AttestationKind[] = ATTESTATION_KINDS

/**
 * What a run attests, or the problem of `attestations`: asked for without `signing-key`, they
 * cannot be signed.
 */
export function attestationsAsked(
  given: readonly AttestationKind[] | undefined,
  keyGiven: boolean,
): { kinds: AttestationKind[] } | { problem: string } {
  if (given === undefined) return { kinds: keyGiven ? [...DEFAULT_WITH_KEY] : [] }
  if (given.length > 0 && !keyGiven)
    return {
      problem:
        "asks for attestations, but 'signing-key' is empty: each attestation is signed with that key, as `cosign attest --key` signs one; set 'signing-key', or set 'attestations' to 'none' (its default without a key)",
    }
  return { kinds: [...given] }
}
