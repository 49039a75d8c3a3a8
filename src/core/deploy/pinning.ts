import type { PinnedReference } from '../registry/pinned-reference.js'
import type { Deadline } from '../shared/deadline.js'
import { ActionError } from '../shared/errors.js'
import { evaluate } from './patterns.js'
import { tooSlowError, unmatchedWarning, type RulesFrom } from './payload.js'
import type { DeployRule, Payload } from './payload-schema.js'
import type { PinPlan, VerifyMode } from './verify-images.js'

/**
 * `pin-digests`: which images the payload names by the digest the image check read, so that the
 * platform pulls the very manifest that was checked (and whose signature was read), or nothing,
 * even when the tag is moved in between. The spec's references are `<registry>/<image>:<tag>`,
 * and an operator's webhook may refuse a digest: so by default only where the check is the point.
 */
export const PIN_MODES = ['auto', 'true', 'false'] as const
export type PinMode = (typeof PIN_MODES)[number]

export interface PinInputs {
  pinDigests: PinMode
  verifyImages: VerifyMode
  /** `verify-signatures` is set. */
  signatures: boolean
  /** `registry-mirrors` names at least one registry. */
  mirrors: boolean
}

export function pinPlan(inputs: PinInputs): PinPlan {
  if (inputs.verifyImages === 'false' || inputs.pinDigests === 'false') return 'none'
  if (inputs.pinDigests === 'true' || inputs.signatures) return 'every'
  return inputs.mirrors ? 'mirrored' : 'none'
}

/** Why the run pins, as messages say it. */
export function pinReason(inputs: Pick<PinInputs, 'pinDigests' | 'signatures'>): string {
  if (inputs.pinDigests === 'true') return "'pin-digests: true'"
  return inputs.signatures
    ? "'pin-digests: auto', as 'verify-signatures' is set"
    : "'pin-digests: auto', as a mirror in 'registry-mirrors' answered for it"
}

/** The payload with each image that has a pinned reference named by it; the rest as given. */
export function pinnedPayload(
  payload: Payload,
  pins: ReadonlyMap<string, PinnedReference>,
): Payload {
  if (pins.size === 0) return payload
  const sent = (reference: string): string => pins.get(reference)?.reference ?? reference
  const pinned: Payload = { ...payload }
  if (payload.frontend) pinned.frontend = { image: sent(payload.frontend.image) }
  if (payload.backends)
    pinned.backends = { ...payload.backends, images: payload.backends.images.map(sent) }
  if (payload.codeAsData?.image)
    pinned.codeAsData = { ...payload.codeAsData, image: sent(payload.codeAsData.image) }
  return pinned
}

/** The deploy rules the payload's backend images were checked against, and where they came from. */
export interface RulesGiven {
  payload: Payload
  rulesFrom: RulesFrom
  payloadFile?: string
}

/**
 * The deploy rules evaluated on the backend images as they are sent: a warning for each image
 * that no rule's source matches (as the check phase gives it when nothing can be pinned), and,
 * for an image sent pinned, a failure for each rule that matches it as given and no longer
 * matches it pinned (a source anchored on the tag with `$`): the platform would deploy it
 * elsewhere, or nowhere. Bounded as every evaluation of a source is (patterns.ts).
 */
export function rulesAsSent(
  given: RulesGiven,
  pins: ReadonlyMap<string, PinnedReference>,
  reason: string,
  deadline: Deadline,
): string[] {
  const backends = given.payload.backends
  if (!backends) return []
  const rules = backends.deployRules
  const remainingMs = (): number => deadline.remainingMs()
  const matches = (rule: number, subject: string): boolean => {
    const result = evaluate(rules[rule]?.source ?? '', subject, remainingMs)
    if (typeof result === 'boolean') return result
    throw tooSlowError({ rule, ...result }, given.rulesFrom, given.payloadFile, deadline)
  }
  const warnings: string[] = []
  const lost: string[] = []
  for (const image of backends.images) {
    const sent = pins.get(image)?.reference ?? image
    const matched = rules.map((_rule, index) => matches(index, sent))
    if (!matched.includes(true)) warnings.push(unmatchedWarning(sent, rules))
    if (sent === image) continue
    for (const [index, rule] of rules.entries())
      if (!matched[index] && matches(index, image))
        lost.push(lostLine(image, sent, rule, index, given))
  }
  if (lost.length > 0) throw new ActionError(lostMessage(lost, reason))
  return warnings
}

function lostLine(
  image: string,
  sent: string,
  rule: DeployRule,
  index: number,
  given: RulesGiven,
): string {
  return `'${image}' is sent as '${sent}', which the source '${rule.source}' of ${ruleName(index, given)} does not match: the platform would not deploy it to that rule's backends ('${rule.target}')`
}

function ruleName(index: number, given: RulesGiven): string {
  switch (given.rulesFrom) {
    case 'deploy-rules':
      return `deploy rule [${index}] of 'deploy-rules'`
    case 'payload-file':
      return `the rule backends.deployRules[${index}] of 'payload-file'${given.payloadFile ? ` ('${given.payloadFile}')` : ''}`
    case 'built-images':
      return `the deploy rule [${index}] made for the named backends of 'built-images'`
    case 'default':
      return 'the default deploy rule'
  }
}

function lostMessage(lines: string[], reason: string): string {
  return [
    `The images are sent pinned by digest (${reason}), and a deploy rule that matches a backend image as given does not match it pinned, so the deployment was not requested:`,
    ...lines.map((line) => `- ${line}`),
    "Make each such source match the pinned reference too: a '$' right after the tag leaves out the '@sha256:…' that follows it (end the source with '(@sha256:[0-9a-f]{64})?$' instead); or set 'pin-digests: false' to send the references as given (refused with 'verify-signatures').",
  ].join('\n')
}

/** The images sent pinned, one line each, for the log. */
export function pinnedLines(pins: ReadonlyMap<string, PinnedReference>, reason: string): string[] {
  const changed = [...pins.values()].filter((pin) => pin.reference !== pin.given)
  if (changed.length === 0) return []
  return [
    `Sent by the digest checked (${reason}):`,
    ...changed.map((pin) => `- ${pin.given} as ${pin.reference}`),
  ]
}

/**
 * What a webhook's refusal of pinned references may mean: the spec names images by tag, and an
 * operator's platform may not take a digest.
 */
export function pinnedRefusalHint(reason: string): string {
  return `The payload named its images by digest ('<name>:<tag>@sha256:…', ${reason}): if the platform refuses references with a digest, ask the platform operator whether it takes them, or set 'pin-digests: false' to send the references as given (refused with 'verify-signatures', whose check only a digest carries through to the platform).`
}
