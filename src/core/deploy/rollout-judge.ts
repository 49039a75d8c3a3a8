import type { Serving } from './evidence.js'
import { LIVE_POLLS, ROLLBACK_POLLS, type Outcome } from './outcomes.js'

/**
 * The rollout watch's judgement, without I/O: what each poll of the app saw goes in, the lines to
 * log and, once it can be told, the verdict come out. The poller (watch.ts) asks the app and
 * feeds it; the tests feed it tables. What `live`, `rolled-back` and the others take is in
 * outcomes.ts; what counts as this build, in evidence.ts.
 */

/** What `<app-url>/OlympeServer/status` gave; it is asked after each version read. */
export type StatusAnswer =
  | { kind: 'healthy'; status: number }
  | { kind: 'unhealthy'; detail: string }
  /** 404: the install may have no such route. */
  | { kind: 'no-route' }
  | { kind: 'not-asked' }

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
  /** A roll-back is told only once another build was served this long in a row (`poll-seconds`). */
  rollbackMs?: number
}

/** What the preview showed by the end (see watch.ts), for a manual promotion. */
export type PreviewState = 'this-build' | 'no-evidence' | 'not-this-build' | 'no-preview-url'

/**
 * What the app served at the end of a watch that timed out: `down`, no version; `unhealthy`, a
 * version with a failing status; `third`, a version neither this build nor the one served
 * before the call; `before-unknown`, another version, where what was served before the call is
 * unknown; `previous`, the build served before the call; `other`, anything else (this build's
 * version with another build's files, this build once…).
 */
export type Ending = 'down' | 'unhealthy' | 'third' | 'before-unknown' | 'previous' | 'other'

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
  /** For `rolled-back`: the version that came back, since when, and on how many polls. */
  back?: { version: string; sinceMs: number; polls: number }
  /** For `awaiting-promotion` and a manual promotion's other endings: what the preview showed. */
  preview?: PreviewState
  /** For `timed-out`: what the app served at the end. */
  ending?: Ending
  /** For `unverified` on this build's version: the files that could not be told, in words. */
  unsure?: string
}

export interface Step {
  log: string[]
  verdict?: Verdict
}

type State =
  | (Exclude<Serving, { kind: 'none' }> & { status: string; healthy: boolean })
  | Extract<Serving, { kind: 'none' }>

export class RolloutJudge {
  /** `present` once the status route answered 2xx: a 404 from it is then a failure. */
  private statusRoute: 'unknown' | 'present' | 'absent' = 'unknown'
  private lastKey: string | undefined
  private lastState: State | undefined
  private liveStreak = 0
  private sameStreak = 0
  private unsureStreak = 0
  private previousStreak = 0
  private backStreak = 0
  private backSinceMs = 0
  private firstBuildAtMs: number | undefined
  private firstAnswerAtMs: number | undefined
  private lastVersion: string | undefined
  private lastSeenText = 'no answer yet'
  private lastUnsure: string | undefined
  private verdict: Verdict | undefined
  /** What happened when: accepted, first new answer, live (or how it ended). */
  readonly timeline: TimelineEvent[] = [{ atMs: 0, text: 'accepted by the webhook' }]
  /** Every version served, in the order first seen. */
  readonly versions: string[] = []

  constructor(private readonly settings: RolloutSettings) {}

  private get subject(): string {
    return this.settings.subject ?? 'the app'
  }

  /** Whether this build was served at any poll. */
  get buildSeen(): boolean {
    return this.firstBuildAtMs !== undefined
  }

  /** Whether the next poll may give the verdict: worth asking soon. */
  get confirming(): boolean {
    return !this.verdict && (this.liveStreak > 0 || (this.sameStreak > 0 && !this.buildSeen))
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
    this.lastState = state
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
   * The verdict when the time is up without one. A manual promotion awaits only where the last
   * polls show the build served before the call, healthy (the platform keeps serving it until
   * the promotion), and the preview, when watched, serves this build.
   */
  end(atMs: number, preview: PreviewState = 'no-preview-url'): Verdict {
    if (this.verdict) return this.verdict
    const previousServes =
      this.settings.manualPromotion && !this.buildSeen && this.previousStreak >= LIVE_POLLS
    const outcome: Outcome =
      previousServes && (preview === 'this-build' || preview === 'no-preview-url')
        ? 'awaiting-promotion'
        : (previousServes && preview === 'no-evidence') || this.unsureStreak >= LIVE_POLLS
          ? 'unverified'
          : 'timed-out'
    const stopped = {
      'awaiting-promotion': 'stopped watching: awaiting promotion',
      unverified: 'stopped watching: not verified',
    } as Partial<Record<Outcome, string>>
    this.timeline.push({ atMs, text: stopped[outcome] ?? 'stopped watching: not live' })
    const verdict = this.made(outcome, atMs)
    if (this.settings.manualPromotion && !this.buildSeen) verdict.preview = preview
    if (outcome === 'timed-out') verdict.ending = this.ending()
    if (outcome === 'unverified' && !previousServes && this.lastUnsure)
      verdict.unsure = this.lastUnsure
    return (this.verdict = verdict)
  }

  private ending(): Ending {
    const state = this.lastState
    if (!state || state.kind === 'none') return 'down'
    if (!state.healthy) return 'unhealthy'
    if (state.kind !== 'other' || this.buildSeen) return 'other'
    if (state.previous) return 'previous'
    if (state.files) return 'other'
    return this.settings.before === undefined ? 'before-unknown' : 'third'
  }

  private noteStatusRoute({ serving, status }: Observation): string | undefined {
    if (serving.kind === 'none') return undefined
    if (status.kind === 'healthy') this.statusRoute = 'present'
    if (status.kind !== 'no-route' || this.statusRoute !== 'unknown') return undefined
    this.statusRoute = 'absent'
    return `${this.subject}'s /OlympeServer/status answers HTTP 404: this install seems to have no status route, so the version alone decides while it answers so (it is asked at every poll)`
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
        // A route that answered before and now says 404 is failing, not absent.
        return this.statusRoute === 'present'
          ? [false, 'status HTTP 404']
          : [true, 'no status route']
      case 'not-asked':
        return [false, 'status not asked']
    }
  }

  private seen(version: string): void {
    this.lastVersion = version
    if (!this.versions.includes(version)) this.versions.push(version)
  }

  private count(state: State, atMs: number): void {
    const healthy = state.kind !== 'none' && state.healthy
    const is = (...kinds: State['kind'][]): boolean => healthy && kinds.includes(state.kind)
    this.liveStreak = is('build') ? this.liveStreak + 1 : 0
    this.sameStreak = is('same', 'any') ? this.sameStreak + 1 : 0
    this.unsureStreak = is('unsure') ? this.unsureStreak + 1 : 0
    if (state.kind === 'unsure') this.lastUnsure = state.files
    const previous = is('other') && state.kind === 'other' && state.previous === true
    this.previousStreak = previous ? this.previousStreak + 1 : 0
    if (state.kind === 'build' && this.firstBuildAtMs === undefined) {
      this.firstBuildAtMs = atMs
      this.timeline.push({ atMs, text: `first answer with this build (${state.version})` })
    }
    if (is('same', 'any') && this.firstAnswerAtMs === undefined && state.kind !== 'none') {
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
    const backMs = atMs - this.backSinceMs
    if (this.backStreak >= ROLLBACK_POLLS && backMs >= (this.settings.rollbackMs ?? 0)) {
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
      verdict.back = {
        version: this.lastVersion,
        sinceMs: this.backSinceMs,
        polls: this.backStreak,
      }
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
        return version === before
          ? `serves ${version}, this build's version, as before the call${health}`
          : `serves ${version}, this build's version, but what it served before the call is unknown${health}`
      case 'unsure':
        return `serves ${version}, the expected version, but with ${state.files ?? ''}${health}`
      case 'other': {
        const what = state.files ? `${version} with ${state.files}` : version
        const earlier =
          state.previous && !state.files ? ' (the version before this deployment)' : ''
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
        return `${verdict.back?.version ?? ''} came back ${backed(verdict)} after this build was served: rolled back.`
    }
  }
}

/** `on 8 polls in a row over 15 s`: how long another build was served, for a roll-back. */
export function backed(verdict: Verdict): string {
  const polls = verdict.back?.polls ?? ROLLBACK_POLLS
  const sinceMs = verdict.back?.sinceMs ?? verdict.atMs
  return `on ${polls} polls in a row over ${formatElapsed(verdict.atMs - sinceMs)}`
}

/** The last answer as the final message names it: `version 1.3.0, status HTTP 200`. */
function compact(state: State): string {
  if (state.kind === 'none') return `no version (${state.detail})`
  const files = state.files ? ` with ${state.files}` : ''
  return `version ${state.version}${files}, ${state.status}`
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
