import * as v from 'valibot'
import type { IssueWording } from '../shared/issues.js'

/** Spec 2.1 is the whole schema: unknown keys are refused at every level. */
export const MODES = ['auto', 'manual'] as const
export type Mode = (typeof MODES)[number]
export const FORCE_SYNC = '--force-sync'

const nonEmpty = v.pipe(v.string(), v.nonEmpty('must not be empty'))

export const DeployRuleSchema = v.strictObject({ source: nonEmpty, target: nonEmpty })

const mode = v.picklist(MODES, "expected 'auto' or 'manual'")
const extraArgs = v.array(v.literal(FORCE_SYNC, `the only accepted value is '${FORCE_SYNC}'`))

/** What is sent: every group complete (spec 2.1 "required if present"). */
export const PayloadSchema = v.strictObject({
  backends: v.optional(
    v.strictObject({
      images: v.pipe(v.array(nonEmpty), v.minLength(1, 'must list at least one image')),
      deployRules: v.array(DeployRuleSchema),
    }),
  ),
  codeAsData: v.optional(
    v.strictObject({ image: v.optional(nonEmpty), updateMode: v.optional(mode) }),
  ),
  frontend: v.optional(v.strictObject({ image: nonEmpty })),
  noDowntime: v.optional(v.strictObject({ promotionMode: mode })),
  skipUpdateVersions: v.optional(v.boolean()),
  extraArgs: v.optional(extraArgs),
})

/**
 * A base payload from `payload-file`: the same keys, but groups may still be empty, as in the
 * spec's default payload ("an empty frontend object … that is filled in later").
 */
export const BasePayloadSchema = v.strictObject({
  backends: v.optional(
    v.strictObject({
      images: v.optional(v.array(nonEmpty)),
      deployRules: v.optional(v.array(DeployRuleSchema)),
    }),
  ),
  codeAsData: v.optional(
    v.strictObject({ image: v.optional(nonEmpty), updateMode: v.optional(mode) }),
  ),
  frontend: v.optional(v.strictObject({ image: v.optional(nonEmpty) })),
  noDowntime: v.optional(v.strictObject({ promotionMode: v.optional(mode) })),
  skipUpdateVersions: v.optional(v.boolean()),
  extraArgs: v.optional(extraArgs),
})

export type DeployRule = v.InferOutput<typeof DeployRuleSchema>
export type Payload = v.InferOutput<typeof PayloadSchema>
export type BasePayload = v.InferOutput<typeof BasePayloadSchema>

const RULE_KEYS = ['source', 'target']
const RULE_MISSING = {
  source: 'give the regular expression that the image references must match',
  target: 'give the regular expression that the backend names must match',
}

/** The payload's keys, for the message about an unknown one (spec 2.1). */
export const PAYLOAD_WORDING: IssueWording = {
  keys: {
    '': ['backends', 'codeAsData', 'frontend', 'noDowntime', 'skipUpdateVersions', 'extraArgs'],
    backends: ['images', 'deployRules'],
    deployRules: RULE_KEYS,
    codeAsData: ['image', 'updateMode'],
    frontend: ['image'],
    noDowntime: ['promotionMode'],
  },
  missing: {
    ...RULE_MISSING,
    images: 'list the backend images to deploy',
    deployRules: 'give at least one {source, target} rule',
    image: 'give the image reference',
    promotionMode: "give 'auto' or 'manual'",
  },
}

/** The `deploy-rules` input: a list of rules at the top. */
export const RULES_WORDING: IssueWording = { keys: { '': RULE_KEYS }, missing: RULE_MISSING }
