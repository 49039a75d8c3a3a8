import * as v from 'valibot'
import { quote } from '../shared/errors.js'
import { IMAGE_REFERENCE_EXPECTED, parseImageReference } from '../shared/image-ref.js'
import { shortReceived, type IssueWording } from '../shared/issues.js'
import { patternSyntaxProblem } from './patterns.js'

/** The payload as Olympe documents it, whole: unknown keys are refused at every level. */
export const MODES = ['auto', 'manual'] as const
export type Mode = (typeof MODES)[number]
export const FORCE_SYNC = '--force-sync'

/** A type mismatch, worded for a person, the value shown short (it may be long, or a secret). */
const got =
  (expected: string) =>
  (issue: v.BaseIssue<unknown>): string =>
    `expected ${expected}, got ${shortReceived(issue.received)}`

const nonEmpty = v.pipe(v.string(got('a string')), v.nonEmpty('must not be empty'))

/** A non-empty string that passes `problemOf`, the one check of both the inputs and the file. */
const checkedString = (
  problemOf: (value: string) => string | undefined,
): v.GenericSchema<string, string> =>
  v.pipe(
    nonEmpty,
    v.rawCheck(({ dataset, addIssue }) => {
      const problem = dataset.typed ? problemOf(dataset.value) : undefined
      if (problem) addIssue({ message: problem })
    }),
  )

/** Every source and target must compile, with the platform's (JavaScript) syntax. */
const pattern = checkedString(patternSyntaxProblem)

/** The grammar of the image inputs, for the images a payload file names. */
const imageReference = checkedString((value) => {
  const problem = parseImageReference(value)
  return typeof problem === 'string'
    ? `${quote(value, 100)} ${problem}; ${IMAGE_REFERENCE_EXPECTED}`
    : undefined
})

export const DeployRuleSchema = v.strictObject({ source: pattern, target: pattern })

const list = <T extends v.GenericSchema>(
  item: T,
): v.ArraySchema<T, (issue: v.ArrayIssue) => string> => v.array(item, got('a list ([…])'))
const mode = v.picklist(MODES, "expected 'auto' or 'manual'")
const extraArgs = list(v.literal(FORCE_SYNC, `the only accepted value is '${FORCE_SYNC}'`))
const boolean = v.boolean(got('true or false (a JSON boolean, without quotes)'))

/** What is sent: every group complete (a group's keys are required when the group is present). */
export const PayloadSchema = v.strictObject({
  backends: v.optional(
    v.strictObject({
      images: v.pipe(list(imageReference), v.minLength(1, 'must list at least one image')),
      deployRules: list(DeployRuleSchema),
    }),
  ),
  codeAsData: v.optional(
    v.strictObject({ image: v.optional(imageReference), updateMode: v.optional(mode) }),
  ),
  frontend: v.optional(v.strictObject({ image: imageReference })),
  noDowntime: v.optional(v.strictObject({ promotionMode: mode })),
  skipUpdateVersions: v.optional(boolean),
  extraArgs: v.optional(extraArgs),
})

/**
 * A base payload from `payload-file`: the same keys, but groups may still be empty, as in the
 * default payload of Olympe's documentation ("an empty frontend object … that is filled in later"). Its values are
 * checked exactly as the inputs are: image grammar, rules that compile, the enums.
 */
export const BasePayloadSchema = v.strictObject({
  backends: v.optional(
    v.strictObject({
      images: v.optional(list(imageReference)),
      deployRules: v.optional(list(DeployRuleSchema)),
    }),
  ),
  codeAsData: v.optional(
    v.strictObject({ image: v.optional(imageReference), updateMode: v.optional(mode) }),
  ),
  frontend: v.optional(v.strictObject({ image: v.optional(imageReference) })),
  noDowntime: v.optional(v.strictObject({ promotionMode: v.optional(mode) })),
  skipUpdateVersions: v.optional(boolean),
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

/** The payload's keys, for the message about an unknown one. */
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
