import type { ParseTools, RawInputs } from '../definition.js'
import type { InputsLogin } from '../registry/logins.js'
import type { CiContext } from '../shared/context.js'
import { startDeadline, type Deadline } from '../shared/deadline.js'
import { ActionError } from '../shared/errors.js'
import type { CommonPorts } from '../shared/ports.js'
import { insecureAppWarning } from './app-url.js'
import type { DeployInputName } from './definition.js'
import { parseDeployInputs, type DeployInputs } from './inputs.js'
import { namedBackends, unreachedBackends, unreachedWarning } from './built-images.js'
import {
  buildPayload,
  deployRuleWarnings,
  deploysSomething,
  tooSlowError,
  type RulesFrom,
} from './payload.js'
import { pinPlan, pinReason } from './pinning.js'
import { payloadFileError, readBasePayload } from './payload-file.js'
import type { BasePayload, Payload } from './payload-schema.js'
import { signatureVerifier } from './signature-key.js'
import type { SignatureVerifier } from '../signing/signer.js'
import { checkLogin, type PinPlan } from './verify-images.js'

/** What a step output can hold (GitHub's limit), and so the largest payload we send. */
const MAX_PAYLOAD_BYTES = 1024 * 1024
/** The payload printed in the log is cut there; the `payload` output has all of it. */
const PRINTED_PAYLOAD_CHARS = 64 * 1024

export type DeployCheckPorts = Pick<CommonPorts, 'logger' | 'files' | 'clock'>

/** What the check phase found, and all that the run sends or asks with. */
export interface CheckedDeploy {
  inputs: DeployInputs
  /** `timeout-seconds`, running since the check began: reading `payload-file` counts. */
  deadline: Deadline
  /** The payload to send: the inputs over `payload-file`. */
  payload: Payload
  /** The payload as it is sent and output: compact JSON, the text whose size was checked. */
  body: string
  /** The inputs' registry login and the registry it is for, when the image check uses it. */
  login?: InputsLogin
  /** `verify-signatures`: its public key, its file read when it is one. */
  signatures?: SignatureVerifier
  /** Where the deploy rules sent come from, for messages about one of them. */
  rulesFrom: RulesFrom
  /** Which images the run sends pinned by digest (`pin-digests`), and why. */
  pinning: PinPlan
  pinReason: string
}

/**
 * The deploy action's check phase: the inputs; `payload-file` and the public key of
 * `verify-signatures`, read and validated; the payload they make, its size, and its deploy rules
 * against its backend images (bounded, within `timeout-seconds`, which starts here); and which
 * registry the inputs' login is for. Nothing is sent. With `check-only` and no image input, the
 * images are taken to come from a later job.
 */
export async function checkDeploy(
  raw: RawInputs<DeployInputName>,
  tools: ParseTools,
  context: Pick<CiContext, 'workspace' | 'registryPasswordFrom'> &
    Partial<Pick<CiContext, 'platform' | 'repositoryUrl'>>,
  ports: DeployCheckPorts,
): Promise<CheckedDeploy> {
  const { logger } = ports
  const inputs = parseDeployInputs(raw, tools, context)
  const deadline = startDeadline(ports.clock, inputs.timeoutSeconds)
  if (inputs.appUrl) {
    const insecure = insecureAppWarning(inputs.appUrl)
    if (insecure) logger.warning(insecure, { title: 'App address' })
  }
  if (inputs.previewUrl) {
    const insecure = insecureAppWarning(inputs.previewUrl, 'preview-url')
    if (insecure) logger.warning(insecure, { title: 'Preview address' })
  }
  const signatures = inputs.verifySignatures
    ? await signatureVerifier(inputs.verifySignatures, context.workspace, ports.files)
    : undefined
  const pin = {
    pinDigests: inputs.pinDigests,
    verifyImages: inputs.verifyImages,
    signatures: inputs.verifySignatures !== undefined,
    mirrors: inputs.registryMirrors.length > 0,
  }
  const pinning = pinPlan(pin)
  const { payload, body, rulesFrom } = await logger.group('Deployment payload', async () => {
    const base = inputs.payloadFile
      ? await readBasePayload(inputs.payloadFile, context.workspace, ports.files)
      : undefined
    if (base && inputs.payloadFile && inputs.builtImages)
      refusedBesideBuiltImages(base, inputs.payloadFile)
    const built = buildPayload(inputs, base, { imagesLater: inputs.checkOnly })
    const body = JSON.stringify(built.payload)
    checkSize(body)
    const warnings = [
      ...deployRuleWarnings(built, inputs.payloadFile, deadline),
      ...namedBackendWarnings(inputs, built.payload, deadline),
    ]
    // The rules are judged on the references as sent: once pinned, by the run (rulesAsSent).
    if (pinning === 'none' || inputs.checkOnly)
      for (const warning of warnings) logger.warning(warning)
    logger.info(printable(JSON.stringify(built.payload, null, 2)))
    if (!deploysSomething(built.payload))
      logger.info(
        "No image is given: with 'check-only', the images are taken to come from the later jobs that build them. A run with none stops here, as there is nothing to deploy.",
      )
    return { payload: built.payload, body, rulesFrom: built.rulesFrom }
  })
  const decided = checkLogin(payload, inputs)
  if (decided.warning) logger.warning(decided.warning, { title: 'Registry login not used' })
  return {
    inputs,
    deadline,
    payload,
    body,
    rulesFrom,
    pinning,
    pinReason: pinReason(pin),
    ...(decided.login ? { login: decided.login } : {}),
    ...(signatures ? { signatures } : {}),
  }
}

/**
 * `payload-file` beside `built-images` may give what is not an image (the modes, `extraArgs`,
 * `skipUpdateVersions`): images and rules from both would make two lists, and the rules made for
 * the named backends would replace the file's, which its images may need. One place says which
 * images go where.
 */
function refusedBesideBuiltImages(base: BasePayload, path: string): void {
  const named = [
    ...(base.frontend?.image ? ['frontend.image'] : []),
    ...(base.backends?.images ? ['backends.images'] : []),
    ...(base.backends?.deployRules ? ['backends.deployRules'] : []),
    ...(base.codeAsData?.image ? ['codeAsData.image'] : []),
  ]
  if (named.length > 0)
    throw payloadFileError(
      path,
      `it gives ${named.join(', ')}, and 'built-images' is set: with 'built-images', the images come from it (and the inputs), and the deploy rules from 'deploy-rules' or its named backends; remove those keys from the file (it may still give the modes, 'extraArgs' and 'skipUpdateVersions'), or leave 'built-images' empty`,
    )
}

/**
 * With `deploy-rules`, a warning for each named backend of `built-images` that no rule gives an
 * image (its rules are sent as given).
 */
function namedBackendWarnings(
  inputs: DeployInputs,
  payload: Payload,
  deadline: Deadline,
): string[] {
  const named = namedBackends(inputs.builtImages)
  const rules = payload.backends?.deployRules
  if (!inputs.deployRules || !rules || named.length === 0) return []
  const images = payload.backends?.images ?? []
  const checked = unreachedBackends(named, rules, images, () => deadline.remainingMs())
  if ('tooSlow' in checked) throw tooSlowError(checked.tooSlow, 'deploy-rules', undefined, deadline)
  return checked.unreached.map(unreachedWarning)
}

/** A payload larger than an output holds is refused before it is sent. */
export function checkSize(body: string): void {
  const bytes = new TextEncoder().encode(body).length
  if (bytes > MAX_PAYLOAD_BYTES)
    throw new ActionError(
      `The deployment payload would be ${bytes} bytes, more than the 1 MiB (${MAX_PAYLOAD_BYTES} bytes) that a step output holds; a payload is normally a few hundred bytes: check 'backend-images', 'deploy-rules' and 'payload-file'. Nothing was sent.`,
    )
}

/** The payload as the log shows it: whole up to 64 KiB, then cut with a note. */
export function printable(text: string): string {
  if (text.length <= PRINTED_PAYLOAD_CHARS) return text
  return `${text.slice(0, PRINTED_PAYLOAD_CHARS)}\n… (cut: ${text.length} characters in all; the 'payload' output holds the whole payload)`
}
