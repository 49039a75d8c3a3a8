/**
 * The rollout watch's judgement, without I/O: what each poll of the app saw goes in, the lines to
 * log and, once it can be told, the verdict come out. The poller (watch.ts) asks the app and
 * feeds it; the tests feed it tables.
 *
 * Live means the expected version with a healthy status on LIVE_POLLS polls in a row: a rolling
 * update behind a load balancer answers old and new in turn, which is not live yet. Rolled back
 * means the expected version was served, then another one on ROLLBACK_POLLS polls in a row.
 */
export const LIVE_POLLS = 2
export const ROLLBACK_POLLS = 2
/** With nothing new to say, a line this often shows that the watch goes on. */
export const HEARTBEAT_MS = 5 * 60_000

/** What `<app-url>/version.json` gave. */
export type VersionAnswer =
  | { kind: 'version'; version: string }
  /** No version: `transient` when it is what a restarting app answers (refused, 502-504, HTML…). */
  | { kind: 'none'; detail: string; transient: boolean }

/** What `<app-url>/OlympeServer/status` gave; it is asked only after a version. */
export type StatusAnswer =
  | { kind: 'healthy'; status: number }
  | { kind: 'unhealthy'; detail: string }
  /** 404: the install may have no such route. */
  | { kind: 'no-route' }
  | { kind: 'not-asked' }

export interface Observation {
  /** Milliseconds since the webhook accepted the deployment. */
  atMs: number
  version: VersionAnswer
  status: StatusAnswer
}

export interface RolloutSettings {
  /** The version the app must serve; unknown: only that it answers is watched. */
  expected?: string
  /** The version served before the call, when it could be read. */
  before?: string
  /** `promotion-mode: manual`: the platform may wait for someone to promote the new version. */
  manualPromotion: boolean
}

export type Outcome = 'live' | 'awaiting-promotion' | 'timed-out' | 'rolled-back'
/** The `rollout` output's values. */
export const ROLLOUT_OUTPUTS = [
  'live',
  'awaiting-promotion',
  'timed-out',
  'rolled-back',
  'not-watched',
] as const

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
  /** When the expected version was first served. */
  firstExpectedAtMs?: number
  /** For `rolled-back`: the version that came back, and since when. */
  back?: { version: string; sinceMs: number }
}

export interface Step {
  log: string[]
  verdict?: Verdict
}

/** One poll's answer, judged: the expected version, another one, any (nothing expected), none. */
type State =
  | { kind: 'expected' | 'other' | 'any'; version: string; status: string; healthy: boolean }
  | { kind: 'none'; detail: string; transient: boolean }

export class RolloutJudge {
  /** `absent` once the status route answered 404 beside a version: the version alone decides. */
  private statusRoute: 'unknown' | 'present' | 'absent' = 'unknown'
  private lastKey: string | undefined
  private lastLogMs = 0
  private liveStreak = 0
  private backStreak = 0
  private backSinceMs = 0
  private firstExpectedAtMs: number | undefined
  private firstAnswerAtMs: number | undefined
  private lastVersion: string | undefined
  private lastSeen = 'no answer yet'
  private verdict: Verdict | undefined
  /** What happened when: accepted, first new answer, live (or how it ended). */
  readonly timeline: TimelineEvent[] = [{ atMs: 0, text: 'accepted by the webhook' }]
  /** Every version served, in the order first seen. */
  readonly versions: string[] = []

  constructor(private readonly settings: RolloutSettings) {}

  /** Whether a poll asks the status route: not once it proved absent. */
  get asksStatus(): boolean {
    return this.statusRoute !== 'absent'
  }

  observe(observation: Observation): Step {
    if (this.verdict) return { log: [], verdict: this.verdict }
    const { atMs } = observation
    const log: string[] = []
    const note = this.noteStatusRoute(observation)
    if (note) log.push(`${at(atMs)}: ${note}.`)
    const state = this.stateOf(observation)
    this.lastSeen = compact(state)
    if (state.kind === 'none' && this.lastVersion !== undefined)
      this.lastSeen += `; the last version served was ${this.lastVersion}`
    const key = JSON.stringify(state)
    if (key !== this.lastKey) {
      log.push(
        `${at(atMs)}: ${describe(state, this.settings, this.firstExpectedAtMs !== undefined)}.`,
      )
      this.lastKey = key
      this.lastLogMs = atMs
    } else if (atMs - this.lastLogMs >= HEARTBEAT_MS) {
      log.push(
        `${at(atMs)}: still watching; unchanged since ${at(this.lastLogMs)}: ${this.lastSeen}.`,
      )
      this.lastLogMs = atMs
    }
    if (state.kind !== 'none') this.seen(state.version)
    this.count(state, atMs)
    const verdict = this.decide(atMs)
    if (verdict) log.push(`${at(atMs)}: ${verdictLine(verdict)}`)
    return verdict ? { log, verdict } : { log }
  }

  /** The verdict when the time is up without one: waiting for a promotion, or timed out. */
  end(atMs: number): Verdict {
    if (this.verdict) return this.verdict
    const { expected, manualPromotion } = this.settings
    const awaiting =
      expected !== undefined && manualPromotion && this.firstExpectedAtMs === undefined
    const outcome = awaiting ? 'awaiting-promotion' : 'timed-out'
    this.timeline.push({
      atMs,
      text: awaiting ? 'stopped watching: awaiting promotion' : 'stopped watching: not live',
    })
    return (this.verdict = this.made(outcome, atMs))
  }

  private noteStatusRoute({ version, status }: Observation): string | undefined {
    if (version.kind !== 'version') return undefined
    if (status.kind === 'healthy') this.statusRoute = 'present'
    if (status.kind !== 'no-route' || this.statusRoute !== 'unknown') return undefined
    this.statusRoute = 'absent'
    return '/OlympeServer/status answers HTTP 404: this install has no status route, so the version alone decides from now on'
  }

  private stateOf({ version, status }: Observation): State {
    if (version.kind === 'none')
      return { kind: 'none', detail: version.detail, transient: version.transient }
    const { expected } = this.settings
    const kind =
      expected === undefined ? 'any' : version.version === expected ? 'expected' : 'other'
    const [healthy, said] = this.health(status)
    return { kind, version: version.version, status: said, healthy }
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
    const candidate = serving && (state.kind === 'expected' || state.kind === 'any')
    this.liveStreak = candidate ? this.liveStreak + 1 : 0
    if (state.kind === 'expected' && this.firstExpectedAtMs === undefined) {
      this.firstExpectedAtMs = atMs
      this.timeline.push({ atMs, text: `first answer with ${state.version}` })
    }
    if (state.kind === 'any' && this.firstAnswerAtMs === undefined && state.healthy) {
      this.firstAnswerAtMs = atMs
      this.timeline.push({ atMs, text: `first answer (version ${state.version})` })
    }
    const back = state.kind === 'other' && this.firstExpectedAtMs !== undefined
    if (back && this.backStreak === 0) this.backSinceMs = atMs
    this.backStreak = back ? this.backStreak + 1 : 0
  }

  private decide(atMs: number): Verdict | undefined {
    if (this.liveStreak >= LIVE_POLLS) {
      this.timeline.push({ atMs, text: `live: ${this.lastVersion ?? ''}` })
      return (this.verdict = this.made('live', atMs))
    }
    if (this.backStreak >= ROLLBACK_POLLS) {
      this.timeline.push({ atMs, text: `rolled back: ${this.lastVersion ?? ''} again` })
      return (this.verdict = this.made('rolled-back', atMs))
    }
    return undefined
  }

  private made(outcome: Outcome, atMs: number): Verdict {
    const verdict: Verdict = { outcome, atMs, lastSeen: this.lastSeen }
    if (this.settings.expected !== undefined) verdict.expected = this.settings.expected
    if (this.lastVersion !== undefined) verdict.lastVersion = this.lastVersion
    if (this.firstExpectedAtMs !== undefined) verdict.firstExpectedAtMs = this.firstExpectedAtMs
    if (outcome === 'rolled-back' && this.lastVersion !== undefined)
      verdict.back = { version: this.lastVersion, sinceMs: this.backSinceMs }
    return verdict
  }
}

/** The last answer as the final message names it: `version 1.3.0, status HTTP 200`. */
function compact(state: State): string {
  if (state.kind === 'none') return `no version (${state.detail})`
  return `version ${state.version}, ${state.status}`
}

function describe(state: State, settings: RolloutSettings, expectedSeen: boolean): string {
  if (state.kind === 'none')
    return `the app gives no version: ${state.detail}${state.transient ? ' (tolerated while it restarts)' : ''}`
  const { version, status, healthy } = state
  const health = healthy ? `, ${status}` : `, but ${status}: not live while it does`
  if (state.kind === 'any') return `the app answers with version ${version}${health}`
  if (state.kind === 'expected') return `the app serves ${version}, the expected version${health}`
  const before = version === settings.before ? ' (the version before this deployment)' : ''
  const waiting = expectedSeen
    ? `, after it served ${settings.expected ?? ''}`
    : `; waiting for ${settings.expected ?? ''}`
  return `the app serves ${version}${before}${waiting}`
}

function verdictLine(verdict: Verdict): string {
  if (verdict.outcome === 'live')
    return `live: ${verdict.lastVersion ?? ''} served with a healthy status on ${LIVE_POLLS} polls in a row.`
  return `${verdict.back?.version ?? ''} came back on ${ROLLBACK_POLLS} polls in a row after ${verdict.expected ?? ''} was served: rolled back.`
}

/**
 * What the step says at the end: the log line of a live app, the warning of an app that awaits
 * its promotion, or the failure of the others. `app` is the address without credentials,
 * `limit` names `wait-minutes`.
 */
export function verdictMessage(
  verdict: Verdict,
  context: { app: string; limit: string; waitedMs: number },
): string {
  const { app, limit } = context
  const waited = formatElapsed(context.waitedMs)
  const last = `last seen: ${verdict.lastSeen}`
  switch (verdict.outcome) {
    case 'live':
      return verdict.expected === undefined
        ? `The app at ${app} answers with version ${verdict.lastVersion ?? ''} and a healthy status (${at(verdict.atMs)} after the webhook's answer). The expected version was unknown, so this does not prove that the new version serves.`
        : `The app at ${app} serves ${verdict.expected}: live ${at(verdict.atMs)} after the webhook's answer.`
    case 'rolled-back':
      return `The rollout was rolled back: the app at ${app} served ${verdict.expected ?? ''} (first ${at(verdict.firstExpectedAtMs ?? 0)} after the webhook's answer), then ${verdict.back?.version ?? ''} again on ${ROLLBACK_POLLS} polls in a row (since ${at(verdict.back?.sinceMs ?? 0)}). The platform may have rolled the new version back, or still send part of the traffic to the old one: check the deployment's status and the new version's logs on the platform.`
    case 'awaiting-promotion':
      return `The app at ${app} did not serve ${verdict.expected ?? ''} within ${limit}, and the promotion mode is manual: the new version may be waiting for someone to promote it on the platform (${last}). Promote it there once it is validated; the step does not fail for this.`
    case 'timed-out':
      return verdict.expected === undefined
        ? `The app at ${app} did not answer with a version and a healthy status within ${limit} (waited ${waited}; ${last}). Check that 'app-url' is the address of this environment's frontend, and the deployment's status on the platform.`
        : `The app at ${app} did not serve ${verdict.expected} within ${limit} (waited ${waited}; ${last}). The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform. Check too that 'app-url' is the address of this environment, and that the project's version was bumped before the images were built (the version must change for the new rollout to be told from the old one).`
  }
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
