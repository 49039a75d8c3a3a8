import { describe, expect, test } from '@jest/globals'
import { classify, type Evidence, type ThisBuild } from '../../../../src/core/deploy/evidence.js'
import type { Outcome } from '../../../../src/core/deploy/outcomes.js'
import {
  evidenceAdvice,
  formatElapsed,
  headline,
  RolloutJudge,
  verdictMessage,
  type MessageContext,
  type Observation,
  type PreviewState,
  type RolloutSettings,
  type StatusAnswer,
  type VersionAnswer,
} from '../../../../src/core/deploy/rollout.js'
import type { FileAnswer } from '../../../../src/core/deploy/served.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

const BUILD_JS = `sha256:${'b'.repeat(64)}`
const OLD_JS = `sha256:${'a'.repeat(64)}`

/**
 * One poll in a word: `1.4.0/200` (version and status), `1.4.0/500`, `1.4.0/404` (no route),
 * `1.4.0/-` (status not asked), `refused` or `503` (no version, tolerated), `401` (no version).
 * With files as the evidence, `1.4.0+new/200` serves this build's main.js, `1.4.0+old/200` the
 * one before.
 */
function poll(word: string, build: ThisBuild, evidence: Evidence): Omit<Observation, 'atMs'> {
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
      serving: classify(build, evidence, { kind: 'none', detail, transient }),
      status: { kind: 'not-asked' },
    }
  }
  const [version = '', js] = served.split('+')
  const answer: VersionAnswer = { kind: 'version', version }
  const files: Record<string, FileAnswer> | undefined = js
    ? { 'main.js': { kind: 'read', digest: js === 'new' ? BUILD_JS : OLD_JS } }
    : undefined
  const said: StatusAnswer =
    status === '-'
      ? { kind: 'not-asked' }
      : status === '404'
        ? { kind: 'no-route' }
        : Number(status) < 300
          ? { kind: 'healthy', status: Number(status) }
          : { kind: 'unhealthy', detail: `HTTP ${status}` }
  return { serving: classify(build, evidence, answer, files), status: said }
}

const POLL_MS = 15_000
const VERSION: Evidence = { kind: 'version' }
const FILES: Evidence = { kind: 'files', paths: ['main.js'], differ: ['main.js'] }
const UNKNOWN: Evidence = { kind: 'none', why: 'unknown-version', detail: 'no label' }
const SAME_FILES: Evidence = { kind: 'none', why: 'same-files', detail: 'main.js' }

interface Case extends Partial<RolloutSettings> {
  evidence?: Evidence
  preview?: PreviewState
}

/** Feeds the polls 15 s apart (the first at 0 s); the verdict, when and the log. */
function judge(
  words: string[],
  settings: Case = {},
): {
  outcome?: Outcome
  poll?: number
  log: string[]
  ended: Outcome
  judge: RolloutJudge
  asked: boolean[]
} {
  const { evidence = VERSION, preview, ...rest } = settings
  const expected = 'expected' in rest ? rest.expected : '1.4.0'
  const rollout = new RolloutJudge({ manualPromotion: false, ...rest, expected })
  const build: ThisBuild = {
    ...(expected !== undefined ? { version: expected } : {}),
    ...(evidence.kind === 'files' ? { files: { 'main.js': BUILD_JS } } : {}),
  }
  const log: string[] = []
  const asked: boolean[] = []
  for (const [index, word] of words.entries()) {
    asked.push(rollout.asksStatus)
    const step = rollout.observe({ atMs: index * POLL_MS, ...poll(word, build, evidence) })
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
  return {
    log,
    ended: rollout.end(words.length * POLL_MS, preview).outcome,
    judge: rollout,
    asked,
  }
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
    ['no status route: the version decides', ['1.3.0/404', '1.4.0/-', '1.4.0/-'], {}, 'live', 3],
    [
      'a 404 from a status route seen before is unhealthy, not absent',
      ['1.4.0/200', '1.4.0/404', '1.4.0/404'],
      {},
      'timed-out',
    ],
    [
      'manual promotion, the new version never served: awaiting promotion',
      ['1.3.0/200', '1.3.0/200'],
      { manualPromotion: true },
      'awaiting-promotion',
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
    rollout.observe({ atMs: 0, ...poll('1.4.0/200', build, VERSION) })
    const live = rollout.observe({ atMs: 1000, ...poll('1.4.0/200', build, VERSION) }).verdict
    expect(rollout.observe({ atMs: 2000, ...poll('1.3.0/200', build, VERSION) })).toEqual({
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
      "+0 s: the app's /OlympeServer/status answers HTTP 404: this install has no status route, so the version alone decides from now on.",
      '+0 s: the app serves 1.3.0 (the version before this deployment); waiting for 1.4.0.',
      '+30 s: the app gives no version: HTTP 503 for version.json (tolerated while it restarts).',
      '+1 min 15 s: the app gives no version: no answer: refused (tolerated while it restarts).',
      '+1 min 30 s: the app serves 1.4.0, the expected version, no status route.',
      '+1 min 45 s: live: this build (1.4.0) served with a healthy status on 2 polls in a row.',
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
      serving: { kind: 'none', detail: 'HTTP 503', transient: true },
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
      '+45 s: 1.3.0 came back on 2 polls in a row after this build was served: rolled back.',
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
    const { log } = judge(['1.3.0/404', '1.4.0/-', '1.4.0/-'], { subject: 'the preview' })
    expect(log).toEqual([
      "+0 s: the preview's /OlympeServer/status answers HTTP 404: this install has no status route, so the version alone decides from now on.",
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

describe('the final messages', () => {
  const context = (
    evidence: Evidence,
    build: ThisBuild = { version: '1.4.0' },
  ): MessageContext => ({
    app: 'https://shop.example.com',
    limit: "'wait-minutes' (30 min)",
    waitedMs: 1_800_000,
    build,
    evidence,
  })
  const FILES_BUILD: ThisBuild = { version: '1.4.0', files: { 'main.js': BUILD_JS } }

  test('timed out: the expected version, the last version and status seen, how long it waited', () => {
    const rollout = judge(['1.3.0/200']).judge
    expect(verdictMessage(rollout.end(1_800_000), context(VERSION))).toBe(
      "The app at https://shop.example.com did not serve 1.4.0 within 'wait-minutes' (30 min) (waited 30 min; last seen: version 1.3.0, status HTTP 200). The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform, and that 'app-url' is the address of this environment. Check too that the project's version was bumped before the images were built (the version must change for the new rollout to be told from the old one).",
    )
  })

  test('timed out on the old main.js: says the files were compared, and what could defeat that', () => {
    const rollout = judge(['1.4.0+old/200'], { evidence: FILES }).judge
    expect(verdictMessage(rollout.end(1_800_000), context(FILES, FILES_BUILD))).toBe(
      "The app at https://shop.example.com did not serve this build (1.4.0, with main.js as built) within 'wait-minutes' (30 min) (waited 30 min; last seen: version 1.4.0 with another build's main.js, status HTTP 200). The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform, and that 'app-url' is the address of this environment. The version did not change, so the files the frontend serves were compared with those of the frontend image (its served-files label): if the image or the platform rewrites one of them as it starts, bump the version instead.",
    )
  })

  test('timed out on an app that stopped answering names the last version it served', () => {
    const rollout = judge(['1.3.0/200', '503']).judge
    expect(rollout.end(2000).lastSeen).toBe(
      'no version (HTTP 503 for version.json); the last version served was 1.3.0',
    )
  })

  test('rolled back, live by the version, live by the files', () => {
    const back = judge(['1.4.0/200', '1.3.0/200', '1.3.0/200']).judge.end(0)
    expect(verdictMessage(back, context(VERSION))).toBe(
      "The rollout was rolled back: the app at https://shop.example.com served 1.4.0 (first +0 s after the webhook's answer), then 1.3.0 again on 2 polls in a row (since +15 s). The platform may have rolled the new version back, or still send part of the traffic to the old one: check the deployment's status and the new version's logs on the platform.",
    )
    const live = judge(['1.4.0/200', '1.4.0/200']).judge.end(0)
    expect(verdictMessage(live, context(VERSION))).toBe(
      "The app at https://shop.example.com serves 1.4.0: live +15 s after the webhook's answer.",
    )
    const files = judge(['1.4.0+new/200', '1.4.0+new/200'], { evidence: FILES }).judge.end(0)
    expect(verdictMessage(files, context(FILES, FILES_BUILD))).toBe(
      "The app at https://shop.example.com serves this build: 1.4.0, the version it served before, but with main.js changed to this build's. Live +15 s after the webhook's answer.",
    )
  })

  test.each<[string, Evidence, ThisBuild, string, string]>([
    [
      'the expected version unknown, the labels not read',
      { kind: 'none', why: 'unknown-version', detail: "the labels of 'r.io/f:1' were not read" },
      {},
      'Not verified: the expected version is unknown',
      "Not verified: the app at https://shop.example.com answers with a healthy status (last seen: version 1.4.0, status HTTP 200), but the version this deployment brings is unknown (the labels of 'r.io/f:1' were not read), so nothing shows that 1.4.0 is this build. The deployment was accepted; whether the new build serves is for you to check. To get evidence, bump the project's version before the images are built (the project template has no script for it: `npm version patch`, or a version set by the pipeline), so that each deployment serves a version of its own; or let the step read the frontend image's labels, where build-images records the version and the digests of the files the frontend serves: give the deploy step a registry login ('registry-username' and 'registry-password', read access is enough) and leave 'verify-images' on.",
    ],
    [
      'the same version, an image without the served-files label',
      {
        kind: 'none',
        why: 'same-version',
        detail: "'r.io/f:1' has no io.olympe.deploy-actions.served-files label",
      },
      { version: '1.4.0', labelsRead: true },
      'Not verified: the version did not change',
      "Not verified: the app at https://shop.example.com answers with a healthy status (last seen: version 1.4.0, status HTTP 200), but it already served 1.4.0, the version this deployment brings, before the call, and the digests of the files the frontend serves are unknown ('r.io/f:1' has no io.olympe.deploy-actions.served-files label). The deployment was accepted; whether the new build serves is for you to check. To get evidence, bump the project's version before the images are built (the project template has no script for it: `npm version patch`, or a version set by the pipeline), so that each deployment serves a version of its own; or build the frontend image with build-images, which records in its labels the version and the digests of the files the frontend serves.",
    ],
    [
      'the very files served before the call (a backend alone)',
      { kind: 'none', why: 'same-files', detail: 'version.json, index.html and main.js' },
      { version: '1.4.0', files: { 'main.js': BUILD_JS }, labelsRead: true },
      'Not verified: the app already served this build',
      "Not verified: the app at https://shop.example.com answers with a healthy status (last seen: version 1.4.0, status HTTP 200), but it already served 1.4.0 with the same version.json, index.html and main.js as this build before the call: this deployment changed nothing the frontend serves (a backend alone, or the same build again), so nothing tells it from the one before. The deployment was accepted; whether the new build serves is for you to check. To make every deployment verifiable, bump the project's version before the images are built (the project template has no script for it: `npm version patch`, or a version set by the pipeline), so that each deployment serves a version of its own.",
    ],
  ])('unverified: %s', (_name, evidence, build, title, message) => {
    const settings = build.version === undefined ? { expected: undefined } : {}
    const verdict = judge(['1.4.0/200', '1.4.0/200'], { ...settings, evidence }).judge.end(0)
    expect(verdict.outcome).toBe('unverified')
    expect(headline(verdict, evidence)).toBe(title)
    expect(verdictMessage(verdict, context(evidence, build))).toBe(message)
  })

  test.each<[PreviewState, Outcome, string, string]>([
    [
      'this-build',
      'awaiting-promotion',
      'Not live: awaiting promotion (the preview serves this build)',
      "The app at https://shop.example.com did not serve this build within 'wait-minutes' (30 min), and the promotion mode is manual: the preview at https://preview.shop.example.com serves this build (version 1.4.0, status HTTP 200). Promote it on the platform once it is validated to go live; the app still serves the previous one (last seen: version 1.3.0, status HTTP 200).",
    ],
    [
      'no-preview-url',
      'awaiting-promotion',
      'Not live: awaiting promotion',
      "The app at https://shop.example.com did not serve this build within 'wait-minutes' (30 min), and the promotion mode is manual: the new version may be waiting for someone to promote it on the platform, or the rollout may never have reached the app; without 'preview-url' (the address where the platform serves the new version until it is promoted) the step cannot tell them apart (last seen: version 1.3.0, status HTTP 200). Check the deployment on the platform, and promote it there once it is validated.",
    ],
    [
      'not-this-build',
      'timed-out',
      'Not live: timed out',
      "The preview at https://preview.shop.example.com did not serve 1.4.0 within 'wait-minutes' (30 min), nor did the app at https://shop.example.com (waited 30 min; last seen: version 1.3.0, status HTTP 200; the preview: version 1.4.0, status HTTP 200). The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform, and that 'preview-url' is this environment's preview address.",
    ],
  ])('manual promotion, the preview %s: %s', (preview, outcome, title, message) => {
    const verdict = judge(['1.3.0/200'], { manualPromotion: true, preview }).judge.end(0)
    expect(verdict.outcome).toBe(outcome)
    expect(headline(verdict, VERSION)).toBe(title)
    expect(
      verdictMessage(verdict, {
        ...context(VERSION),
        preview: 'https://preview.shop.example.com',
        previewSeen: 'version 1.4.0, status HTTP 200',
      }),
    ).toBe(message)
  })

  test('the advice names the registry login only where the labels were not read', () => {
    expect(evidenceAdvice({ version: '1.4.0' })).toContain('registry login')
    expect(evidenceAdvice({ version: '1.4.0', labelsRead: true })).not.toContain('login')
    expect(evidenceAdvice({ files: { 'main.js': BUILD_JS } })).toBe(
      "To make every deployment verifiable, bump the project's version before the images are built (the project template has no script for it: `npm version patch`, or a version set by the pipeline), so that each deployment serves a version of its own.",
    )
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
})
