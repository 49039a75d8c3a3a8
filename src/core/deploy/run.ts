import type { CiContext } from '../shared/context.js'
import { startDeadline } from '../shared/deadline.js'
import { ActionError } from '../shared/errors.js'
import type { HttpClient } from '../shared/http.js'
import type { CommonPorts, Summary } from '../shared/ports.js'
import type { DeployInputs } from './inputs.js'
import { buildPayload, deployRuleWarnings } from './payload.js'
import { readBasePayload } from './payload-file.js'
import type { Payload } from './payload-schema.js'
import { besideImage, verifyImages, type VerifyPorts } from './verify-images.js'
import { callWebhook, WebhookError, type WebhookResult } from './webhook.js'

/** What a step output can hold (GitHub's limit), and so the largest payload we send. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024
/** The payload printed in the log is cut there; the `payload` output has all of it. */
const PRINTED_PAYLOAD_CHARS = 64 * 1024

export interface DeployPorts
  extends Pick<CommonPorts, 'logger' | 'reporter' | 'redact' | 'clock' | 'files'>, VerifyPorts {
  http: HttpClient
}

/**
 * `timeout-seconds` runs from here: reading the payload file, the bounded checks of the deploy
 * rules, the image check (at most half of the time left) and the webhook call all count. Outputs are written as they are: `payload` is built from
 * the inputs alone (image references, rules, modes), and what came from the server (`message`)
 * is redacted here, so the platform never has to mask an output, which could corrupt it.
 */
export async function runDeploy(
  inputs: DeployInputs,
  context: Pick<CiContext, 'workspace'>,
  ports: DeployPorts,
): Promise<void> {
  const { logger, reporter } = ports
  const deadline = startDeadline(ports.clock, inputs.timeoutSeconds)
  const payload = await logger.group('Deployment payload', async () => {
    const base = inputs.payloadFile
      ? await readBasePayload(inputs.payloadFile, context.workspace, ports.files)
      : undefined
    const built = buildPayload(inputs, base)
    checkSize(JSON.stringify(built.payload))
    for (const warning of deployRuleWarnings(built, inputs.payloadFile, deadline))
      logger.warning(warning)
    logger.info(printable(JSON.stringify(built.payload, null, 2)))
    return built.payload
  })
  const body = JSON.stringify(payload)
  reporter.setOutput('payload', body)
  // The images are checked before anything is sent, dry runs included (they say what would fail).
  const checked = await verifyImages(payload, { ...inputs, deadline }, ports)

  if (inputs.dryRun) {
    logger.info(`Dry run: this request would be sent, and nothing was.\n${describeRequest(body)}`)
    reporter.setOutput('status', '')
    reporter.setOutput('message', '')
    await reporter.summary(deploySummary(payload, inputs, undefined, checked))
    return
  }

  const result = await logger.group('Webhook call', async () => {
    try {
      return await callWebhook(
        { url: inputs.webhookUrl, token: inputs.webhookToken, payload: body, deadline },
        ports,
      )
    } catch (error) {
      if (error instanceof WebhookError) {
        reporter.setOutput('status', error.status?.toString() ?? '')
        reporter.setOutput('message', error.responseMessage ?? '')
      }
      throw error
    }
  })
  const message = ports.redact(result.message)
  logger.info(`The webhook accepted the deployment (HTTP ${result.status}, message '${message}').`)
  reporter.setOutput('status', String(result.status))
  reporter.setOutput('message', message)
  await reporter.summary(deploySummary(payload, inputs, { ...result, message }, checked))
}

function checkSize(body: string): void {
  const bytes = new TextEncoder().encode(body).length
  if (bytes > MAX_PAYLOAD_BYTES)
    throw new ActionError(
      `The deployment payload would be ${bytes} bytes, more than the 1 MiB (${MAX_PAYLOAD_BYTES} bytes) that a step output holds; a payload is normally a few hundred bytes: check 'backend-images', 'deploy-rules' and 'payload-file'. Nothing was sent.`,
    )
}

/** The payload as the log shows it: whole up to 64 KiB, then cut with a note. */
function printable(text: string): string {
  if (text.length <= PRINTED_PAYLOAD_CHARS) return text
  return `${text.slice(0, PRINTED_PAYLOAD_CHARS)}\n… (cut: ${text.length} characters in all; the 'payload' output holds the whole payload)`
}

function describeRequest(body: string): string {
  return [
    'POST *** (webhook-url)',
    'Authorization: Bearer *** (webhook-token)',
    'Content-Type: application/json',
    'Accept: application/json',
    '',
    printable(body),
  ].join('\n')
}

function deploySummary(
  payload: Payload,
  inputs: DeployInputs,
  result: WebhookResult | undefined,
  checked: ReadonlyMap<string, string>,
): Summary {
  const none = '—'
  const shown = (image: string): string => besideImage(image, checked)
  return {
    heading: result ? 'Olympe deployment requested' : 'Olympe deployment: dry run (nothing sent)',
    rows: [
      ['Frontend image', payload.frontend ? shown(payload.frontend.image) : none],
      ['Backend images', payload.backends?.images.map(shown).join(', ') || none],
      ['Code-as-data image', payload.codeAsData?.image ? shown(payload.codeAsData.image) : none],
      ['Code-as-data update mode', payload.codeAsData?.updateMode ?? none],
      ['Promotion mode', payload.noDowntime?.promotionMode ?? none],
      ['Extra arguments', payload.extraArgs?.join(' ') || none],
      ['Skip version updates', String(payload.skipUpdateVersions ?? false)],
      ['Status', result ? `${result.status} (after ${result.attempts} attempt(s))` : none],
      ['Message', result?.message ?? none],
    ],
    notes: notesFor(payload, inputs),
  }
}

function notesFor(payload: Payload, inputs: DeployInputs): string[] {
  const notes: string[] = []
  if (payload.noDowntime?.promotionMode === 'manual' && !inputs.dryRun) {
    notes.push(
      'Promotion mode is manual: promote the new version on the platform once it is validated.',
    )
  }
  if (payload.codeAsData?.image && payload.codeAsData.updateMode === 'manual' && !inputs.dryRun) {
    notes.push(
      'Code-as-data update mode is manual: approve the code-as-data update on the platform.',
    )
  }
  return notes
}
