import type { Evidence, ThisBuild } from './evidence.js'
import type { Outcome } from './outcomes.js'
import { listed } from './served.js'

/**
 * The rollout watch's judgement, without I/O: what each poll of the app saw goes in, the lines to
 * log and, once it can be told, the verdict come out. The poller (watch.ts) asks the app and
 * feeds it; the tests feed it tables.
 *
 * Live means this build (see evidence.ts) with a healthy status on LIVE_POLLS polls in a row: a
 * rolling update behind a load balancer answers old and new in turn, which is not live yet.
 * Unverified means the same of an app that nothing can tell from what it served before. Rolled
 * back means this build was served, then another one on ROLLBACK_POLLS polls in a row.
 */
export const LIVE_POLLS = 2
export const ROLLBACK_POLLS = 2

/** What `<app-url>/version.json` gave. */
export type VersionAnswer =
  /** `digest`: the SHA-256 of version.json as served, when it was read whole (`sha256:<hex>`). */
  | { kind: 'version'; version: string; digest?: string }
  /** No version: `transient` when it is what a restarting app answers (refused, 502-504, HTML…). */
  | { kind: 'none'; detail: string; transient: boolean }

/** What `<app-url>/OlympeServer/status` gave; it is asked only after a version. */
export type StatusAnswer =
  | { kind: 'healthy'; status: number }
  | { kind: 'unhealthy'; detail: string }
  /** 404: the install may have no such route. */
  | { kind: 'no-route' }
  | { kind: 'not-asked' }

/**
 * One poll's answer against this build: `build`, evidence that it serves; `same`, what this build
 * serves, as before the call (no evidence); `any`, a version where none is expected; `other`,
 * another build (`files` says which files differ when the version does not); `none`, no version.
 */
export type Serving =
  | { kind: 'build' | 'same' | 'any' | 'other'; version: string; files?: string }
  | { kind: 'none'; detail: string; transient: boolean }

export interface Observation {
  /** Milliseconds since the webhook accepted the deployment. */
  atMs: number
  serving: Serving
  status: StatusAnswer
}

export interface RolloutSettings {
  /** Who is watched, for the log: `the app` (default) or `the preview`. */
  subject?: string
  /** The version the app must serve; unknown: it is never live, at best unverified. */
  expected?: string
  /** The version served before the call, when it could be read. */
  before?: string
  /** `promotion-mode: manual`: the platform may wait for someone to promote the new version. */
  manualPromotion: boolean
}

/** What the preview showed by the end (see watch.ts), for a manual promotion. */
export type PreviewState = 'this-build' | 'no-evidence' | 'not-this-build' | 'no-preview-url'

export interface TimelineEvent {
  atMs: number
  text: string
}

export interface Verdict {
  outcome: Outcome
  /** When it was told, since the webhook's answer. */
  atMs: number
  expected?: string
  /** The version last served, if any was. */
  lastVersion?: string
  /** The last poll's answer, in words. */
  lastSeen: string
  /** When this build was first served. */
  firstBuildAtMs?: number
  /** For `rolled-back`: the version that came back, and since when. */
  back?: { version: string; sinceMs: number }
  /** For `awaiting-promotion` and a timed-out manual promotion: what the preview showed. */
  preview?: PreviewState
}

export interface Step {
  log: string[]
  verdict?: Verdict
}

type State =
  | {
      kind: 'build' | 'same' | 'any' | 'other'
      version: string
      files?: string
      status: string
      healthy: boolean
    }
  | { kind: 'none'; detail: string; transient: boolean }

export class RolloutJudge {
  /** `absent` once the status route answered 404 beside a version: the version alone decides. */
  private statusRoute: 'unknown' | 'present' | 'absent' = 'unknown'
  private lastKey: string | undefined
  private liveStreak = 0
  private sameStreak = 0
  private backStreak = 0
  private backSinceMs = 0
  private firstBuildAtMs: number | undefined
  private firstAnswerAtMs: number | undefined
  private lastVersion: string | undefined
  private lastSeenText = 'no answer yet'
  private verdict: Verdict | undefined
  /** What happened when: accepted, first new answer, live (or how it ended). */
  readonly timeline: TimelineEvent[] = [{ atMs: 0, text: 'accepted by the webhook' }]
  /** Every version served, in the order first seen. */
  readonly versions: string[] = []

  constructor(private readonly settings: RolloutSettings) {}

  private get subject(): string {
    return this.settings.subject ?? 'the app'
  }

  /** Whether a poll asks the status route: not once it proved absent. */
  get asksStatus(): boolean {
    return this.statusRoute !== 'absent'
  }

  /** Whether this build was served at any poll. */
  get buildSeen(): boolean {
    return this.firstBuildAtMs !== undefined
  }

  /** The last poll's answer, in words: `version 1.3.0, status HTTP 200`. */
  get lastSeen(): string {
    return this.lastSeenText
  }

  observe(observation: Observation): Step {
    if (this.verdict) return { log: [], verdict: this.verdict }
    const { atMs } = observation
    const log: string[] = []
    const note = this.noteStatusRoute(observation)
    if (note) log.push(`${at(atMs)}: ${note}.`)
    const state = this.stateOf(observation)
    this.lastSeenText = compact(state)
    if (state.kind === 'none' && this.lastVersion !== undefined)
      this.lastSeenText += `; the last version served was ${this.lastVersion}`
    const key = JSON.stringify(state)
    if (key !== this.lastKey) {
      log.push(`${at(atMs)}: ${this.subject} ${this.describe(state)}.`)
      this.lastKey = key
    }
    if (state.kind !== 'none') this.seen(state.version)
    this.count(state, atMs)
    const verdict = this.decide(atMs)
    if (verdict) log.push(`${at(atMs)}: ${this.verdictLine(verdict)}`)
    return verdict ? { log, verdict } : { log }
  }

  /**
   * The verdict when the time is up without one. Manual promotion, this build never served:
   * awaiting promotion, unless the preview (when watched) never served it either.
   */
  end(atMs: number, preview: PreviewState = 'no-preview-url'): Verdict {
    if (this.verdict) return this.verdict
    // The old version keeps serving until the promotion: an app that served none is down.
    const awaiting =
      this.settings.manualPromotion &&
      this.firstBuildAtMs === undefined &&
      this.lastVersion !== undefined &&
      preview !== 'not-this-build'
    const outcome = awaiting ? 'awaiting-promotion' : 'timed-out'
    this.timeline.push({
      atMs,
      text: awaiting ? 'stopped watching: awaiting promotion' : 'stopped watching: not live',
    })
    const verdict = this.made(outcome, atMs)
    if (this.settings.manualPromotion && this.firstBuildAtMs === undefined)
      verdict.preview = preview
    return (this.verdict = verdict)
  }

  private noteStatusRoute({ serving, status }: Observation): string | undefined {
    if (serving.kind === 'none') return undefined
    if (status.kind === 'healthy') this.statusRoute = 'present'
    if (status.kind !== 'no-route' || this.statusRoute !== 'unknown') return undefined
    this.statusRoute = 'absent'
    return `${this.subject}'s /OlympeServer/status answers HTTP 404: this install has no status route, so the version alone decides from now on`
  }

  private stateOf({ serving, status }: Observation): State {
    if (serving.kind === 'none') return serving
    const [healthy, said] = this.health(status)
    return { ...serving, status: said, healthy }
  }

  private health(status: StatusAnswer): [boolean, string] {
    switch (status.kind) {
      case 'healthy':
        return [true, `status HTTP ${status.status}`]
      case 'unhealthy':
        return [false, `status ${status.detail}`]
      case 'no-route':
        return this.statusRoute === 'absent'
          ? [true, 'no status route']
          : [false, 'status HTTP 404']
      case 'not-asked':
        return [this.statusRoute === 'absent', 'no status route']
    }
  }

  private seen(version: string): void {
    this.lastVersion = version
    if (!this.versions.includes(version)) this.versions.push(version)
  }

  private count(state: State, atMs: number): void {
    const serving = state.kind !== 'none' && state.healthy
    this.liveStreak = serving && state.kind === 'build' ? this.liveStreak + 1 : 0
    const same = serving && (state.kind === 'same' || state.kind === 'any')
    this.sameStreak = same ? this.sameStreak + 1 : 0
    if (state.kind === 'build' && this.firstBuildAtMs === undefined) {
      this.firstBuildAtMs = atMs
      this.timeline.push({ atMs, text: `first answer with this build (${state.version})` })
    }
    if (same && this.firstAnswerAtMs === undefined) {
      this.firstAnswerAtMs = atMs
      this.timeline.push({ atMs, text: `first answer (version ${state.version})` })
    }
    const back = state.kind === 'other' && this.firstBuildAtMs !== undefined
    if (back && this.backStreak === 0) this.backSinceMs = atMs
    this.backStreak = back ? this.backStreak + 1 : 0
  }

  private decide(atMs: number): Verdict | undefined {
    if (this.liveStreak >= LIVE_POLLS) {
      this.timeline.push({ atMs, text: `live: ${this.lastVersion ?? ''}` })
      return (this.verdict = this.made('live', atMs))
    }
    if (this.sameStreak >= LIVE_POLLS && this.firstBuildAtMs === undefined) {
      this.timeline.push({ atMs, text: `answers, not verified: ${this.lastVersion ?? ''}` })
      return (this.verdict = this.made('unverified', atMs))
    }
    if (this.backStreak >= ROLLBACK_POLLS) {
      this.timeline.push({ atMs, text: `rolled back: ${this.lastVersion ?? ''} again` })
      return (this.verdict = this.made('rolled-back', atMs))
    }
    return undefined
  }

  private made(outcome: Outcome, atMs: number): Verdict {
    const verdict: Verdict = { outcome, atMs, lastSeen: this.lastSeenText }
    if (this.settings.expected !== undefined) verdict.expected = this.settings.expected
    if (this.lastVersion !== undefined) verdict.lastVersion = this.lastVersion
    if (this.firstBuildAtMs !== undefined) verdict.firstBuildAtMs = this.firstBuildAtMs
    if (outcome === 'rolled-back' && this.lastVersion !== undefined)
      verdict.back = { version: this.lastVersion, sinceMs: this.backSinceMs }
    return verdict
  }

  private describe(state: State): string {
    if (state.kind === 'none')
      return `gives no version: ${state.detail}${state.transient ? ' (tolerated while it restarts)' : ''}`
    const { version, status, healthy } = state
    const health = healthy ? `, ${status}` : `, but ${status}: not live while it does`
    const { expected, before } = this.settings
    switch (state.kind) {
      case 'any':
        return `answers with version ${version}${health}`
      case 'build':
        return state.files
          ? `serves this build: ${version}, with ${state.files}${health}`
          : `serves ${version}, the expected version${health}`
      case 'same':
        return `serves ${version}, this build's version, as before the call${health}`
      case 'other': {
        const what = state.files ? `${version} with ${state.files}` : version
        const earlier =
          version === before && !state.files ? ' (the version before this deployment)' : ''
        const target = state.files ? 'this build' : (expected ?? '')
        const waiting = this.buildSeen ? `, after it served ${target}` : `; waiting for ${target}`
        return `serves ${what}${earlier}${waiting}`
      }
    }
  }

  private verdictLine(verdict: Verdict): string {
    switch (verdict.outcome) {
      case 'live':
        return `live: this build (${verdict.lastVersion ?? ''}) served with a healthy status on ${LIVE_POLLS} polls in a row.`
      case 'unverified':
        return `${this.subject} answers with a healthy status on ${LIVE_POLLS} polls in a row, but nothing tells this build from the one before: not verified.`
      default:
        return `${verdict.back?.version ?? ''} came back on ${ROLLBACK_POLLS} polls in a row after this build was served: rolled back.`
    }
  }
}

/** The last answer as the final message names it: `version 1.3.0, status HTTP 200`. */
function compact(state: State): string {
  if (state.kind === 'none') return `no version (${state.detail})`
  const files = state.files ? ` with ${state.files}` : ''
  return `version ${state.version}${files}, ${state.status}`
}

/** Where the final messages come from: the address, the limit, what counted as evidence. */
export interface MessageContext {
  /** The app's address without credentials. */
  app: string
  /** `'wait-minutes' (30 min)`. */
  limit: string
  waitedMs: number
  build: ThisBuild
  evidence: Evidence
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
      return `Not verified: ${
        evidence.kind === 'none' && evidence.why === 'unknown-version'
          ? 'the expected version is unknown'
          : evidence.kind === 'none' && evidence.why === 'same-files'
            ? 'the app already served this build'
            : 'the version did not change'
      }`
    case 'timed-out':
      return 'Not live: timed out'
    case 'rolled-back':
      return 'Not live: rolled back'
  }
}

/**
 * What the step says at the end: the log line of a live app, the warning of an app that awaits
 * its promotion or cannot be verified, or the failure of the others.
 */
export function verdictMessage(verdict: Verdict, context: MessageContext): string {
  const { app, evidence, build } = context
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
      return `Not verified: the app at ${app} answers with a healthy status (${last}), but ${noEvidence(evidence, verdict)}. The deployment was accepted; whether the new build serves is for you to check. ${evidenceAdvice(build)}`
    case 'rolled-back':
      return `The rollout was rolled back: the app at ${app} served ${thisBuild} (first ${at(verdict.firstBuildAtMs ?? 0)} after the webhook's answer), then ${verdict.back?.version ?? ''} again on ${ROLLBACK_POLLS} polls in a row (since ${at(verdict.back?.sinceMs ?? 0)}). The platform may have rolled the new version back, or still send part of the traffic to the old one: check the deployment's status and the new version's logs on the platform.`
    case 'awaiting-promotion':
      return awaitingMessage(verdict, context)
    case 'timed-out':
      return timedOutMessage(verdict, context, thisBuild, `${waited}; ${last}`)
  }
}

function awaitingMessage(verdict: Verdict, context: MessageContext): string {
  const { app, limit, preview } = context
  const notYet = `The app at ${app} did not serve this build within ${limit}, and the promotion mode is manual`
  const seen = context.previewSeen ? ` (${context.previewSeen})` : ''
  switch (verdict.preview) {
    case 'this-build':
      return `${notYet}: the preview at ${preview ?? ''} serves this build${seen}. Promote it on the platform once it is validated to go live; the app still serves the previous one (last seen: ${verdict.lastSeen}).`
    case 'no-evidence':
      return `${notYet}: the preview at ${preview ?? ''} answers${seen}, but nothing tells this build from the one it served before the call, so whether it awaits a promotion is not verified. Promote it on the platform once it is validated. ${evidenceAdvice(context.build)}`
    default:
      return `${notYet}: the new version may be waiting for someone to promote it on the platform, or the rollout may never have reached the app; without 'preview-url' (the address where the platform serves the new version until it is promoted) the step cannot tell them apart (last seen: ${verdict.lastSeen}). Check the deployment on the platform, and promote it there once it is validated.`
  }
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
  return `The app at ${app} did not serve ${thisBuild} within ${limit} (waited ${waited}). The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform, and that 'app-url' is the address of this environment.${files}`
}

/** `+12 s`, `+2 min 5 s`, `+1 h 3 min`: how long after the webhook's answer. */
export function at(ms: number): string {
  return `+${formatElapsed(ms)}`
}

export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60)
    return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`
  const hours = Math.floor(minutes / 60)
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`
}
