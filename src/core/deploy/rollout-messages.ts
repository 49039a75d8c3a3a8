import type { Evidence, ThisBuild } from './evidence.js'
import { at, backed, formatElapsed, type Verdict } from './rollout-judge.js'
import { listed } from './served-files-reader.js'

/** Where the final messages come from: the address, the limit, what counted as evidence. */
export interface MessageContext {
  /** The app's address without credentials. */
  app: string
  /** `'wait-minutes' (30 min)`. */
  limit: string
  waitedMs: number
  build: ThisBuild
  evidence: Evidence
  /** The version the app served before the call, when it could be read. */
  before?: string
  /** The preview's address without credentials, when `preview-url` was given. */
  preview?: string
  /** What the preview showed last, in words. */
  previewSeen?: string
}

/** What would give the step evidence, said to the user. */
export function evidenceAdvice(build: ThisBuild): string {
  const bump =
    "bump the project's version before the images are built (the project template has no script for it: `npm version patch`, or a version set by the pipeline), so that each deployment serves a version of its own"
  if (build.files) return `To make every deployment verifiable, ${bump}.`
  const labels = build.labelsRead
    ? 'build the frontend image with build-images, which records in its labels the version and the digests of the files the frontend serves'
    : "let the step read the frontend image's labels, where build-images records the version and the digests of the files the frontend serves: give the deploy step a registry login ('registry-username' and 'registry-password', read access is enough) and leave 'verify-images' on"
  return `To get evidence, ${bump}; or ${labels}.`
}

/** Why nothing showed that the app serves this build, for the `unverified` message. */
function noEvidence(evidence: Evidence, verdict: Verdict): string {
  const version = verdict.lastVersion ?? ''
  if (evidence.kind !== 'none') return 'nothing showed that it serves this build'
  switch (evidence.why) {
    case 'unknown-version':
      return `the version this deployment brings is unknown (${evidence.detail}), so nothing shows that ${version} is this build`
    case 'unknown-before':
      return `what it served before the call could not be read (it kept answering as a restarting app does: ${evidence.detail}), so nothing shows that ${version} is new, and without the frontend image's served-files label its files cannot tell either`
    case 'same-version':
      return `it already served ${version}, the version this deployment brings, before the call, and the digests of the files the frontend serves are unknown (${evidence.detail})`
    case 'same-files':
      return `it already served ${version} with the same ${evidence.detail} as this build before the call: this deployment changed nothing the frontend serves (a backend alone, or the same build again), so nothing tells it from the one before`
    case 'files-unreadable':
      return `it already served ${version}, the version this deployment brings, before the call, and the files that could tell this build apart could not be read (${evidence.detail})`
  }
}

/** A one-line headline for the summary: what the job page shows first. */
export function headline(verdict: Verdict, evidence: Evidence): string {
  switch (verdict.outcome) {
    case 'live':
      return 'Olympe rollout: live'
    case 'awaiting-promotion':
      return verdict.preview === 'this-build'
        ? 'Not live: awaiting promotion (the preview serves this build)'
        : 'Not live: awaiting promotion'
    case 'unverified':
      return `Not verified: ${unverifiedWhy(verdict, evidence)}`
    case 'timed-out':
      return 'Not live: timed out'
    case 'rolled-back':
      return 'Not live: rolled back'
  }
}

function unverifiedWhy(verdict: Verdict, evidence: Evidence): string {
  if (verdict.preview === 'no-evidence') return "the preview's build cannot be told apart"
  if (verdict.unsure) return 'a served file cannot be told apart'
  if (evidence.kind !== 'none') return 'the version did not change'
  switch (evidence.why) {
    case 'unknown-version':
      return 'the expected version is unknown'
    case 'unknown-before':
      return 'what the app served before is unknown'
    case 'same-files':
      return 'the app already served this build'
    default:
      return 'the version did not change'
  }
}

/**
 * What the step says at the end: the log line of a live app, the warning of an app that awaits
 * its promotion or cannot be verified, or the failure of the others.
 */
export function verdictMessage(verdict: Verdict, context: MessageContext): string {
  const { app, evidence } = context
  const waited = formatElapsed(context.waitedMs)
  const last = `last seen: ${verdict.lastSeen}`
  const thisBuild =
    evidence.kind === 'files'
      ? `this build (${verdict.expected ?? verdict.lastVersion ?? ''}, with ${listed(evidence.paths)} as built)`
      : (verdict.expected ?? '')
  switch (verdict.outcome) {
    case 'live':
      return evidence.kind === 'files'
        ? `The app at ${app} serves this build: ${verdict.lastVersion ?? ''}, the version it served before, but with ${listed(evidence.differ)} changed to this build's. Live ${at(verdict.atMs)} after the webhook's answer.`
        : `The app at ${app} serves ${verdict.expected ?? ''}: live ${at(verdict.atMs)} after the webhook's answer.`
    case 'unverified':
      return unverifiedMessage(verdict, context)
    case 'rolled-back':
      return `The rollout was rolled back: the app at ${app} served ${thisBuild} (first ${at(verdict.firstBuildAtMs ?? 0)} after the webhook's answer), then ${verdict.back?.version ?? ''} again ${backed(verdict)} (since ${at(verdict.back?.sinceMs ?? 0)}). The platform may have rolled the new version back, or still send part of the traffic to the old one: check the deployment's status and the new version's logs on the platform.`
    case 'awaiting-promotion':
      return awaitingMessage(verdict, context)
    case 'timed-out':
      return timedOutMessage(verdict, context, thisBuild, `${waited}; ${last}`)
  }
}

function unverifiedMessage(verdict: Verdict, context: MessageContext): string {
  const { app, build } = context
  const last = `last seen: ${verdict.lastSeen}`
  const accepted = 'The deployment was accepted; whether the new build serves is for you to check.'
  if (verdict.preview === 'no-evidence')
    return `Not verified: the app at ${app} did not serve this build within ${context.limit}, and the promotion mode is manual: the app still serves the build before this deployment (${last}), and the preview at ${context.preview ?? ''} answers${context.previewSeen ? ` (${context.previewSeen})` : ''}, but nothing tells this build from the one it served before the call, so whether it awaits a promotion is not verified. Promote it on the platform once it is validated. ${evidenceAdvice(build)}`
  if (verdict.unsure)
    return `Not verified: the app at ${app} serves ${verdict.expected ?? ''}, the expected version, with a healthy status, but with ${verdict.unsure} (${last}): such a file may still be the one before this deployment, or one the platform rewrites as the app starts, and what it served before the call could not be read to tell them apart. ${accepted}`
  return `Not verified: the app at ${app} answers with a healthy status (${last}), but ${noEvidence(context.evidence, verdict)}. ${accepted} ${evidenceAdvice(build)}`
}

function awaitingMessage(verdict: Verdict, context: MessageContext): string {
  const { app, limit, preview } = context
  const notYet = `The app at ${app} did not serve this build within ${limit}, and the promotion mode is manual`
  const seen = context.previewSeen ? ` (${context.previewSeen})` : ''
  if (verdict.preview === 'this-build')
    return `${notYet}: the preview at ${preview ?? ''} serves this build${seen}. Promote it on the platform once it is validated to go live; the app still serves the previous one (last seen: ${verdict.lastSeen}).`
  return `${notYet}: the app still serves the build before this deployment (last seen: ${verdict.lastSeen}). The new version may be waiting for someone to promote it on the platform, or the rollout may never have reached the app; without 'preview-url' (the address where the platform serves the new version until it is promoted) the step cannot tell them apart. Check the deployment on the platform, and promote it there once it is validated. Ask the platform operator whether this environment deploys with no downtime (the promotion mode applies only there): if it does, ask for its preview address and give it as 'preview-url', so that the step verifies the new version there; if it does not, the rollout did not reach the app: check the deployment's status.`
}

function timedOutMessage(
  verdict: Verdict,
  context: MessageContext,
  thisBuild: string,
  waited: string,
): string {
  const { app, limit, evidence } = context
  if (verdict.preview === 'not-this-build')
    return `The preview at ${context.preview ?? ''} did not serve ${thisBuild} within ${limit}, nor did the app at ${app} (waited ${waited}${context.previewSeen ? `; the preview: ${context.previewSeen}` : ''}). The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform, and that 'preview-url' is this environment's preview address.`
  if (evidence.kind === 'none' && evidence.why === 'unknown-version')
    return `The app at ${app} did not answer with a version and a healthy status within ${limit} (waited ${waited}). Check that 'app-url' is the address of this environment's frontend, and the deployment's status on the platform.`
  const files =
    evidence.kind === 'files'
      ? ` The version did not change, so the files the frontend serves were compared with those of the frontend image (its served-files label): if the image or the platform rewrites one of them as it starts, bump the version instead.`
      : " Check too that the project's version was bumped before the images were built (the version must change for the new rollout to be told from the old one)."
  return `The app at ${app} did not serve ${thisBuild} within ${limit} (waited ${waited}).${endingClause(verdict, context)} The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform, and that 'app-url' is the address of this environment.${files}`
}

/** What the app served at the end of a watch that timed out, where it says more than the rest. */
function endingClause(verdict: Verdict, context: MessageContext): string {
  const manual = verdict.preview !== undefined
  const notPending =
    'The promotion mode is manual, but this is not a pending promotion: until one, the platform keeps serving the build before this deployment'
  switch (verdict.ending) {
    case 'third':
      return ` At the end it serves ${verdict.lastVersion ?? ''}, neither this build nor the one it served before the call (${context.before ?? ''}): another deployment may have replaced this one; check the platform's deployment history.`
    case 'down':
      return manual ? ` ${notPending}, and at the end the app gave no version.` : ''
    case 'unhealthy':
      return manual ? ` ${notPending}, and at the end the app's status failed.` : ''
    case 'before-unknown':
      return manual
        ? ` The promotion mode is manual, but what the app served before the call could not be read, so the step cannot tell whether ${verdict.lastVersion ?? ''} is the build before this deployment, awaiting a promotion.`
        : ''
    default:
      return ''
  }
}
