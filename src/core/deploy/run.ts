import type { Deadline } from '../shared/deadline.js'
import { ActionError } from '../shared/errors.js'
import type { HttpClient } from '../shared/http.js'
import type { CommonPorts, Summary, SummaryLink } from '../shared/ports.js'
import type { AppTarget } from './app-url.js'
import { printable, type CheckedDeploy } from './check.js'
import type { DeployInputs } from './inputs.js'
import type { Payload } from './payload-schema.js'
import { besideImage, verifyImages, type VerifyPorts } from './verify-images.js'
import { callWebhook, WebhookError, type WebhookResult } from './webhook.js'
import { imageLinks, type LinkContext } from './links.js'
import { formatElapsed, LIVE_POLLS, verdictMessage, type VersionAnswer } from './rollout.js'
import {
  beforeMessage,
  expectedVersion,
  planWatch,
  readBefore,
  rolloutSummary,
  unknownVersionWarning,
  type ExpectedVersion,
  type WatchPlan,
} from './rollout-step.js'
import { watchRollout } from './watch.js'

export interface DeployPorts
  extends Pick<CommonPorts, 'logger' | 'reporter' | 'redact' | 'clock' | 'files'>, VerifyPorts {
  http: HttpClient
}

/** The run's facts deploy uses: what names the project for links. */
export type DeployContext = LinkContext

/**
 * The run, from what the check phase found (checkDeploy): the payload and `timeout-seconds`,
 * which runs from the check's start; the image check (at most half of the time left), reading the
 * app's version and the webhook call all count; the rollout watch then has `wait-minutes`.
 * Outputs are written as they are: `payload` is built from the inputs alone (image references,
 * rules, modes), `url` from `app-url` without its credentials, and what came from a server
 * (`message`, `live-version`) is redacted here, so the platform never has to mask an output,
 * which could corrupt it.
 */
export async function runDeploy(
  checked: CheckedDeploy,
  context: DeployContext,
  ports: DeployPorts,
): Promise<void> {
  const { logger, reporter } = ports
  const { inputs, payload, deadline } = checked
  const plan = planWatch(inputs)
  const notWatched = (): void => {
    reporter.setOutput('rollout', 'not-watched')
    reporter.setOutput('live-version', '')
  }
  const body = JSON.stringify(payload)
  reporter.setOutput('payload', body)
  reporter.setOutput('url', inputs.appUrl?.shown ?? '')
  // The images are checked before anything is sent, dry runs included (they say what would fail).
  const readLabels =
    inputs.appUrl !== undefined && inputs.waitMinutes > 0 && !inputs.expectedVersion
  const verified = await verifyImages(
    payload,
    {
      verifyImages: inputs.verifyImages,
      ...(checked.login ? { login: checked.login } : {}),
      deadline,
      readFrontendLabels: readLabels,
      ...(checked.signatures ? { signatures: checked.signatures } : {}),
    },
    ports,
  )
  const expected = expectedVersion(inputs.expectedVersion, payload, verified.frontendLabels)
  // Watched, the app's link comes with the rollout's outcome (rolloutSummary).
  const links = deployLinks(payload, 'target' in plan ? undefined : inputs.appUrl, context)

  if (inputs.dryRun) {
    logger.info(`Dry run: this request would be sent, and nothing was.\n${describeRequest(body)}`)
    if (readLabels || inputs.expectedVersion) logger.info(expectedLine(expected))
    reporter.setOutput('status', '')
    reporter.setOutput('message', '')
    notWatched()
    await reporter.summary(deploySummary(payload, inputs, undefined, verified.beside, links))
    return
  }

  const before =
    'target' in plan
      ? await logger.group('Live version before the call', () =>
          readBeforeCall(plan.target, expected, deadline, ports),
        )
      : undefined

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
      notWatched()
      throw error
    }
  })
  const message = ports.redact(result.message)
  logger.info(`The webhook accepted the deployment (HTTP ${result.status}, message '${message}').`)
  reporter.setOutput('status', String(result.status))
  reporter.setOutput('message', message)
  await reporter.summary(
    deploySummary(payload, inputs, { ...result, message }, verified.beside, links, plan),
  )
  if (!('target' in plan)) {
    notWatched()
    const said = `The rollout is not watched: ${plan.reason}.`
    if (plan.warn) logger.warning(said, { title: 'Rollout not watched' })
    else logger.info(said)
    return
  }
  await watch(plan.target, inputs, payload, expected, before, ports)
}

/** The watch, its outputs and its summary, then the verdict: live, a warning, or a failure. */
async function watch(
  target: AppTarget,
  inputs: DeployInputs,
  payload: Payload,
  expected: ExpectedVersion,
  before: VersionAnswer | undefined,
  ports: DeployPorts,
): Promise<void> {
  const { logger, reporter } = ports
  const report = await logger.group('Rollout', () => {
    logger.info(
      `Watching ${target.shown} every ${inputs.pollSeconds} s for up to ${formatElapsed(inputs.waitMinutes * 60_000)} ('wait-minutes'): ${'value' in expected ? `live once it serves ${expected.value} with a healthy status` : 'live once it answers with a healthy status'} on ${LIVE_POLLS} polls in a row.`,
    )
    return watchRollout(
      {
        target,
        waitMinutes: inputs.waitMinutes,
        pollSeconds: inputs.pollSeconds,
        manualPromotion: (payload.noDowntime?.promotionMode ?? 'manual') === 'manual',
        ...('value' in expected ? { expected: expected.value } : {}),
        ...(before?.kind === 'version' ? { before: before.version } : {}),
      },
      ports,
    )
  })
  const { verdict } = report
  reporter.setOutput('rollout', verdict.outcome)
  reporter.setOutput('live-version', ports.redact(verdict.lastVersion ?? ''))
  await reporter.summary(rolloutSummary(report, target, expected))
  const said = verdictMessage(verdict, {
    app: target.shown,
    limit: report.limit,
    waitedMs: report.waitedMs,
  })
  if (verdict.outcome === 'live') logger.info(said)
  else if (verdict.outcome === 'awaiting-promotion')
    logger.warning(said, { title: 'Rollout awaiting promotion' })
  else throw new ActionError(said)
}

/** The expected version, said; then the app's version now, and what it means for the watch. */
async function readBeforeCall(
  target: AppTarget,
  expected: ExpectedVersion,
  deadline: Deadline,
  ports: DeployPorts,
): Promise<VersionAnswer> {
  const { logger } = ports
  if ('value' in expected) logger.info(expectedLine(expected))
  else
    logger.warning(unknownVersionWarning(expected.unknown), { title: 'Expected version unknown' })
  const before = await readBefore(target, ports.http, deadline)
  const said = beforeMessage(before, expected)
  if ('warning' in said) logger.warning(said.warning, { title: 'Rollout watch' })
  else logger.info(said.info)
  return before
}

function expectedLine(expected: ExpectedVersion): string {
  return 'value' in expected
    ? `Expected version: ${expected.value} (from ${expected.from}).`
    : `Expected version: unknown (${expected.unknown}).`
}

/** The app, without its credentials, and each image: for the job page. */
function deployLinks(
  payload: Payload,
  appUrl: AppTarget | undefined,
  context: DeployContext,
): SummaryLink[] {
  const app = appUrl ? [{ label: 'App', url: appUrl.shown }] : []
  const images = [
    ...(payload.frontend ? [{ role: 'frontend', reference: payload.frontend.image }] : []),
    ...(payload.backends?.images ?? []).map((reference) => ({ role: 'backend', reference })),
    ...(payload.codeAsData?.image
      ? [{ role: 'code-as-data', reference: payload.codeAsData.image }]
      : []),
  ]
  return [...app, ...imageLinks(images, context)]
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
  links: SummaryLink[],
  plan?: WatchPlan,
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
      ['Status', result ? statusShown(result) : none],
      ['Message', result?.message ?? none],
      ['App', inputs.appUrl?.shown ?? none],
      [
        'Rollout',
        !plan ? 'not watched (dry run)' : 'target' in plan ? 'watched: see below' : 'not watched',
      ],
    ],
    notes: notesFor(payload, inputs),
    links,
  }
}

/** The status; the attempts only when there were retries. */
function statusShown(result: WebhookResult): string {
  return result.attempts > 1
    ? `${result.status} (after ${result.attempts} attempts)`
    : String(result.status)
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
