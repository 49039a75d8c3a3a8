import * as v from 'valibot'

/** Spec 2.1 is the whole schema: unknown keys are refused at every level. */
export const MODES = ['auto', 'manual'] as const
export type Mode = (typeof MODES)[number]
export const FORCE_SYNC = '--force-sync'

const nonEmpty = v.pipe(v.string(), v.nonEmpty('must not be empty'))

export const DeployRuleSchema = v.strictObject({ source: nonEmpty, target: nonEmpty })

export const PayloadSchema = v.strictObject({
  backends: v.optional(
    v.strictObject({
      images: v.array(nonEmpty),
      deployRules: v.optional(v.array(DeployRuleSchema)),
    }),
  ),
  codeAsData: v.optional(
    v.strictObject({
      image: v.optional(nonEmpty),
      updateMode: v.optional(v.picklist(MODES, "expected 'auto' or 'manual'")),
    }),
  ),
  frontend: v.optional(v.strictObject({ image: nonEmpty })),
  noDowntime: v.optional(
    v.strictObject({ promotionMode: v.picklist(MODES, "expected 'auto' or 'manual'") }),
  ),
  skipUpdateVersions: v.optional(v.boolean()),
  extraArgs: v.optional(
    v.array(v.literal(FORCE_SYNC, `the only accepted value is '${FORCE_SYNC}'`)),
  ),
})

export type DeployRule = v.InferOutput<typeof DeployRuleSchema>
export type Payload = v.InferOutput<typeof PayloadSchema>
