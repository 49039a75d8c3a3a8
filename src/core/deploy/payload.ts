import { unique } from '../shared/collections.js'
import { InputError } from '../shared/errors.js'
import type { Deadline } from '../shared/deadline.js'
import { payloadFileError } from './payload-file.js'
import {
  FORCE_SYNC,
  type BasePayload,
  type DeployRule,
  type Mode,
  type Payload,
} from './payload-schema.js'
import { tooSlowProblem, unmatchedImages, type TooSlow } from './patterns.js'
import { namedBackendRules, namedBackends, type BuiltImages } from './built-images.js'

export interface PayloadInputs {
  frontendImage?: string
  backendImages: readonly string[]
  codeasdataImage?: string
  /** `built-images`: build-images' images, each bound to its digest. */
  builtImages?: BuiltImages
  deployRules?: readonly DeployRule[]
  codeasdataUpdateMode?: Mode
  promotionMode?: Mode
  skipUpdateVersions: boolean
  forceSync: boolean
}

/** Where the deploy rules sent came from, for messages about one of them. */
export type RulesFrom = 'deploy-rules' | 'payload-file' | 'built-images' | 'default'

export interface BuiltPayload {
  payload: Payload
  rulesFrom: RulesFrom
}

/** The catch-all rule of the default payload Olympe's documentation gives. */
export const DEFAULT_DEPLOY_RULES: readonly DeployRule[] = [{ source: '.*', target: '.*' }]
const DEFAULT_MODE: Mode = 'manual'

/**
 * As Olympe's documentation builds it in CI: start from the default (or the user's base) payload, set the frontend image,
 * append backend images, set the code-as-data image only when one was built. A group whose
 * required field would be missing is left out rather than sent half-empty. `imagesLater`: the
 * images come from a later job (a pipeline's first check), so none is no problem yet.
 */
export function buildPayload(
  inputs: PayloadInputs,
  base: BasePayload = {},
  options: { imagesLater?: boolean } = {},
): BuiltPayload {
  const built = inputs.builtImages
  const frontendImage = inputs.frontendImage ?? built?.frontend ?? base.frontend?.image
  const backendImages = unique([
    ...(base.backends?.images ?? []),
    ...(built?.backends ?? []).map((backend) => backend.reference),
    ...inputs.backendImages,
  ])
  const named = namedBackends(built)
  // Named backends each get their own rule, unless 'deploy-rules' says otherwise (a payload
  // file with images or rules is refused beside 'built-images': see refusedBesideBuiltImages).
  const namedRules = named.length > 0 ? namedBackendRules(named) : undefined
  const rulesFrom: RulesFrom = inputs.deployRules
    ? 'deploy-rules'
    : namedRules
      ? 'built-images'
      : base.backends?.deployRules
        ? 'payload-file'
        : 'default'
  const deployRules =
    inputs.deployRules ?? namedRules ?? base.backends?.deployRules ?? DEFAULT_DEPLOY_RULES
  const codeasdataImage = inputs.codeasdataImage ?? built?.codeasdata ?? base.codeAsData?.image
  const extraArgs = unique([...(base.extraArgs ?? []), ...(inputs.forceSync ? [FORCE_SYNC] : [])])

  const payload: Payload = {}
  if (frontendImage) payload.frontend = { image: frontendImage }
  if (backendImages.length > 0)
    payload.backends = { images: backendImages, deployRules: [...deployRules] }
  payload.codeAsData = {
    ...(codeasdataImage ? { image: codeasdataImage } : {}),
    updateMode: inputs.codeasdataUpdateMode ?? base.codeAsData?.updateMode ?? DEFAULT_MODE,
  }
  payload.noDowntime = {
    promotionMode: inputs.promotionMode ?? base.noDowntime?.promotionMode ?? DEFAULT_MODE,
  }
  const skipUpdateVersions = inputs.skipUpdateVersions || base.skipUpdateVersions
  if (skipUpdateVersions !== undefined) payload.skipUpdateVersions = skipUpdateVersions
  if (extraArgs.length > 0) payload.extraArgs = extraArgs as Payload['extraArgs']

  if (!deploysSomething(payload) && !options.imagesLater) {
    if (built)
      throw new InputError(
        'built-images',
        "Nothing to deploy: 'built-images' lists no image (build-images skipped its run, or a leg built nothing), and no other image input is set.",
      )
    throw new InputError(
      'frontend-image',
      "Nothing to deploy: set at least one of 'frontend-image', 'backend-images' or 'codeasdata-image' (or 'force-sync: true' to resync code as data only).",
    )
  }
  if (backendImages.length > 0 && deployRules.length === 0) {
    throw new InputError(
      'deploy-rules',
      "Invalid input 'deploy-rules': the list is empty but backend images are given; give at least one {source, target} rule, or leave it empty for the default '.*' to '.*'.",
    )
  }
  return { payload, rulesFrom }
}

/** One image the payload deploys, and the part of the app it is. */
export interface PayloadImage {
  role: 'frontend' | 'backend' | 'code-as-data'
  reference: string
}

/**
 * The payload's images in its order: the frontend, each backend, code as data; a reference given
 * for two parts comes twice.
 */
export function payloadImages(payload: Payload): PayloadImage[] {
  const images: PayloadImage[] = []
  if (payload.frontend) images.push({ role: 'frontend', reference: payload.frontend.image })
  for (const reference of payload.backends?.images ?? [])
    images.push({ role: 'backend', reference })
  if (payload.codeAsData?.image)
    images.push({ role: 'code-as-data', reference: payload.codeAsData.image })
  return images
}

/** Whether the payload deploys anything: an image, or an extra argument such as a resync. */
export function deploysSomething(payload: Payload): boolean {
  return Boolean(
    payload.frontend || payload.backends || payload.codeAsData?.image || payload.extraArgs,
  )
}

/**
 * A warning for each backend image that no rule's source matches, which the platform would
 * deploy nowhere. Evaluating the user's sources is bounded (see patterns.ts): a source that
 * runs too long is refused, naming the rule and where it came from.
 */
export function deployRuleWarnings(
  built: BuiltPayload,
  payloadFile: string | undefined,
  deadline: Deadline,
): string[] {
  const backends = built.payload.backends
  if (!backends) return []
  const rules = backends.deployRules
  const sources = rules.map((rule) => rule.source)
  const checked = unmatchedImages(backends.images, sources, () => deadline.remainingMs())
  if ('tooSlow' in checked)
    throw tooSlowError(checked.tooSlow, built.rulesFrom, payloadFile, deadline)
  return checked.unmatched.map((image) => unmatchedWarning(image, rules))
}

/** The warning for a backend image that no rule's source matches. */
export function unmatchedWarning(image: string, rules: readonly DeployRule[]): string {
  const listed = rules.map((r) => `'${r.source}'`).join(', ')
  return `Backend image '${image}' matches no deploy rule's source (${listed}): the platform will not deploy it to any backend.`
}

/** A source that was stopped, refused as an error of the input or the file it came from. */
export function tooSlowError(
  slow: TooSlow,
  rulesFrom: RulesFrom,
  payloadFile: string | undefined,
  deadline: Deadline,
): InputError {
  const problem = tooSlowProblem(slow, deadline.limit)
  if (rulesFrom === 'payload-file' && payloadFile)
    return payloadFileError(
      payloadFile,
      `at backends.deployRules[${slow.rule}].${slow.field ?? 'source'}: ${problem}`,
    )
  return new InputError(
    'deploy-rules',
    `Invalid input 'deploy-rules': at [${slow.rule}].${slow.field ?? 'source'}: ${problem}.`,
  )
}
