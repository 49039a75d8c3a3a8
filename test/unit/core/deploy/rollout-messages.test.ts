import { describe, expect, test } from '@jest/globals'
import type { Evidence, ThisBuild } from '../../../../src/core/deploy/evidence.js'
import type { Outcome } from '../../../../src/core/deploy/outcomes.js'
import type { PreviewState, Verdict } from '../../../../src/core/deploy/rollout-judge.js'
import {
  evidenceAdvice,
  headline,
  verdictMessage,
  type MessageContext,
} from '../../../../src/core/deploy/rollout-messages.js'

const BUILD_JS = `sha256:${'b'.repeat(64)}`
const OLD_JS = `sha256:${'a'.repeat(64)}`
const VERSION: Evidence = { kind: 'version' }
const FILES: Evidence = {
  kind: 'files',
  paths: ['main.js'],
  before: { 'main.js': { kind: 'digest', digest: OLD_JS } },
  differ: ['main.js'],
}
const FILES_BUILD: ThisBuild = { version: '1.4.0', files: { 'main.js': BUILD_JS } }
const OLD_SEEN = 'version 1.3.0, status HTTP 200'

const context = (evidence: Evidence, build: ThisBuild = { version: '1.4.0' }): MessageContext => ({
  app: 'https://shop.example.com',
  limit: "'wait-minutes' (30 min)",
  waitedMs: 1_800_000,
  build,
  evidence,
  before: '1.3.0',
})

/** A verdict as the judge gives it at the end of a 30-minute watch. */
const verdict = (outcome: Outcome, more: Partial<Verdict> = {}): Verdict => ({
  outcome,
  atMs: 1_800_000,
  expected: '1.4.0',
  lastVersion: '1.3.0',
  lastSeen: OLD_SEEN,
  ...more,
})

const CHECK_PLATFORM =
  "The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform, and that 'app-url' is the address of this environment."
const CHECK_BUMP =
  " Check too that the project's version was bumped before the images were built (the version must change for the new rollout to be told from the old one)."

describe('the final messages', () => {
  test('timed out: the expected version, the last version and status seen, how long it waited', () => {
    expect(verdictMessage(verdict('timed-out', { ending: 'previous' }), context(VERSION))).toBe(
      `The app at https://shop.example.com did not serve 1.4.0 within 'wait-minutes' (30 min) (waited 30 min; last seen: version 1.3.0, status HTTP 200). ${CHECK_PLATFORM}${CHECK_BUMP}`,
    )
  })

  test('timed out on the old main.js: says the files were compared, and what could defeat that', () => {
    const seen = "version 1.4.0 with another build's main.js, status HTTP 200"
    const timedOut = verdict('timed-out', { lastVersion: '1.4.0', lastSeen: seen, ending: 'other' })
    expect(verdictMessage(timedOut, context(FILES, FILES_BUILD))).toBe(
      `The app at https://shop.example.com did not serve this build (1.4.0, with main.js as built) within 'wait-minutes' (30 min) (waited 30 min; last seen: ${seen}). ${CHECK_PLATFORM} The version did not change, so the files the frontend serves were compared with those of the frontend image (its served-files label): if the image or the platform rewrites one of them as it starts, bump the version instead.`,
    )
  })

  test('timed out on a third version: names it and the one before', () => {
    const seen = 'version 1.5.0, status HTTP 200'
    const third = verdict('timed-out', { lastVersion: '1.5.0', lastSeen: seen, ending: 'third' })
    expect(verdictMessage(third, context(VERSION))).toBe(
      `The app at https://shop.example.com did not serve 1.4.0 within 'wait-minutes' (30 min) (waited 30 min; last seen: ${seen}). At the end it serves 1.5.0, neither this build nor the one it served before the call (1.3.0): another deployment may have replaced this one; check the platform's deployment history. ${CHECK_PLATFORM}${CHECK_BUMP}`,
    )
  })

  test.each<[string, Partial<Verdict>, string]>([
    [
      'errors at the end',
      { ending: 'down', lastSeen: 'no version (HTTP 502 for version.json)' },
      'The promotion mode is manual, but this is not a pending promotion: until one, the platform keeps serving the build before this deployment, and at the end the app gave no version.',
    ],
    [
      'a failing status at the end',
      { ending: 'unhealthy', lastSeen: 'version 1.3.0, status HTTP 500' },
      "The promotion mode is manual, but this is not a pending promotion: until one, the platform keeps serving the build before this deployment, and at the end the app's status failed.",
    ],
    [
      'what was served before the call unknown',
      { ending: 'before-unknown' },
      'The promotion mode is manual, but what the app served before the call could not be read, so the step cannot tell whether 1.3.0 is the build before this deployment, awaiting a promotion.',
    ],
  ])(
    'manual promotion, timed out on %s: says why it is no pending promotion',
    (_name, more, said) => {
      const timedOut = verdict('timed-out', { preview: 'no-preview-url', ...more })
      expect(verdictMessage(timedOut, context(VERSION))).toBe(
        `The app at https://shop.example.com did not serve 1.4.0 within 'wait-minutes' (30 min) (waited 30 min; last seen: ${more.lastSeen ?? OLD_SEEN}). ${said} ${CHECK_PLATFORM}${CHECK_BUMP}`,
      )
      expect(headline(timedOut, VERSION)).toBe('Not live: timed out')
    },
  )

  test('rolled back: this build, then the other one, on how many polls over how long', () => {
    const back = verdict('rolled-back', {
      atMs: 20_000,
      firstBuildAtMs: 2000,
      back: { version: '1.3.0', sinceMs: 4000, polls: 9 },
    })
    expect(verdictMessage(back, context(VERSION))).toBe(
      "The rollout was rolled back: the app at https://shop.example.com served 1.4.0 (first +2 s after the webhook's answer), then 1.3.0 again on 9 polls in a row over 16 s (since +4 s). The platform may have rolled the new version back, or still send part of the traffic to the old one: check the deployment's status and the new version's logs on the platform.",
    )
  })

  test('live by the version, live by the files', () => {
    const live = verdict('live', { atMs: 15_000, lastVersion: '1.4.0' })
    expect(verdictMessage(live, context(VERSION))).toBe(
      "The app at https://shop.example.com serves 1.4.0: live +15 s after the webhook's answer.",
    )
    expect(verdictMessage(live, context(FILES, FILES_BUILD))).toBe(
      "The app at https://shop.example.com serves this build: 1.4.0, the version it served before, but with main.js changed to this build's. Live +15 s after the webhook's answer.",
    )
  })

  const ADVICE_LOGIN =
    "To get evidence, bump the project's version before the images are built (the project template has no script for it: `npm version patch`, or a version set by the pipeline), so that each deployment serves a version of its own; or let the step read the frontend image's labels, where build-images records the version and the digests of the files the frontend serves: give the deploy step a registry login ('registry-username' and 'registry-password', read access is enough) and leave 'verify-images' on."
  const ADVICE_BUMP =
    "To make every deployment verifiable, bump the project's version before the images are built (the project template has no script for it: `npm version patch`, or a version set by the pipeline), so that each deployment serves a version of its own."
  const ACCEPTED = 'The deployment was accepted; whether the new build serves is for you to check.'
  const NEW_SEEN = 'last seen: version 1.4.0, status HTTP 200'

  test.each<[string, Evidence, ThisBuild, string, string]>([
    [
      'the expected version unknown, the labels not read',
      { kind: 'none', why: 'unknown-version', detail: "the labels of 'r.io/f:1' were not read" },
      {},
      'Not verified: the expected version is unknown',
      `Not verified: the app at https://shop.example.com answers with a healthy status (${NEW_SEEN}), but the version this deployment brings is unknown (the labels of 'r.io/f:1' were not read), so nothing shows that 1.4.0 is this build. ${ACCEPTED} ${ADVICE_LOGIN}`,
    ],
    [
      'what the app served before the call unknown, no served-files label',
      { kind: 'none', why: 'unknown-before', detail: 'HTTP 503 for version.json' },
      { version: '1.4.0' },
      'Not verified: what the app served before is unknown',
      `Not verified: the app at https://shop.example.com answers with a healthy status (${NEW_SEEN}), but what it served before the call could not be read (it kept answering as a restarting app does: HTTP 503 for version.json), so nothing shows that 1.4.0 is new, and without the frontend image's served-files label its files cannot tell either. ${ACCEPTED} ${ADVICE_LOGIN}`,
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
      `Not verified: the app at https://shop.example.com answers with a healthy status (${NEW_SEEN}), but it already served 1.4.0, the version this deployment brings, before the call, and the digests of the files the frontend serves are unknown ('r.io/f:1' has no io.olympe.deploy-actions.served-files label). ${ACCEPTED} To get evidence, bump the project's version before the images are built (the project template has no script for it: \`npm version patch\`, or a version set by the pipeline), so that each deployment serves a version of its own; or build the frontend image with build-images, which records in its labels the version and the digests of the files the frontend serves.`,
    ],
    [
      'the very files served before the call (a backend alone)',
      { kind: 'none', why: 'same-files', detail: 'version.json, index.html and main.js' },
      { version: '1.4.0', files: { 'main.js': BUILD_JS }, labelsRead: true },
      'Not verified: the app already served this build',
      `Not verified: the app at https://shop.example.com answers with a healthy status (${NEW_SEEN}), but it already served 1.4.0 with the same version.json, index.html and main.js as this build before the call: this deployment changed nothing the frontend serves (a backend alone, or the same build again), so nothing tells it from the one before. ${ACCEPTED} ${ADVICE_BUMP}`,
    ],
  ])('unverified: %s', (_name, evidence, build, title, message) => {
    const unverified = verdict('unverified', {
      lastVersion: '1.4.0',
      lastSeen: 'version 1.4.0, status HTTP 200',
    })
    if (build.version === undefined) delete unverified.expected
    expect(headline(unverified, evidence)).toBe(title)
    expect(verdictMessage(unverified, context(evidence, build))).toBe(message)
  })

  test('unverified: a labelled file neither as built nor known from before the call', () => {
    const unsure = 'main.js neither as built nor as before the call (unread then)'
    const seen = `version 1.4.0 with ${unsure}, status HTTP 200`
    const unverified = verdict('unverified', { lastVersion: '1.4.0', lastSeen: seen, unsure })
    const evidence: Evidence = {
      kind: 'version',
      files: { paths: ['main.js'], before: { 'main.js': { kind: 'unknown', detail: 'HTTP 503' } } },
    }
    expect(headline(unverified, evidence)).toBe('Not verified: a served file cannot be told apart')
    expect(verdictMessage(unverified, context(evidence, FILES_BUILD))).toBe(
      `Not verified: the app at https://shop.example.com serves 1.4.0, the expected version, with a healthy status, but with ${unsure} (last seen: ${seen}): such a file may still be the one before this deployment, or one the platform rewrites as the app starts, and what it served before the call could not be read to tell them apart. ${ACCEPTED}`,
    )
  })

  const PREVIEW = {
    preview: 'https://preview.shop.example.com',
    previewSeen: 'version 1.4.0, status HTTP 200',
  }

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
      "The app at https://shop.example.com did not serve this build within 'wait-minutes' (30 min), and the promotion mode is manual: the app still serves the build before this deployment (last seen: version 1.3.0, status HTTP 200). The new version may be waiting for someone to promote it on the platform, or the rollout may never have reached the app; without 'preview-url' (the address where the platform serves the new version until it is promoted) the step cannot tell them apart. Check the deployment on the platform, and promote it there once it is validated. Ask the platform operator whether this environment deploys with no downtime (the promotion mode applies only there): if it does, ask for its preview address and give it as 'preview-url', so that the step verifies the new version there; if it does not, the rollout did not reach the app: check the deployment's status.",
    ],
    [
      'no-evidence',
      'unverified',
      "Not verified: the preview's build cannot be told apart",
      `Not verified: the app at https://shop.example.com did not serve this build within 'wait-minutes' (30 min), and the promotion mode is manual: the app still serves the build before this deployment (last seen: version 1.3.0, status HTTP 200), and the preview at https://preview.shop.example.com answers (version 1.4.0, status HTTP 200), but nothing tells this build from the one it served before the call, so whether it awaits a promotion is not verified. Promote it on the platform once it is validated. ${ADVICE_LOGIN}`,
    ],
    [
      'not-this-build',
      'timed-out',
      'Not live: timed out',
      "The preview at https://preview.shop.example.com did not serve 1.4.0 within 'wait-minutes' (30 min), nor did the app at https://shop.example.com (waited 30 min; last seen: version 1.3.0, status HTTP 200; the preview: version 1.4.0, status HTTP 200). The webhook accepted the deployment, so the platform may still be rolling it out or may have failed to: check the deployment's status on the platform, and that 'preview-url' is this environment's preview address.",
    ],
  ])('manual promotion, the preview %s: %s', (preview, outcome, title, message) => {
    const ended = verdict(outcome, { preview })
    expect(headline(ended, VERSION)).toBe(title)
    expect(verdictMessage(ended, { ...context(VERSION), ...PREVIEW })).toBe(message)
  })

  test('the advice names the registry login only where the labels were not read', () => {
    expect(evidenceAdvice({ version: '1.4.0' })).toContain('registry login')
    expect(evidenceAdvice({ version: '1.4.0', labelsRead: true })).not.toContain('login')
    expect(evidenceAdvice({ files: { 'main.js': BUILD_JS } })).toBe(ADVICE_BUMP)
  })
})
