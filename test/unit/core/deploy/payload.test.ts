import { describe, expect, test } from '@jest/globals'
import type { Deadline } from '../../../../src/core/shared/deadline.js'
import {
  buildPayload,
  deployRuleWarnings,
  type PayloadInputs,
} from '../../../../src/core/deploy/payload.js'
import type { BasePayload, Payload } from '../../../../src/core/deploy/payload-schema.js'
import { InputError } from '../../../../src/core/shared/errors.js'

const none: PayloadInputs = { backendImages: [], skipUpdateVersions: false, forceSync: false }
const defaults = {
  codeAsData: { updateMode: 'manual' },
  noDowntime: { promotionMode: 'manual' },
} as const
const CATCH_ALL = [{ source: '.*', target: '.*' }]
const manual = {
  codeAsData: { updateMode: 'manual' as const },
  noDowntime: { promotionMode: 'manual' as const },
}

describe('buildPayload: the default payload, filled in as Olympe documents it', () => {
  test.each<[string, Partial<PayloadInputs>, BasePayload | undefined, Payload]>([
    [
      'frontend only: no empty backends group',
      { frontendImage: 'r.io/f:1' },
      undefined,
      { frontend: { image: 'r.io/f:1' }, ...defaults },
    ],
    [
      'backends get the default catch-all rule',
      { backendImages: ['r.io/b:1', 'r.io/c:1'] },
      undefined,
      { backends: { images: ['r.io/b:1', 'r.io/c:1'], deployRules: CATCH_ALL }, ...defaults },
    ],
    [
      'code as data is set only when given, with both modes',
      { codeasdataImage: 'r.io/cad:1', codeasdataUpdateMode: 'auto', promotionMode: 'auto' },
      undefined,
      {
        codeAsData: { image: 'r.io/cad:1', updateMode: 'auto' },
        noDowntime: { promotionMode: 'auto' },
      },
    ],
    [
      'duplicates are dropped, order kept, base images first',
      { backendImages: ['r.io/b:2', 'r.io/b:1', 'r.io/b:2'] },
      { backends: { images: ['r.io/b:1'] } },
      { backends: { images: ['r.io/b:1', 'r.io/b:2'], deployRules: CATCH_ALL }, ...defaults },
    ],
    [
      'inputs override the base payload; base modes kept when inputs are empty',
      { frontendImage: 'r.io/f:2' },
      {
        frontend: { image: 'r.io/f:1' },
        codeAsData: { updateMode: 'auto' },
        noDowntime: { promotionMode: 'auto' },
      },
      {
        frontend: { image: 'r.io/f:2' },
        codeAsData: { updateMode: 'auto' },
        noDowntime: { promotionMode: 'auto' },
      },
    ],
    [
      'explicit rules replace the default',
      { backendImages: ['r.io/b:1'], deployRules: [{ source: 'b', target: '^(?!legacy).*' }] },
      undefined,
      {
        backends: { images: ['r.io/b:1'], deployRules: [{ source: 'b', target: '^(?!legacy).*' }] },
        ...defaults,
      },
    ],
    [
      'the spec default payload as a base: empty groups stay out',
      { frontendImage: 'r.io/f:1' },
      { frontend: {}, backends: { images: [], deployRules: CATCH_ALL }, ...manual },
      { frontend: { image: 'r.io/f:1' }, ...defaults },
    ],
    [
      'force-sync alone is a valid request, and is not repeated',
      { forceSync: true },
      { extraArgs: ['--force-sync'] },
      { ...defaults, extraArgs: ['--force-sync'] },
    ],
    [
      'skip-update-versions true is sent, false is left out',
      { frontendImage: 'r.io/f:1', skipUpdateVersions: true },
      undefined,
      { frontend: { image: 'r.io/f:1' }, ...defaults, skipUpdateVersions: true },
    ],
  ])('%s', (_name, inputs, base, expected) => {
    expect(buildPayload({ ...none, ...inputs }, base).payload).toEqual(expected)
  })

  test('keys come out in one order, so both CIs send byte-identical payloads', () => {
    const { payload } = buildPayload({
      ...none,
      forceSync: true,
      codeasdataImage: 'r.io/c:1',
      backendImages: ['r.io/b:1'],
      frontendImage: 'r.io/f:1',
      skipUpdateVersions: true,
    })
    expect(Object.keys(payload)).toEqual([
      'frontend',
      'backends',
      'codeAsData',
      'noDowntime',
      'skipUpdateVersions',
      'extraArgs',
    ])
  })

  test.each<[string, Partial<PayloadInputs>, string]>([
    ['nothing to deploy', {}, "Nothing to deploy: set at least one of 'frontend-image'"],
    [
      'backends with an empty rule list',
      { backendImages: ['r.io/b:1'], deployRules: [] },
      "Invalid input 'deploy-rules'",
    ],
  ])('refuses %s', (_name, inputs, message) => {
    expect(() => buildPayload({ ...none, ...inputs })).toThrow(InputError)
    expect(() => buildPayload({ ...none, ...inputs })).toThrow(message)
  })

  test('says where the rules sent came from', () => {
    const images = { backendImages: ['r.io/b:1'] }
    const rules = [{ source: 'b', target: '.*' }]
    expect(buildPayload({ ...none, ...images }).rulesFrom).toBe('default')
    expect(
      buildPayload({ ...none, ...images }, { backends: { deployRules: rules } }).rulesFrom,
    ).toBe('payload-file')
    expect(
      buildPayload({ ...none, ...images, deployRules: rules }, { backends: { deployRules: [] } })
        .rulesFrom,
    ).toBe('deploy-rules')
  })
})

describe('deployRuleWarnings', () => {
  const deadline = (seconds = 60, remainingMs = seconds * 1000): Deadline => {
    const fixed: Deadline = {
      limit: `'timeout-seconds' (${seconds} s)`,
      totalMs: seconds * 1000,
      remainingMs: () => remainingMs,
      slice: () => fixed,
    }
    return fixed
  }
  const SLOW = '(a+)+$'
  const LONG = `r.io/shop/api:${'a'.repeat(40)}-1`

  test('warns about each backend image that no rule sends anywhere', () => {
    const built = buildPayload({
      ...none,
      backendImages: ['r.io/api:1', 'r.io/worker:1'],
      deployRules: [{ source: 'api', target: '.*' }],
    })
    expect(deployRuleWarnings(built, undefined, deadline())).toEqual([
      "Backend image 'r.io/worker:1' matches no deploy rule's source ('api'): the platform will not deploy it to any backend.",
    ])
  })

  test('a source that backtracks is refused, naming the input and the rule', () => {
    const built = buildPayload({
      ...none,
      backendImages: [LONG],
      deployRules: [
        { source: 'worker', target: '.*' },
        { source: SLOW, target: '.*' },
      ],
    })
    expect(() => deployRuleWarnings(built, undefined, deadline())).toThrow(
      new InputError(
        'deploy-rules',
        `Invalid input 'deploy-rules': at [1].source: matching the regular expression '${SLOW}' against the backend image '${LONG}' took more than 250 ms on each of 3 tries and was stopped: the pattern backtracks catastrophically (nested quantifiers such as '(a+)+', or alternatives that overlap such as '(a|ab)*'); rewrite it so that each part of an image name can match in only one way, for example '^reg\\.example\\.com/shop/api:'.`,
      ),
    )
  })

  test('from a payload file, it names the file and the JSON path', () => {
    const built = buildPayload(none, {
      backends: { images: [LONG], deployRules: [{ source: SLOW, target: '.*' }] },
    })
    expect(() => deployRuleWarnings(built, 'deploy/base.json', deadline())).toThrow(
      "Invalid input 'payload-file' 'deploy/base.json': at backends.deployRules[0].source: matching the regular expression '(a+)+$'",
    )
  })

  test("when 'timeout-seconds' is what runs out, it says so", () => {
    const built = buildPayload({
      ...none,
      backendImages: [LONG],
      deployRules: [{ source: SLOW, target: '.*' }],
    })
    expect(() => deployRuleWarnings(built, undefined, deadline(5, 40))).toThrow(
      "did not finish within 'timeout-seconds' (5 s), so the step stopped and sent nothing",
    )
  })
})
