import { describe, expect, test } from '@jest/globals'
import {
  formatElapsed,
  HEARTBEAT_MS,
  RolloutJudge,
  verdictMessage,
  type Observation,
  type Outcome,
  type RolloutSettings,
  type StatusAnswer,
  type VersionAnswer,
} from '../../../../src/core/deploy/rollout.js'

/**
 * One poll in a word: `1.4.0/200` (version and status), `1.4.0/500`, `1.4.0/404` (no route),
 * `1.4.0/-` (status not asked), `refused` or `503` (no version, tolerated), `401` (no version).
 */
function poll(word: string): Pick<Observation, 'version' | 'status'> {
  const [version = '', status = ''] = word.split('/')
  if (status === '') {
    const transient = word === 'refused' || word === '503' || word === 'html'
    const detail =
      word === 'refused'
        ? 'no answer: refused'
        : word === 'html'
          ? 'an HTML page'
          : `HTTP ${word} for version.json`
    return { version: { kind: 'none', detail, transient }, status: { kind: 'not-asked' } }
  }
  const answer: VersionAnswer = { kind: 'version', version }
  const said: StatusAnswer =
    status === '-'
      ? { kind: 'not-asked' }
      : status === '404'
        ? { kind: 'no-route' }
        : Number(status) < 300
          ? { kind: 'healthy', status: Number(status) }
          : { kind: 'unhealthy', detail: `HTTP ${status}` }
  return { version: answer, status: said }
}

const POLL_MS = 15_000

/** Feeds the polls 15 s apart (the first at 0 s); the verdict, when and the log. */
function judge(
  words: string[],
  settings: Partial<RolloutSettings> = {},
): {
  outcome?: Outcome
  poll?: number
  log: string[]
  ended: Outcome
  judge: RolloutJudge
  asked: boolean[]
} {
  const rollout = new RolloutJudge({ expected: '1.4.0', manualPromotion: false, ...settings })
  const log: string[] = []
  const asked: boolean[] = []
  for (const [index, word] of words.entries()) {
    asked.push(rollout.asksStatus)
    const step = rollout.observe({ atMs: index * POLL_MS, ...poll(word) })
    log.push(...step.log)
    if (step.verdict)
      return {
        outcome: step.verdict.outcome,
        poll: index + 1,
        log,
        ended: step.verdict.outcome,
        judge: rollout,
        asked,
      }
  }
  return { log, ended: rollout.end(words.length * POLL_MS).outcome, judge: rollout, asked }
}

describe('the rollout judge: verdicts', () => {
  test.each<
    [string, string[], Partial<RolloutSettings>, Outcome | undefined, number | undefined, Outcome]
  >([
    [
      'live on the second poll in a row',
      ['1.3.0/200', '1.4.0/200', '1.4.0/200'],
      {},
      'live',
      3,
      'live',
    ],
    [
      'one new answer is not live',
      ['1.3.0/200', '1.4.0/200'],
      {},
      undefined,
      undefined,
      'timed-out',
    ],
    [
      'never flips: timed out',
      ['1.3.0/200', '1.3.0/200', '1.3.0/200'],
      {},
      undefined,
      undefined,
      'timed-out',
    ],
    [
      '503 while it restarts, then new',
      ['1.3.0/200', '503', 'refused', '1.4.0/200', '1.4.0/200'],
      {},
      'live',
      5,
      'live',
    ],
    [
      'old and new in turn, then settled: live only once settled',
      ['1.3.0/200', '1.4.0/200', '1.3.0/200', '1.4.0/200', '1.3.0/200', '1.4.0/200', '1.4.0/200'],
      {},
      'live',
      7,
      'live',
    ],
    [
      'new once, then old for good: rolled back',
      ['1.4.0/200', '1.3.0/200', '1.3.0/200'],
      {},
      'rolled-back',
      3,
      'rolled-back',
    ],
    [
      'new, old once, new again: no roll-back',
      ['1.4.0/200', '1.3.0/200', '1.4.0/200', '1.4.0/200'],
      {},
      'live',
      4,
      'live',
    ],
    [
      'new, then down, then old twice: rolled back',
      ['1.4.0/500', '503', '1.3.0/200', '1.3.0/200'],
      {},
      'rolled-back',
      4,
      'rolled-back',
    ],
    [
      'status 500 beside the new version is never live',
      ['1.4.0/500', '1.4.0/500', '1.4.0/500'],
      {},
      undefined,
      undefined,
      'timed-out',
    ],
    [
      'no status route: the version decides',
      ['1.3.0/404', '1.4.0/-', '1.4.0/-'],
      {},
      'live',
      3,
      'live',
    ],
    [
      'a 404 from a status route seen before is unhealthy, not absent',
      ['1.4.0/200', '1.4.0/404', '1.4.0/404'],
      {},
      undefined,
      undefined,
      'timed-out',
    ],
    [
      'manual promotion, the new version never served: awaiting promotion',
      ['1.3.0/200', '1.3.0/200'],
      { manualPromotion: true },
      undefined,
      undefined,
      'awaiting-promotion',
    ],
    [
      'manual promotion, the new version served but unhealthy: timed out',
      ['1.4.0/500', '1.4.0/500'],
      { manualPromotion: true },
      undefined,
      undefined,
      'timed-out',
    ],
    [
      'manual promotion, promoted in time: live',
      ['1.3.0/200', '1.4.0/200', '1.4.0/200'],
      { manualPromotion: true },
      'live',
      3,
      'live',
    ],
    [
      'nothing expected: any healthy version twice is live',
      ['refused', '1.3.0/200', '1.3.0/200'],
      { expected: undefined },
      'live',
      3,
      'live',
    ],
    [
      'nothing expected, never answering: timed out',
      ['refused', '503'],
      { expected: undefined, manualPromotion: true },
      undefined,
      undefined,
      'timed-out',
    ],
    ['401 on every poll: timed out', ['401', '401'], {}, undefined, undefined, 'timed-out'],
  ])('%s', (_name, words, settings, outcome, atPoll, ended) => {
    const result = judge(words, settings)
    expect({ outcome: result.outcome, poll: result.poll, ended: result.ended }).toEqual({
      outcome,
      poll: atPoll,
      ended,
    })
  })

  test('a verdict is final: later polls change nothing', () => {
    const rollout = new RolloutJudge({ expected: '1.4.0', manualPromotion: false })
    rollout.observe({ atMs: 0, ...poll('1.4.0/200') })
    const live = rollout.observe({ atMs: 1000, ...poll('1.4.0/200') }).verdict
    expect(rollout.observe({ atMs: 2000, ...poll('1.3.0/200') })).toEqual({
      log: [],
      verdict: live,
    })
    expect(rollout.end(3000)).toBe(live)
  })
})

describe('the rollout judge: what it logs', () => {
  test('once per change of state, not once per poll; the status route said once', () => {
    const { log } = judge(
      ['1.3.0/404', '1.3.0/-', '503', '503', '503', 'refused', '1.4.0/-', '1.4.0/-'],
      {
        before: '1.3.0',
      },
    )
    expect(log).toEqual([
      '+0 s: /OlympeServer/status answers HTTP 404: this install has no status route, so the version alone decides from now on.',
      '+0 s: the app serves 1.3.0 (the version before this deployment); waiting for 1.4.0.',
      '+30 s: the app gives no version: HTTP 503 for version.json (tolerated while it restarts).',
      '+1 min 15 s: the app gives no version: no answer: refused (tolerated while it restarts).',
      '+1 min 30 s: the app serves 1.4.0, the expected version, no status route.',
      '+1 min 45 s: live: 1.4.0 served with a healthy status on 2 polls in a row.',
    ])
  })

  test('the status route is not asked once it proved absent', () => {
    const { asked } = judge(['1.3.0/404', '1.3.0/-', '1.4.0/-'])
    expect(asked).toEqual([true, false, false])
  })

  test('a 404 of the status route beside no version proves nothing', () => {
    const rollout = new RolloutJudge({ expected: '1.4.0', manualPromotion: false })
    rollout.observe({
      atMs: 0,
      version: { kind: 'none', detail: 'HTTP 503', transient: true },
      status: { kind: 'no-route' },
    })
    expect(rollout.asksStatus).toBe(true)
  })

  test('an unhealthy new version, and a roll-back, in words', () => {
    const { log } = judge(['1.4.0/500', '1.4.0/200', '1.3.0/200', '1.3.0/200'])
    expect(log).toEqual([
      '+0 s: the app serves 1.4.0, the expected version, but status HTTP 500: not live while it does.',
      '+15 s: the app serves 1.4.0, the expected version, status HTTP 200.',
      '+30 s: the app serves 1.3.0, after it served 1.4.0.',
      '+45 s: 1.3.0 came back on 2 polls in a row after 1.4.0 was served: rolled back.',
    ])
  })

  test('nothing new for a long time: a line every 5 minutes shows that it goes on', () => {
    const rollout = new RolloutJudge({ expected: '1.4.0', manualPromotion: false })
    const log: string[] = []
    for (let atMs = 0; atMs <= 2 * HEARTBEAT_MS; atMs += POLL_MS)
      log.push(...rollout.observe({ atMs, ...poll('1.3.0/200') }).log)
    expect(log).toEqual([
      '+0 s: the app serves 1.3.0; waiting for 1.4.0.',
      '+5 min: still watching; unchanged since +0 s: version 1.3.0, status HTTP 200.',
      '+10 min: still watching; unchanged since +5 min: version 1.3.0, status HTTP 200.',
    ])
  })

  test('the timeline: accepted, first new answer, live; the versions in the order served', () => {
    const { judge: rollout } = judge([
      '1.3.0/200',
      '503',
      '1.4.0/200',
      '1.3.0/200',
      '1.4.0/200',
      '1.4.0/200',
    ])
    expect(rollout.timeline).toEqual([
      { atMs: 0, text: 'accepted by the webhook' },
      { atMs: 30_000, text: 'first answer with 1.4.0' },
      { atMs: 75_000, text: 'live: 1.4.0' },
    ])
    expect(rollout.versions).toEqual(['1.3.0', '1.4.0'])
  })
})

describe('the final messages', () => {
  const context = {
    app: 'https://shop.example.com',
    limit: "'wait-minutes' (30 min)",
    waitedMs: 1_800_000,
  }

  test('timed out: the expected version, the last version and status seen, how long it waited', () => {
    const rollout = new RolloutJudge({ expected: '1.4.0', manualPromotion: false })
    rollout.observe({ atMs: 0, ...poll('1.3.0/200') })
    expect(verdictMessage(rollout.end(1_800_000), context)).toBe(
      "The app at https://shop.example.com did not serve 1.4.0 within 'wait-minutes' (30 min) (waited 30 min; last seen: version 1.3.0, status HTTP 200). The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform. Check too that 'app-url' is the address of this environment, and that the project's version was bumped before the images were built (the version must change for the new rollout to be told from the old one).",
    )
  })

  test('timed out on an app that stopped answering names the last version it served', () => {
    const rollout = new RolloutJudge({ expected: '1.4.0', manualPromotion: false })
    rollout.observe({ atMs: 0, ...poll('1.3.0/200') })
    rollout.observe({ atMs: 1000, ...poll('503') })
    expect(rollout.end(2000).lastSeen).toBe(
      'no version (HTTP 503 for version.json); the last version served was 1.3.0',
    )
  })

  test('rolled back, awaiting promotion, live', () => {
    const back = judge(['1.4.0/200', '1.3.0/200', '1.3.0/200']).judge.end(0)
    expect(verdictMessage(back, context)).toBe(
      "The rollout was rolled back: the app at https://shop.example.com served 1.4.0 (first +0 s after the webhook's answer), then 1.3.0 again on 2 polls in a row (since +15 s). The platform may have rolled the new version back, or still send part of the traffic to the old one: check the deployment's status and the new version's logs on the platform.",
    )
    const awaiting = judge(['1.3.0/200'], { manualPromotion: true }).judge.end(0)
    expect(verdictMessage(awaiting, context)).toBe(
      "The app at https://shop.example.com did not serve 1.4.0 within 'wait-minutes' (30 min), and the promotion mode is manual: the new version may be waiting for someone to promote it on the platform (last seen: version 1.3.0, status HTTP 200). Promote it there once it is validated; the step does not fail for this.",
    )
    const live = judge(['1.4.0/200', '1.4.0/200']).judge.end(0)
    expect(verdictMessage(live, context)).toBe(
      "The app at https://shop.example.com serves 1.4.0: live +15 s after the webhook's answer.",
    )
  })

  test.each([
    [0, '0 s'],
    [1499, '1 s'],
    [59_000, '59 s'],
    [60_000, '1 min'],
    [125_000, '2 min 5 s'],
    [3_600_000, '1 h'],
    [21_600_000, '6 h'],
    [3_780_000, '1 h 3 min'],
  ])('%i ms reads %s', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text)
  })
})
