import { describe, expect, test } from '@jest/globals'
import {
  pinnedLines,
  pinnedPayload,
  pinnedRefusalHint,
  pinPlan,
  pinReason,
  rulesAsSent,
  type PinInputs,
  type RulesGiven,
} from '../../../../src/core/deploy/pinning.js'
import type { DeployRule, Payload } from '../../../../src/core/deploy/payload-schema.js'
import {
  pinReference,
  type PinnedReference,
} from '../../../../src/core/registry/pinned-reference.js'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import { ActionError, InputError } from '../../../../src/core/shared/errors.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { frozenClock } from '../../../helpers/memory-files.js'

const DIGEST = `sha256:${'a'.repeat(64)}`
const deadline = startDeadline(frozenClock('2026-01-01T00:00:00Z'), 60)

function pins(...given: string[]): Map<string, PinnedReference> {
  return new Map(
    given.map((reference) => {
      const pin = pinReference(reference, DIGEST)
      if (isProblem(pin)) throw new Error(pin.problem)
      return [reference, pin]
    }),
  )
}

describe('pinPlan: what a run pins', () => {
  const plan = (inputs: Partial<PinInputs>): string =>
    pinPlan({
      pinDigests: 'auto',
      verifyImages: 'auto',
      signatures: false,
      mirrors: false,
      ...inputs,
    })

  test.each<[string, Partial<PinInputs>, string]>([
    ['auto, by default: nothing (references as the spec writes them)', {}, 'none'],
    ['auto with verify-signatures: every image', { signatures: true }, 'every'],
    ['auto with registry-mirrors: those a mirror answered for', { mirrors: true }, 'mirrored'],
    ['auto with both: every image', { signatures: true, mirrors: true }, 'every'],
    ['true: every image', { pinDigests: 'true' }, 'every'],
    ['true under verify-images true', { pinDigests: 'true', verifyImages: 'true' }, 'every'],
    ['false: nothing, mirrors or not', { pinDigests: 'false', mirrors: true }, 'none'],
    ['no image check: nothing to pin', { verifyImages: 'false', mirrors: true }, 'none'],
  ])('%s', (_name, inputs, expected) => {
    expect(plan(inputs)).toBe(expected)
  })

  test.each<[Pick<PinInputs, 'pinDigests' | 'signatures'>, string]>([
    [{ pinDigests: 'true', signatures: true }, "'pin-digests: true'"],
    [
      { pinDigests: 'auto', signatures: true },
      "'pin-digests: auto', as 'verify-signatures' is set",
    ],
    [
      { pinDigests: 'auto', signatures: false },
      "'pin-digests: auto', as a mirror in 'registry-mirrors' answered for it",
    ],
  ])('the reason of %j', (inputs, reason) => {
    expect(pinReason(inputs)).toBe(reason)
  })
})

describe('pinnedPayload', () => {
  const payload: Payload = {
    frontend: { image: 'r.io/web:1' },
    backends: {
      images: ['r.io/api:1', 'r.io/worker:1'],
      deployRules: [{ source: '.*', target: '.*' }],
    },
    codeAsData: { image: 'r.io/cad:1', updateMode: 'auto' },
    noDowntime: { promotionMode: 'manual' },
  }

  test('each image with a pinned reference is named by it; the rest, and every other key, as given', () => {
    const sent = pinnedPayload(payload, pins('r.io/web:1', 'r.io/api:1', 'r.io/cad:1'))
    expect(sent).toEqual({
      ...payload,
      frontend: { image: `r.io/web:1@${DIGEST}` },
      backends: { ...payload.backends, images: [`r.io/api:1@${DIGEST}`, 'r.io/worker:1'] },
      codeAsData: { image: `r.io/cad:1@${DIGEST}`, updateMode: 'auto' },
    })
    // The keys keep their order: the body reads as the payload built from the inputs.
    expect(Object.keys(sent)).toEqual(Object.keys(payload))
    expect(payload.frontend?.image).toBe('r.io/web:1')
  })

  test('nothing pinned: the payload itself', () => {
    expect(pinnedPayload(payload, new Map())).toBe(payload)
  })
})

describe('rulesAsSent: the deploy rules judged on the references sent', () => {
  const given = (
    rules: DeployRule[],
    images: string[],
    from: Partial<RulesGiven> = {},
  ): RulesGiven => ({
    payload: { backends: { images, deployRules: rules } },
    rulesFrom: 'deploy-rules',
    ...from,
  })
  const reason = "'pin-digests: auto', as 'verify-signatures' is set"

  test('a rule anchored on the tag loses the pinned image: refused before the POST, naming the rule', () => {
    const rules = [
      { source: '^r\\.io/api:1$', target: '^api$' },
      { source: 'worker', target: '^workers$' },
    ]
    const run = (): string[] =>
      rulesAsSent(
        given(rules, ['r.io/api:1', 'r.io/worker:1']),
        pins('r.io/api:1', 'r.io/worker:1'),
        reason,
        deadline,
      )
    expect(run).toThrow(ActionError)
    expect(run).toThrow(
      [
        "The images are sent pinned by digest ('pin-digests: auto', as 'verify-signatures' is set), and a deploy rule that matches a backend image as given does not match it pinned, so the deployment was not requested:",
        `- 'r.io/api:1' is sent as 'r.io/api:1@${DIGEST}', which the source '^r\\.io/api:1$' of deploy rule [0] of 'deploy-rules' does not match: the platform would not deploy it to that rule's backends ('^api$')`,
        "Make each such source match the pinned reference too: a '$' right after the tag leaves out the '@sha256:…' that follows it (end the source with '(@sha256:[0-9a-f]{64})?$' instead); or set 'pin-digests: false' to send the references as given (refused with 'verify-signatures').",
      ].join('\n'),
    )
  })

  test('a rule lost even while another still matches: the platform would deploy it elsewhere', () => {
    const rules = [
      { source: ':1$', target: '^canary$' },
      { source: '.*', target: '.*' },
    ]
    const from = { rulesFrom: 'payload-file' as const, payloadFile: 'deploy/base.json' }
    expect(() =>
      rulesAsSent(given(rules, ['r.io/api:1'], from), pins('r.io/api:1'), reason, deadline),
    ).toThrow(
      `- 'r.io/api:1' is sent as 'r.io/api:1@${DIGEST}', which the source ':1$' of the rule backends.deployRules[0] of 'payload-file' ('deploy/base.json') does not match: the platform would not deploy it to that rule's backends ('^canary$')`,
    )
  })

  test('rules that match the pinned reference too: no failure; an image no rule matches as sent: the warning, naming it as sent', () => {
    const rules = [{ source: '^r\\.io/api:1(@sha256:[0-9a-f]{64})?$', target: 'api' }]
    const warnings = rulesAsSent(
      given(rules, ['r.io/api:1', 'r.io/other:1']),
      pins('r.io/api:1', 'r.io/other:1'),
      reason,
      deadline,
    )
    expect(warnings).toEqual([
      `Backend image 'r.io/other:1@${DIGEST}' matches no deploy rule's source ('^r\\.io/api:1(@sha256:[0-9a-f]{64})?$'): the platform will not deploy it to any backend.`,
    ])
  })

  test('an image sent as given is judged as given', () => {
    const rules = [{ source: ':1$', target: 'x' }]
    expect(
      rulesAsSent(given(rules, ['r.io/api:1', 'r.io/api:2']), new Map(), reason, deadline),
    ).toEqual([
      "Backend image 'r.io/api:2' matches no deploy rule's source (':1$'): the platform will not deploy it to any backend.",
    ])
  })

  test('a source that backtracks on the pinned reference is refused as in the check phase', () => {
    // Fast on 'r.io/web:1'; on the 64 'a's of its digest, 2^64 ways to fail.
    const rules = [{ source: '(a|a)*c', target: 'x' }]
    const run = (): string[] =>
      rulesAsSent(given(rules, ['r.io/web:1']), pins('r.io/web:1'), reason, deadline)
    expect(run).toThrow(InputError)
    expect(run).toThrow(
      `Invalid input 'deploy-rules': at [0].source: matching the regular expression '(a|a)*c' against the backend image 'r.io/web:1@${DIGEST}' took more than 250 ms on each of 3 tries and was stopped`,
    )
  })
})

test('pinnedLines: each image whose reference changed, for the log', () => {
  const pinned = pins('r.io/web:1', `r.io/api@${DIGEST}`)
  expect(pinnedLines(pinned, "'pin-digests: true'")).toEqual([
    "Sent by the digest checked ('pin-digests: true'):",
    `- r.io/web:1 as r.io/web:1@${DIGEST}`,
  ])
  expect(pinnedLines(pins(`r.io/api@${DIGEST}`), "'pin-digests: true'")).toEqual([])
})

test("pinnedRefusalHint names 'pin-digests' and what to do", () => {
  expect(pinnedRefusalHint("'pin-digests: true'")).toBe(
    "The payload named its images by digest ('<name>:<tag>@sha256:…', 'pin-digests: true'): if the platform refuses references with a digest, ask the platform operator whether it takes them, or set 'pin-digests: false' to send the references as given (refused with 'verify-signatures', whose check only a digest carries through to the platform).",
  )
})
