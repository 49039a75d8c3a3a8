import type { Deadline } from '../shared/deadline.js'
import { ActionError } from '../shared/errors.js'
import type { HttpClient } from '../shared/http.js'
import type { CommonPorts, Summary, SummaryLink } from '../shared/ports.js'
import type { AppTarget } from './app-url.js'
import { checkSize, printable, type CheckedDeploy } from './check.js'
import type { DeployInputs } from './inputs.js'
import { builtReferences } from './built-images.js'
import { payloadImages } from './payload.js'
import type { Payload } from './payload-schema.js'
import { pinnedLines, pinnedPayload, pinnedRefusalHint, rulesAsSent } from './pinning.js'
import type { PinnedReference } from '../registry/pinned-reference.js'
import { besideImage, verifyImages, type VerifyPorts } from './verify-images.js'
import { callWebhook, refusedTheCaller, WebhookError, type WebhookResult } from './webhook.js'
import { imageLinks, type LinkContext } from './links.js'
import { planEvidence, type Evidence } from './evidence.js'
import { endingOf, LIVE_POLLS } from './outcomes.js'
import { formatElapsed } from './rollout-judge.js'
import { headline, verdictMessage } from './rollout-messages.js'
import {
  beforeMessage,
  buildFacts,
  buildLines,
  planWatch,
  readBefore,
  rolloutSummary,
  unknownVersionWarning,
  type BuildFacts,
  type WatchPlan,
} from './rollout-step.js'
import { listed, ServedFilesReader } from './served-files-reader.js'
import { QUICK_PERIOD_MS, QUICK_POLL_MS, watchRollout, type WatchedTarget } from './watch.js'
import type { StepEnd } from '../shared/step-end.js'
import type { DeployProgress } from './progress.js'
import type { ProvenanceReader } from '../attestations/provenance-check.js'
import type { ProvenanceCheck } from './provenance.js'

export interface DeployPorts
  extends Pick<CommonPorts, 'logger' | 'reporter' | 'redact' | 'clock' | 'files'>, VerifyPorts {
  http: HttpClient
  /** Told how far the deployment got (see DeployPhase), for what a cancel says. */
  progress?: DeployProgress
  /**
   * Reads an image's provenance: given by the action's module, which loads it only when
   * `require-provenance` is set.
   */
  readProvenance?: ProvenanceReader
}

/**
 * The run, from what the check phase found (checkDeploy): the payload and `timeout-seconds`,
 * which runs from the check's start; the image check (at most half of the time left), reading the
 * app's version and the webhook call all count; the rollout watch then has `wait-minutes`.
 * Outputs are written as they are: `payload` is built from the inputs alone (image references,
 * rules, modes), `url` from `app-url` without its credentials, and what came from a server
 * (`message`, `live-version`) is redacted here, so the platform never has to mask an output,
 * which could corrupt it. `context` names the project, for the job page's links.
 */
export async function runDeploy(
  checked: CheckedDeploy,
  context: LinkContext,
  ports: DeployPorts,
): Promise<StepEnd> {
  const { logger, reporter } = ports
  ports.progress?.({ kind: 'not-sent' })
  const { inputs, payload: given, deadline } = checked
  const plan = planWatch(inputs)
  const notWatched = (): void => {
    reporter.setOutput('rollout', 'not-watched')
    reporter.setOutput('live-version', '')
  }
  reporter.setOutput('url', inputs.appUrl?.shown ?? '')
  // The images are checked before anything is sent, dry runs included (they say what would fail).
  const readLabels = inputs.appUrl !== undefined && inputs.waitMinutes > 0
  const verified = await verifyImages(
    given,
    {
      verifyImages: inputs.verifyImages,
      ...(checked.login ? { login: checked.login } : {}),
      registryMirrors: inputs.registryMirrors,
      byDigest: builtReferences(inputs.builtImages),
      pinning: checked.pinning,
      pinReason: checked.pinReason,
      deadline,
      readFrontendLabels: readLabels,
      ...(checked.signatures ? { signatures: checked.signatures } : {}),
      ...provenanceCheck(inputs, ports),
    },
    ports,
  )
  const { payload, body } = sentPayload(checked, verified.pins, logger)
  reporter.setOutput('payload', body)
  const build = buildFacts(inputs.expectedVersion, payload, verified.frontendLabels)
  // Watched, the app's link comes with the rollout's outcome (rolloutSummary).
  const links = deployLinks(payload, 'target' in plan ? undefined : inputs.appUrl, context)

  if (inputs.dryRun) {
    logger.info(`Dry run: this request would be sent, and nothing was.\n${describeRequest(body)}`)
    if (readLabels || inputs.expectedVersion)
      for (const line of expectedLines(build)) logger.info(line)
    reporter.setOutput('status', '')
    reporter.setOutput('message', '')
    notWatched()
    await reporter.summary(deploySummary(payload, inputs, undefined, verified.beside, links))
    return {}
  }

  const manualPromotion = (payload.noDowntime?.promotionMode ?? 'manual') === 'manual'
  const targets =
    'target' in plan
      ? await logger.group('Live version before the call', () =>
          readBeforeCall(
            plan.target,
            manualPromotion ? inputs.previewUrl : undefined,
            build,
            deadline,
            ports,
          ),
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
        notWatched()
        throw pinnedRefusal(error, verified.pins, checked.pinReason)
      }
      notWatched()
      throw error
    }
  })
  ports.progress?.({
    kind: 'accepted',
    status: result.status,
    watch: 'target' in plan ? 'running' : 'none',
  })
  const message = ports.redact(result.message)
  logger.info(`The webhook accepted the deployment (HTTP ${result.status}, message '${message}').`)
  reporter.setOutput('status', String(result.status))
  reporter.setOutput('message', message)
  await reporter.summary(
    deploySummary(payload, inputs, { ...result, message }, verified.beside, links, plan),
  )
  if (!targets) {
    notWatched()
    const said = `The rollout is not watched: ${'reason' in plan ? plan.reason : ''}.`
    if ('warn' in plan && plan.warn) logger.warning(said, { title: 'Rollout not watched' })
    else logger.info(said)
    return {}
  }
  return watch(targets, inputs, manualPromotion, build, ports, result.status)
}

/** `require-provenance`'s repositories and the reader, when it is set. */
function provenanceCheck(
  inputs: DeployInputs,
  ports: DeployPorts,
): { provenance?: ProvenanceCheck } {
  const repositories = inputs.provenanceRepositories
  if (!repositories) return {}
  if (!ports.readProvenance)
    throw new Error("'require-provenance' is set, and the provenance reader was not given")
  return { provenance: { repositories, read: ports.readProvenance } }
}

/**
 * The payload as it is sent: each image the check pinned named by its digest, the deploy rules
 * judged on those references (when anything could be pinned), its size checked again.
 */
function sentPayload(
  checked: CheckedDeploy,
  pins: ReadonlyMap<string, PinnedReference>,
  logger: DeployPorts['logger'],
): { payload: Payload; body: string } {
  const { payloadFile } = checked.inputs
  if (checked.pinning === 'none') return { payload: checked.payload, body: checked.body }
  const rules = {
    payload: checked.payload,
    rulesFrom: checked.rulesFrom,
    ...(payloadFile ? { payloadFile } : {}),
  }
  const warnings = rulesAsSent(rules, pins, checked.pinReason, checked.deadline)
  for (const warning of warnings) logger.warning(warning)
  for (const line of pinnedLines(pins, checked.pinReason)) logger.info(line)
  const payload = pinnedPayload(checked.payload, pins)
  const body = pins.size === 0 ? checked.body : JSON.stringify(payload)
  checkSize(body)
  return { payload, body }
}

/** A webhook's answer other than 200 to references pinned by digest says what may be why. */
function pinnedRefusal(
  error: WebhookError,
  pins: ReadonlyMap<string, PinnedReference>,
  reason: string,
): WebhookError {
  const pinned = [...pins.values()].some((pin) => pin.reference !== pin.given)
  // A 401 or 403 refuses the caller (its token, its address), not the references it sent.
  const { status } = error
  if (!pinned || status === undefined || status === 200 || refusedTheCaller(status)) return error
  return new WebhookError(
    `${error.message} ${pinnedRefusalHint(reason)}`,
    error.status,
    error.responseMessage,
  )
}

/** The targets to watch, as they were before the call. */
interface Targets {
  app: WatchedTarget
  preview?: WatchedTarget
}

/** The watch, its outputs and its summary, then the verdict: live, a warning, or a failure. */
async function watch(
  targets: Targets,
  inputs: DeployInputs,
  manualPromotion: boolean,
  build: BuildFacts,
  ports: DeployPorts,
  status: number,
): Promise<StepEnd> {
  const { logger, reporter } = ports
  const { app, preview } = targets
  const report = await logger.group('Rollout', () => {
    logger.info(
      `Watching ${app.target.shown} ${cadence(inputs.pollSeconds, inputs.waitMinutes)} for up to ${formatElapsed(inputs.waitMinutes * 60_000)} ('wait-minutes'): ${aim(app.evidence, build)} on ${LIVE_POLLS} polls in a row.`,
    )
    // Without a preview, a manual promotion matters only if the app does not switch: the
    // message of that outcome says so, and what to ask the operator.
    if (manualPromotion && preview)
      logger.info(
        `The promotion mode is manual: the preview at ${preview.target.shown} is watched until it serves this build, and the app until it does too (a promotion) or 'wait-minutes' is spent.`,
      )
    else if (!manualPromotion && inputs.previewUrl)
      logger.info(
        "The promotion mode is auto: the app itself is watched, and 'preview-url' is not used.",
      )
    return watchRollout(
      {
        app,
        ...(preview ? { preview } : {}),
        build,
        manualPromotion,
        waitMinutes: inputs.waitMinutes,
        pollSeconds: inputs.pollSeconds,
      },
      ports,
    )
  })
  const { verdict } = report
  reporter.setOutput('rollout', verdict.outcome)
  reporter.setOutput('live-version', ports.redact(verdict.lastVersion ?? ''))
  ports.progress?.({ kind: 'accepted', status, watch: { ended: verdict.outcome } })
  await reporter.summary(
    rolloutSummary(report, {
      target: app.target,
      build,
      evidence: app.evidence,
      ...(app.before !== undefined ? { before: app.before } : {}),
      ...(preview ? { preview: preview.target } : {}),
    }),
  )
  const said = verdictMessage(verdict, {
    app: app.target.shown,
    limit: report.limit,
    waitedMs: report.waitedMs,
    build,
    evidence: app.evidence,
    ...(app.before !== undefined ? { before: app.before } : {}),
    ...(preview ? { preview: preview.target.shown } : {}),
    ...(report.preview ? { previewSeen: report.preview.seen } : {}),
  })
  const title = headline(verdict, app.evidence)
  const ending = endingOf(verdict.outcome)
  if (ending === 'success') {
    logger.info(said)
    return {}
  }
  const unproven = verdict.outcome === 'unverified' || verdict.preview !== 'this-build'
  if (ending === 'warning' && !(inputs.requireEvidence && unproven)) {
    logger.warning(said, { title })
    return { notLive: title }
  }
  throw new ActionError(
    ending === 'warning' ? `${said} 'require-evidence' is true, so the step fails.` : said,
  )
}

/** How often the app is polled, in words (see pauseAfter). */
function cadence(pollSeconds: number, waitMinutes: number): string {
  const quick = Math.min(QUICK_POLL_MS / 1000, pollSeconds)
  if (quick === pollSeconds || waitMinutes * 60_000 <= QUICK_PERIOD_MS) return `every ${quick} s`
  return `every ${quick} s for ${formatElapsed(QUICK_PERIOD_MS)} after the call, then every ${pollSeconds} s ('poll-seconds')`
}

/** What the watch waits for, in words. */
function aim(evidence: Evidence, build: BuildFacts): string {
  switch (evidence.kind) {
    case 'version':
      return `live once it serves ${build.version ?? ''} with a healthy status`
    case 'files':
      return `live once it serves this build (${build.version ?? 'its version'}, with ${listed(evidence.paths)} as built) with a healthy status`
    case 'none':
      return 'nothing can tell this build apart, so it ends unverified once the app answers with a healthy status'
  }
}

/**
 * This build's version and files, said; then, for the app and the preview, what each serves
 * now, and what that means for the watch.
 */
async function readBeforeCall(
  app: AppTarget,
  preview: AppTarget | undefined,
  build: BuildFacts,
  deadline: Deadline,
  ports: DeployPorts,
): Promise<Targets> {
  const { logger } = ports
  for (const line of buildLines(build)) logger.info(line)
  if (build.version === undefined)
    logger.warning(unknownVersionWarning(build), { title: 'Expected version unknown' })
  const read = async (target: AppTarget, subject: string): Promise<WatchedTarget> => {
    const reader = new ServedFilesReader(target, ports.http)
    const before = await readBefore(target, build, reader, ports, deadline)
    const evidence = planEvidence(build, before)
    const said = beforeMessage(subject, before, build, evidence)
    if ('warning' in said) logger.warning(said.warning, { title: 'Rollout watch' })
    else logger.info(said.info)
    return {
      target,
      evidence,
      reader,
      ...(before.version.kind === 'version' ? { before: before.version.version } : {}),
    }
  }
  const watched = await read(app, 'the app')
  return preview ? { app: watched, preview: await read(preview, 'the preview') } : { app: watched }
}

function expectedLines(build: BuildFacts): string[] {
  return build.version === undefined
    ? [`Expected version: unknown (${build.versionUnknown ?? ''}).`, ...buildLines(build)]
    : buildLines(build)
}

/** The app, without its credentials, and each image: for the job page. */
function deployLinks(
  payload: Payload,
  appUrl: AppTarget | undefined,
  context: LinkContext,
): SummaryLink[] {
  const app = appUrl ? [{ label: 'App', url: appUrl.shown }] : []
  return [...app, ...imageLinks(payloadImages(payload), context)]
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
    notes: notesFor(payload, inputs, plan),
    links,
  }
}

/** The status; the attempts only when there were retries. */
function statusShown(result: WebhookResult): string {
  return result.attempts > 1
    ? `${result.status} (after ${result.attempts} attempts)`
    : String(result.status)
}

function notesFor(payload: Payload, inputs: DeployInputs, plan?: WatchPlan): string[] {
  const notes: string[] = []
  // A watched rollout says it where the promotion changes the outcome (awaiting-promotion).
  const watched = plan !== undefined && 'target' in plan
  if (payload.noDowntime?.promotionMode === 'manual' && !inputs.dryRun && !watched) {
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
