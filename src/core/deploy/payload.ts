import { unique } from '../shared/collections.js'
import { InputError } from '../shared/errors.js'
import {
  FORCE_SYNC,
  type BasePayload,
  type DeployRule,
  type Mode,
  type Payload,
} from './payload-schema.js'

export interface PayloadInputs {
  frontendImage?: string
  backendImages: readonly string[]
  codeasdataImage?: string
  deployRules?: readonly DeployRule[]
  codeasdataUpdateMode?: Mode
  promotionMode?: Mode
  skipUpdateVersions: boolean
  forceSync: boolean
}

export interface BuiltPayload {
  payload: Payload
  /** Things that will probably not do what the user meant, but are not errors. */
  warnings: string[]
}

/** Spec 4 rule 4: the catch-all rule of the default payload. */
export const DEFAULT_DEPLOY_RULES: readonly DeployRule[] = [{ source: '.*', target: '.*' }]
const DEFAULT_MODE: Mode = 'manual'

/**
 * Spec 4 rule 3: start from the default (or the user's base) payload, set the frontend image,
 * append backend images, set the code-as-data image only when one was built. A group whose
 * required field would be missing is left out rather than sent half-empty.
 */
export function buildPayload(inputs: PayloadInputs, base: BasePayload = {}): BuiltPayload {
  const frontendImage = inputs.frontendImage ?? base.frontend?.image
  const backendImages = unique([...(base.backends?.images ?? []), ...inputs.backendImages])
  const deployRules = inputs.deployRules ?? base.backends?.deployRules ?? DEFAULT_DEPLOY_RULES
  const codeasdataImage = inputs.codeasdataImage ?? base.codeAsData?.image
  const extraArgs = unique([...(base.extraArgs ?? []), ...(inputs.forceSync ? [FORCE_SYNC] : [])])

  if (!frontendImage && backendImages.length === 0 && !codeasdataImage && extraArgs.length === 0) {
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

  return { payload, warnings: unmatchedBackendWarnings(backendImages, deployRules) }
}

function unmatchedBackendWarnings(
  images: readonly string[],
  rules: readonly DeployRule[],
): string[] {
  const sources = rules.map((rule) => new RegExp(rule.source))
  return images
    .filter((image) => !sources.some((source) => source.test(image)))
    .map(
      (image) =>
        `Backend image '${image}' matches no deploy rule's source (${rules.map((r) => `'${r.source}'`).join(', ')}): the platform will not deploy it to any backend.`,
    )
}
