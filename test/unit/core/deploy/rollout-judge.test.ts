import { describe, expect, test } from '@jest/globals'
import {
  classify,
  type Evidence,
  type FileBefore,
  type ThisBuild,
} from '../../../../src/core/deploy/evidence.js'
import type { Outcome } from '../../../../src/core/deploy/outcomes.js'
import {
  formatElapsed,
  RolloutJudge,
  type Observation,
  type PreviewState,
  type RolloutSettings,
  type StatusAnswer,
  type Verdict,
} from '../../../../src/core/deploy/rollout-judge.js'
import type { FileAnswer, VersionAnswer } from '../../../../src/core/deploy/served-files-reader.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

const BUILD_JS = `sha256:${'b'.repeat(64)}`
const OLD_JS = `sha256:${'a'.repeat(64)}`
const REWRITTEN_JS = `sha256:${'c'.repeat(64)}`

/** What main.js served after the call, by the word after `+`. */
const SCRIPT: Record<string, FileAnswer> = {
  new: { kind: 'read', digest: BUILD_JS },
  old: { kind: 'read', digest: OLD_JS },
  rewritten: { kind: 'read', digest: REWRITTEN_JS },
  '404': { kind: 'none', detail: 'HTTP 404 for main.js', transient: false, nothing: true },
  '503': { kind: 'none', detail: 'HTTP 503 for main.js', transient: true },
}

/**
 * One poll in a word: `1.4.0/200` (version and status), `1.4.0/500`, `1.4.0/404` (no route),
 * `refused` or `503` (no version, tolerated), `401` (no version). With the served-files label,
 * `1.4.0+new/200` serves this build's main.js, `+old` the one before the call, `+rewritten` one
 * of neither, `+404` none, `+503` a restarting answer.
 */
function poll(
  word: string,
  build: ThisBuild,
  evidence: Evidence,
  before: string | undefined,
): Omit<Observation, 'atMs'> {
  const [served = '', status = ''] = word.split('/')
  if (status === '') {
    const transient = word === 'refused' || word === '503' || word === 'html'
    const detail =
      word === 'refused'
        ? 'no answer: refused'
        : word === 'html'
          ? 'an HTML page'
          : `HTTP ${word} for version.json`
    return {
      serving: classify(build, evidence, { kind: 'none', detail, transient }, before),
      status: { kind: 'not-asked' },
    }
  }
  const [version = '', js] = served.split('+')
  const answer: VersionAnswer = { kind: 'version', version }
  const script = js === undefined ? undefined : SCRIPT[js]
  const files: Record<string, FileAnswer> | undefined = script ? { 'main.js': script } : undefined
  const said: StatusAnswer =
    status === '404'
      ? { kind: 'no-route' }
      : Number(status) < 300
        ? { kind: 'healthy', status: Number(status) }
        : { kind: 'unhealthy', detail: `HTTP ${status}` }
  return { serving: classify(build, evidence, answer, before, files), status: said }
}

const POLL_MS = 15_000
const VERSION: Evidence = { kind: 'version' }
/** The labelled main.js, as it was before the call. */
const labelled = (was: FileBefore): { paths: string[]; before: Record<string, FileBefore> } => ({
  paths: ['main.js'],
  before: { 'main.js': was },
})
const OLD_BEFORE: FileBefore = { kind: 'digest', digest: OLD_JS }
const FILES: Evidence = { kind: 'files', ...labelled(OLD_BEFORE), differ: ['main.js'] }
/** The version changed; main.js is compared too, and was the old one before the call. */
const VERSION_FILES: Evidence = { kind: 'version', files: labelled(OLD_BEFORE) }
const VERSION_FILES_UNREAD: Evidence = {
  kind: 'version',
  files: labelled({ kind: 'unknown', detail: 'HTTP 503 for main.js' }),
}
const VERSION_FILES_NEW: Evidence = { kind: 'version', files: labelled({ kind: 'absent' }) }
const UNKNOWN: Evidence = { kind: 'none', why: 'unknown-version', detail: 'no label' }
const SAME_FILES: Evidence = { kind: 'none', why: 'same-files', detail: 'main.js' }
const UNKNOWN_BEFORE: Evidence = { kind: 'none', why: 'unknown-before', detail: 'HTTP 503' }

interface Case extends Partial<RolloutSettings> {
  evidence?: Evidence
  preview?: PreviewState
  /** Between two polls; 15 s unless said. */
  everyMs?: number
}

/**
 * Feeds the polls `everyMs` apart (the first at 0 s); the verdict, when and the log. Unless the
 * case says otherwise, this build is 1.4.0 and the app served 1.3.0 before the call (or, with
 * the files as evidence, 1.4.0).
 */
function judge(
  words: string[],
  settings: Case = {},
): {
  outcome?: Outcome
  poll?: number
  log: string[]
  ended: Outcome
  verdict: Verdict
  judge: RolloutJudge
} {
  const { evidence = VERSION, preview, everyMs = POLL_MS, ...rest } = settings
  const expected = 'expected' in rest ? rest.expected : '1.4.0'
  const before = 'before' in rest ? rest.before : evidence.kind === 'files' ? '1.4.0' : '1.3.0'
  const rollout = new RolloutJudge({ manualPromotion: false, ...rest, expected, before })
  const labels = evidence.kind === 'files' || (evidence.kind === 'version' && evidence.files)
  const build: ThisBuild = {
    ...(expected !== undefined ? { version: expected } : {}),
    ...(labels ? { files: { 'main.js': BUILD_JS } } : {}),
  }
  const log: string[] = []
  for (const [index, word] of words.entries()) {
    const step = rollout.observe({
      atMs: index * everyMs,
      ...poll(word, build, evidence, before),
    })
    log.push(...step.log)
    if (step.verdict)
      return {
        outcome: step.verdict.outcome,
        poll: index + 1,
        log,
        ended: step.verdict.outcome,
        verdict: step.verdict,
        judge: rollout,
      }
  }
  const verdict = rollout.end(words.length * everyMs, preview)
  return { log, ended: verdict.outcome, verdict, judge: rollout }
}

describe('the rollout judge: verdicts', () => {
  // Each row: the polls, the settings, how the watch ends and, when a verdict ends it before the
  // polls run out, at which poll (else the deadline ends it, with no verdict). The test takes its
  // arguments as one rest parameter: with a fifth named one, jest would call a row of four with a
  // `done` callback.
  test.each<[string, string[], Case, Outcome, number?]>([
    ['live on the second poll in a row', ['1.3.0/200', '1.4.0/200', '1.4.0/200'], {}, 'live', 3],
    ['one new answer is not live', ['1.3.0/200', '1.4.0/200'], {}, 'timed-out'],
    ['never flips: timed out', ['1.3.0/200', '1.3.0/200', '1.3.0/200'], {}, 'timed-out'],
    [
      '503 while it restarts, then new',
      ['1.3.0/200', '503', 'refused', '1.4.0/200', '1.4.0/200'],
      {},
      'live',
      5,
    ],
    [
      'old and new in turn, then settled: live only once settled',
      ['1.3.0/200', '1.4.0/200', '1.3.0/200', '1.4.0/200', '1.3.0/200', '1.4.0/200', '1.4.0/200'],
      {},
      'live',
      7,
    ],
    [
      'new once, then old for good: rolled back',
      ['1.4.0/200', '1.3.0/200', '1.3.0/200'],
      {},
      'rolled-back',
      3,
    ],
    [
      'new, old once, new again: no roll-back',
      ['1.4.0/200', '1.3.0/200', '1.4.0/200', '1.4.0/200'],
      {},
      'live',
      4,
    ],
    [
      'new, then down, then old twice: rolled back',
      ['1.4.0/500', '503', '1.3.0/200', '1.3.0/200'],
      {},
      'rolled-back',
      4,
    ],
    [
      'status 500 beside the new version is never live',
      ['1.4.0/500', '1.4.0/500', '1.4.0/500'],
      {},
      'timed-out',
    ],
    [
      'no status route: the version decides',
      ['1.3.0/404', '1.4.0/404', '1.4.0/404'],
      {},
      'live',
      3,
    ],
    [
      'a 404 from a status route seen before is unhealthy, not absent',
      ['1.4.0/200', '1.4.0/404', '1.4.0/404'],
      {},
      'timed-out',
    ],
    [
      'the status route judged by its last answers: an early 404, then 500s, is never live',
      ['1.4.0/404', '1.4.0/500', '1.4.0/500', '1.4.0/500'],
      {},
      'timed-out',
    ],
    [
      'the status route judged by its last answers: an early 404, then 200s: live',
      ['1.4.0/404', '1.4.0/500', '1.4.0/200', '1.4.0/200'],
      {},
      'live',
      4,
    ],
    [
      'manual promotion, the build before served healthy on the last two polls: awaiting promotion',
      ['503', '1.3.0/200', '1.3.0/200'],
      { manualPromotion: true },
      'awaiting-promotion',
    ],
    [
      'manual promotion, the build before once at the end: timed out',
      ['1.3.0/200', '1.3.0/500', '1.3.0/200'],
      { manualPromotion: true },
      'timed-out',
    ],
    [
      'manual promotion, errors at the end: timed out, not awaiting',
      ['1.3.0/200', '1.3.0/200', '502', '502'],
      { manualPromotion: true },
      'timed-out',
    ],
    [
      'manual promotion, a third version at the end: timed out, not awaiting',
      ['1.3.0/200', '1.5.0/200', '1.5.0/200'],
      { manualPromotion: true },
      'timed-out',
    ],
    [
      'manual promotion, what was served before the call unknown: timed out, not awaiting',
      ['1.3.0/200', '1.3.0/200'],
      { manualPromotion: true, before: undefined },
      'timed-out',
    ],
    [
      'manual promotion, the new version served but unhealthy: timed out',
      ['1.4.0/500', '1.4.0/500'],
      { manualPromotion: true },
      'timed-out',
    ],
    [
      'manual promotion, promoted in time: live',
      ['1.3.0/200', '1.4.0/200', '1.4.0/200'],
      { manualPromotion: true },
      'live',
      3,
    ],
    [
      'nothing expected: any healthy version twice is unverified, never live',
      ['refused', '1.3.0/200', '1.3.0/200'],
      { expected: undefined, evidence: UNKNOWN },
      'unverified',
      3,
    ],
    [
      'nothing expected, never answering: timed out',
      ['refused', '503'],
      { expected: undefined, evidence: UNKNOWN, manualPromotion: true },
      'timed-out',
    ],
    [
      'manual promotion, the app down all along: timed out, not awaiting',
      ['503', '503'],
      { manualPromotion: true },
      'timed-out',
    ],
    [
      'manual promotion, the preview serves this build: awaiting promotion',
      ['1.3.0/200', '1.3.0/200'],
      { manualPromotion: true, preview: 'this-build' },
      'awaiting-promotion',
    ],
    [
      'manual promotion, the preview serves this build, the app down at the end: timed out',
      ['1.3.0/200', '1.3.0/200', '502', '502'],
      { manualPromotion: true, preview: 'this-build' },
      'timed-out',
    ],
    [
      'manual promotion, the preview answers but cannot be told apart: unverified',
      ['1.3.0/200', '1.3.0/200'],
      { manualPromotion: true, preview: 'no-evidence' },
      'unverified',
    ],
    [
      'manual promotion, the preview never served this build: timed out',
      ['1.3.0/200', '1.3.0/200'],
      { manualPromotion: true, preview: 'not-this-build' },
      'timed-out',
    ],
    [
      "the version unchanged, main.js changed: live on this build's main.js twice",
      ['1.4.0+old/200', '1.4.0+old/200', '1.4.0+new/200', '1.4.0+new/200'],
      { evidence: FILES },
      'live',
      4,
    ],
    [
      'the version unchanged, the old main.js all along: never live',
      ['1.4.0+old/200', '1.4.0+old/200', '1.4.0+old/200'],
      { evidence: FILES },
      'timed-out',
    ],
    [
      "the version unchanged, this build's main.js once, then the old one: rolled back",
      ['1.4.0+new/200', '1.4.0+old/200', '1.4.0+old/200'],
      { evidence: FILES },
      'rolled-back',
      3,
    ],
    [
      'the app already served these very files: unverified on the second healthy poll',
      ['1.4.0/500', '1.4.0/200', '1.4.0/200'],
      { evidence: SAME_FILES },
      'unverified',
      3,
    ],
    [
      'nothing to tell it apart, another version served: never unverified, timed out',
      ['1.3.0/200', '1.3.0/200'],
      { evidence: SAME_FILES },
      'timed-out',
    ],
    [
      'what was served before the call unknown, no label: the expected version is unverified',
      ['503', '1.4.0/200', '1.4.0/200'],
      { evidence: UNKNOWN_BEFORE, before: undefined },
      'unverified',
      3,
    ],
    [
      "the version changed, main.js still served as before the call: this build's version is not live",
      ['1.4.0+old/200', '1.4.0+old/200', '1.4.0+old/200'],
      { evidence: VERSION_FILES },
      'timed-out',
    ],
    [
      "the version changed, main.js as before the call, then this build's: live",
      ['1.3.0/200', '1.4.0+old/200', '1.4.0+new/200', '1.4.0+new/200'],
      { evidence: VERSION_FILES },
      'live',
      4,
    ],
    [
      'the version changed, main.js neither as built nor as before the call (rewritten): live',
      ['1.4.0+rewritten/200', '1.4.0+rewritten/200'],
      { evidence: VERSION_FILES },
      'live',
      2,
    ],
    [
      'the version changed, main.js unread before the call and not as built: unverified at the end',
      ['1.4.0+rewritten/200', '1.4.0+rewritten/200', '1.4.0+rewritten/200'],
      { evidence: VERSION_FILES_UNREAD },
      'unverified',
    ],
    [
      'the version changed, main.js unread before the call, then as built: live',
      ['1.4.0+rewritten/200', '1.4.0+new/200', '1.4.0+new/200'],
      { evidence: VERSION_FILES_UNREAD },
      'live',
      3,
    ],
    [
      'the version changed, main.js not served after the call (404): the version decides, live',
      ['1.4.0+404/200', '1.4.0+404/200'],
      { evidence: VERSION_FILES_NEW },
      'live',
      2,
    ],
    [
      'a labelled file answering 503: restarting, not another build',
      ['1.4.0+503/200', '1.4.0+new/200', '1.4.0+new/200'],
      { evidence: VERSION_FILES },
      'live',
      3,
    ],
    [
      'manual promotion, the version unchanged, the build before on its files: awaiting promotion',
      ['1.4.0+old/200', '1.4.0+old/200'],
      { evidence: FILES, manualPromotion: true },
      'awaiting-promotion',
    ],
    [
      'manual promotion, the version unchanged, a third build on its files: timed out',
      ['1.4.0+rewritten/200', '1.4.0+rewritten/200'],
      { evidence: FILES, manualPromotion: true },
      'timed-out',
    ],
    ['401 on every poll: timed out', ['401', '401'], {}, 'timed-out'],
  ])('%s', (...[, words, settings, ended, atPoll]) => {
    const result = judge(words, settings)
    expect({ outcome: result.outcome, poll: result.poll, ended: result.ended }).toEqual({
      outcome: atPoll === undefined ? undefined : ended,
      poll: atPoll,
      ended,
    })
  })

  test('a verdict is final: later polls change nothing', () => {
    const rollout = new RolloutJudge({ expected: '1.4.0', manualPromotion: false })
    const build = { version: '1.4.0' }
    const seen = (word: string): Omit<Observation, 'atMs'> => poll(word, build, VERSION, '1.3.0')
    rollout.observe({ atMs: 0, ...seen('1.4.0/200') })
    const live = rollout.observe({ atMs: 1000, ...seen('1.4.0/200') }).verdict
    expect(rollout.observe({ atMs: 2000, ...seen('1.3.0/200') })).toEqual({
      log: [],
      verdict: live,
    })
    expect(rollout.end(3000)).toBe(live)
  })

  test.each<[string, string[], Verdict['ending']]>([
    ['no version', ['1.3.0/200', '502'], 'down'],
    ['a failing status', ['1.3.0/200', '1.3.0/500'], 'unhealthy'],
    ['a third version', ['1.3.0/200', '1.5.0/200'], 'third'],
    ['the build before', ['1.3.0/200', '1.3.0/200'], 'previous'],
  ])('timed out on %s at the end: said in the verdict', (_name, words, ending) => {
    expect(judge(words).verdict).toMatchObject({ outcome: 'timed-out', ending })
  })
})

describe('the rollout judge: quick polls', () => {
  // Polls 2 s apart, `poll-seconds` 15: the rate of the watch's first minute.
  const QUICK = { everyMs: 2000, rollbackMs: 15_000 }

  test('live on the poll right after the first new answer', () => {
    const result = judge(['1.3.0/200', '1.3.0/200', '1.4.0/200', '1.4.0/200'], QUICK)
    expect({ outcome: result.outcome, poll: result.poll }).toEqual({ outcome: 'live', poll: 4 })
  })

  test('a rolling update: old answers for less than poll-seconds are no roll-back', () => {
    const old = Array.from({ length: 7 }, () => '1.3.0/200')
    const result = judge(['1.4.0/200', ...old, '1.4.0/200', '1.4.0/200'], QUICK)
    // The old build for 12 s (+2 s to +14 s), under 15 s.
    expect({ outcome: result.outcome, poll: result.poll }).toEqual({ outcome: 'live', poll: 10 })
  })

  test('the old build for poll-seconds after this one: rolled back, saying over how long', () => {
    const old = Array.from({ length: 12 }, () => '1.3.0/200')
    const result = judge(['1.4.0/200', ...old], QUICK)
    // The old build from +2 s: rolled back at the first poll 15 s later (+18 s, poll 10).
    expect({ outcome: result.outcome, poll: result.poll }).toEqual({
      outcome: 'rolled-back',
      poll: 10,
    })
    expect(result.verdict.back).toEqual({ version: '1.3.0', sinceMs: 2000, polls: 9 })
    expect(result.log.at(-1)).toBe(
      '+18 s: 1.3.0 came back on 9 polls in a row over 16 s after this build was served: rolled back.',
    )
  })

  test('confirming: after a first new answer, and until it is confirmed or lost', () => {
    const rollout = new RolloutJudge({ expected: '1.4.0', before: '1.3.0', manualPromotion: false })
    const build = { version: '1.4.0' }
    const seen = (word: string): Omit<Observation, 'atMs'> => poll(word, build, VERSION, '1.3.0')
    const confirming = ['1.3.0/200', '1.4.0/200', '1.3.0/200', '1.4.0/200'].map((word, index) => {
      rollout.observe({ atMs: index * 2000, ...seen(word) })
      return rollout.confirming
    })
    expect(confirming).toEqual([false, true, false, true])
    rollout.observe({ atMs: 8000, ...seen('1.4.0/200') })
    expect(rollout.confirming).toBe(false)
  })
})

describe('the rollout judge: what it logs', () => {
  test('once per change of state, not once per poll; the status route said once', () => {
    const { log } = judge(
      ['1.3.0/404', '1.3.0/404', '503', '503', '503', 'refused', '1.4.0/404', '1.4.0/404'],
      {
        before: '1.3.0',
      },
    )
    expect(log).toEqual([
      "+0 s: the app's /OlympeServer/status answers HTTP 404: this install seems to have no status route, so the version alone decides while it answers so (it is asked at every poll).",
      '+0 s: the app serves 1.3.0 (the version before this deployment); waiting for 1.4.0.',
      '+30 s: the app gives no version: HTTP 503 for version.json (tolerated while it restarts).',
      '+1 min 15 s: the app gives no version: no answer: refused (tolerated while it restarts).',
      '+1 min 30 s: the app serves 1.4.0, the expected version, no status route.',
      '+1 min 45 s: live: this build (1.4.0) served with a healthy status on 2 polls in a row.',
    ])
  })

  test('the status route: a 404 said once, then what its later answers say', () => {
    const { log } = judge(['1.3.0/404', '1.4.0/404', '1.4.0/500', '1.4.0/200', '1.4.0/200'])
    expect(log).toEqual([
      "+0 s: the app's /OlympeServer/status answers HTTP 404: this install seems to have no status route, so the version alone decides while it answers so (it is asked at every poll).",
      '+0 s: the app serves 1.3.0 (the version before this deployment); waiting for 1.4.0.',
      '+15 s: the app serves 1.4.0, the expected version, no status route.',
      '+30 s: the app serves 1.4.0, the expected version, but status HTTP 500: not live while it does.',
      '+45 s: the app serves 1.4.0, the expected version, status HTTP 200.',
      '+1 min: live: this build (1.4.0) served with a healthy status on 2 polls in a row.',
    ])
  })

  test('an unhealthy new version, and a roll-back, in words', () => {
    const { log } = judge(['1.4.0/500', '1.4.0/200', '1.3.0/200', '1.3.0/200'])
    expect(log).toEqual([
      '+0 s: the app serves 1.4.0, the expected version, but status HTTP 500: not live while it does.',
      '+15 s: the app serves 1.4.0, the expected version, status HTTP 200.',
      '+30 s: the app serves 1.3.0 (the version before this deployment), after it served 1.4.0.',
      '+45 s: 1.3.0 came back on 2 polls in a row over 15 s after this build was served: rolled back.',
    ])
  })

  test("this build's files, in words: what differs, what matches", () => {
    const { log } = judge(['1.4.0+old/200', '1.3.0/200', '1.4.0+new/200', '1.4.0+new/200'], {
      evidence: FILES,
      before: '1.4.0',
    })
    expect(log).toEqual([
      "+0 s: the app serves 1.4.0 with another build's main.js; waiting for this build.",
      '+15 s: the app serves 1.3.0; waiting for 1.4.0.',
      '+30 s: the app serves this build: 1.4.0, with main.js as built, status HTTP 200.',
      '+45 s: live: this build (1.4.0) served with a healthy status on 2 polls in a row.',
    ])
  })

  test('the preview, in its own words', () => {
    const { log } = judge(['1.3.0/404', '1.4.0/404', '1.4.0/404'], {
      subject: 'the preview',
      before: undefined,
    })
    expect(log).toEqual([
      "+0 s: the preview's /OlympeServer/status answers HTTP 404: this install seems to have no status route, so the version alone decides while it answers so (it is asked at every poll).",
      '+0 s: the preview serves 1.3.0; waiting for 1.4.0.',
      '+15 s: the preview serves 1.4.0, the expected version, no status route.',
      '+30 s: live: this build (1.4.0) served with a healthy status on 2 polls in a row.',
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
      { atMs: 30_000, text: 'first answer with this build (1.4.0)' },
      { atMs: 75_000, text: 'live: 1.4.0' },
    ])
    expect(rollout.versions).toEqual(['1.3.0', '1.4.0'])
  })
})

describe('the rollout judge: files as evidence, in words', () => {
  test('the version changed, main.js as before the call, then rewritten: said each time', () => {
    const { log } = judge(['1.4.0+old/200', '1.4.0+rewritten/200', '1.4.0+rewritten/200'], {
      evidence: VERSION_FILES,
    })
    expect(log).toEqual([
      '+0 s: the app serves 1.4.0 with main.js as served before the call; waiting for this build.',
      '+15 s: the app serves this build: 1.4.0, with main.js rewritten (neither as built nor as before the call), status HTTP 200.',
      '+30 s: live: this build (1.4.0) served with a healthy status on 2 polls in a row.',
    ])
  })

  test('main.js unread before the call and not as built: said, then unverified', () => {
    const { log, verdict } = judge(['1.4.0+rewritten/200', '1.4.0+rewritten/200'], {
      evidence: VERSION_FILES_UNREAD,
    })
    expect(log).toEqual([
      '+0 s: the app serves 1.4.0, the expected version, but with main.js neither as built nor as before the call (unread then), status HTTP 200.',
    ])
    expect(verdict).toMatchObject({
      outcome: 'unverified',
      unsure: 'main.js neither as built nor as before the call (unread then)',
    })
  })

  test('what was served before the call unknown: the version alone is no evidence', () => {
    const { log } = judge(['1.4.0/200', '1.4.0/200'], {
      evidence: UNKNOWN_BEFORE,
      before: undefined,
    })
    expect(log).toEqual([
      "+0 s: the app serves 1.4.0, this build's version, but what it served before the call is unknown, status HTTP 200.",
      '+15 s: the app answers with a healthy status on 2 polls in a row, but nothing tells this build from the one before: not verified.',
    ])
  })
})

eachAnswer('%i ms reads %s', formatElapsed, [
  [0, '0 s'],
  [1499, '1 s'],
  [59_000, '59 s'],
  [60_000, '1 min'],
  [125_000, '2 min 5 s'],
  [3_600_000, '1 h'],
  [21_600_000, '6 h'],
  [3_780_000, '1 h 3 min'],
])
