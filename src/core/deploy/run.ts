import { resolve } from 'node:path'
import * as v from 'valibot'
import type { CiContext } from '../shared/context.js'
import { ActionError, errorMessage } from '../shared/errors.js'
import type { HttpClient } from '../shared/http.js'
import { describeIssues } from '../shared/issues.js'
import type { CommonPorts, Files, Summary } from '../shared/ports.js'
import type { DeployInputs } from './inputs.js'
import { buildPayload } from './payload.js'
import {
  BasePayloadSchema,
  PAYLOAD_WORDING,
  type BasePayload,
  type Payload,
} from './payload-schema.js'
import { besideImage, verifyImages, type VerifyPorts } from './verify-images.js'
import { callWebhook, WebhookError, type WebhookResult } from './webhook.js'

export interface DeployPorts
  extends Pick<CommonPorts, 'logger' | 'reporter' | 'redact' | 'clock' | 'files'>, VerifyPorts {
  http: HttpClient
}

export async function runDeploy(
  inputs: DeployInputs,
  context: Pick<CiContext, 'workspace'>,
  ports: DeployPorts,
): Promise<void> {
  const { logger, reporter } = ports
  const payload = await logger.group('Deployment payload', async () => {
    const base = inputs.payloadFile
      ? await readBasePayload(inputs.payloadFile, context.workspace, ports.files)
      : undefined
    const built = buildPayload(inputs, base)
    for (const warning of built.warnings) logger.warning(warning)
    logger.info(JSON.stringify(built.payload, null, 2))
    return built.payload
  })
  const body = JSON.stringify(payload)
  reporter.setOutput('payload', body)
  // Issue 12: before anything is sent, dry runs included (they say what would fail).
  const checked = await verifyImages(payload, inputs, ports)

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
        {
          url: inputs.webhookUrl,
          token: inputs.webhookToken,
          payload: body,
          timeoutSeconds: inputs.timeoutSeconds,
        },
        ports,
      )
    } catch (error) {
      if (error instanceof WebhookError)
        reporter.setOutput('status', error.status?.toString() ?? '')
      throw error
    }
  })
  logger.info(
    `The webhook accepted the deployment (HTTP ${result.status}, message '${result.message}').`,
  )
  reporter.setOutput('status', String(result.status))
  reporter.setOutput('message', result.message)
  await reporter.summary(deploySummary(payload, inputs, result, checked))
}

async function readBasePayload(
  path: string,
  workspace: string,
  files: Files,
): Promise<BasePayload> {
  let text: string
  try {
    text = await files.readText(resolve(workspace, path))
  } catch (error) {
    throw new ActionError(
      `Invalid input 'payload-file' '${path}': cannot read it (${errorMessage(error)}).`,
    )
  }
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (error) {
    throw new ActionError(
      `Invalid input 'payload-file' '${path}': not valid JSON (${errorMessage(error)}).`,
    )
  }
  // valibot's object schemas take arrays too; a payload is a JSON object.
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ActionError(
      `Invalid input 'payload-file' '${path}': expected a JSON object (spec 2.1).`,
    )
  }
  const result = v.safeParse(BasePayloadSchema, document)
  if (!result.success) {
    const problems = describeIssues(result.issues, PAYLOAD_WORDING).join('; ')
    throw new ActionError(
      `Invalid input 'payload-file' '${path}': it does not follow the deployment payload schema (spec 2.1): ${problems}.`,
    )
  }
  return result.output
}

function describeRequest(body: string): string {
  return [
    'POST *** (webhook-url)',
    'Authorization: Bearer *** (webhook-token)',
    'Content-Type: application/json',
    'Accept: application/json',
    '',
    body,
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
