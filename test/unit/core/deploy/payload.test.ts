import { describe, expect, test } from '@jest/globals'
import { buildPayload, type PayloadInputs } from '../../../../src/core/deploy/payload.js'
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

describe('buildPayload (spec 2.1, 4 rules 3 and 4)', () => {
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

  test('warns about each backend image that no rule sends anywhere', () => {
    const { warnings } = buildPayload({
      ...none,
      backendImages: ['r.io/api:1', 'r.io/worker:1'],
      deployRules: [{ source: 'api', target: '.*' }],
    })
    expect(warnings).toEqual([
      expect.stringContaining(
        "Backend image 'r.io/worker:1' matches no deploy rule's source ('api')",
      ),
    ])
  })
})
