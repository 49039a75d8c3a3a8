import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import * as v from 'valibot'
import { buildPayload, type PayloadInputs } from '../../../../src/core/deploy/payload.js'
import { MODES, PayloadSchema } from '../../../../src/core/deploy/payload-schema.js'
import { parseImageReference } from '../../../../src/core/shared/image-ref.js'
import { imageReference } from '../../../helpers/image-arbitraries.js'

const image = imageReference()
const mode = fc.option(fc.constantFrom(...MODES), { nil: undefined })
const rule = fc.record({
  source: fc.constantFrom('.*', 'backend', '^reg\\.example\\.com/', 'api|worker'),
  target: fc.constantFrom('.*', '^(?!legacy).*$', 'api'),
})

const inputs: fc.Arbitrary<PayloadInputs> = fc
  .record({
    frontendImage: fc.option(image, { nil: undefined }),
    backendImages: fc.array(image, { maxLength: 6 }),
    codeasdataImage: fc.option(image, { nil: undefined }),
    deployRules: fc.option(fc.array(rule, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    codeasdataUpdateMode: mode,
    promotionMode: mode,
    skipUpdateVersions: fc.boolean(),
    forceSync: fc.boolean(),
  })
  // Duplicated backends on purpose: the payload must keep each exactly once.
  .chain((i) =>
    fc.constantFrom(i, { ...i, backendImages: [...i.backendImages, ...i.backendImages] }),
  )
  .filter(
    (i) =>
      Boolean(i.frontendImage ?? i.codeasdataImage) || i.backendImages.length > 0 || i.forceSync,
  )

describe('buildPayload, for any valid inputs', () => {
  test('the image generator makes references our own parser accepts', () => {
    fc.assert(fc.property(image, (reference) => typeof parseImageReference(reference) !== 'string'))
  })

  test('the payload validates against the spec schema (strict, every group complete)', () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const result = v.safeParse(PayloadSchema, buildPayload(given).payload)
        expect(result.issues).toBeUndefined()
      }),
    )
  })

  test('every image is there exactly once, backends in the order given', () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const { payload } = buildPayload(given)
        expect(payload.frontend?.image).toBe(given.frontendImage)
        expect(payload.codeAsData?.image).toBe(given.codeasdataImage)
        expect(payload.backends?.images ?? []).toEqual([...new Set(given.backendImages)])
      }),
    )
  })

  test('no group is ever empty, and the modes are always explicit', () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const { payload } = buildPayload(given)
        for (const group of [
          payload.frontend,
          payload.backends,
          payload.codeAsData,
          payload.noDowntime,
        ]) {
          if (group !== undefined) expect(Object.keys(group).length).toBeGreaterThan(0)
        }
        if (payload.backends) expect(payload.backends.deployRules.length).toBeGreaterThan(0)
        expect(payload.codeAsData?.updateMode).toBe(given.codeasdataUpdateMode ?? 'manual')
        expect(payload.noDowntime?.promotionMode).toBe(given.promotionMode ?? 'manual')
        expect(payload.extraArgs).toEqual(given.forceSync ? ['--force-sync'] : undefined)
      }),
    )
  })

  test('it is deterministic: the same inputs serialise to the same bytes', () => {
    fc.assert(
      fc.property(
        inputs,
        (given) =>
          JSON.stringify(buildPayload(given).payload) ===
          JSON.stringify(buildPayload(structuredClone(given)).payload),
      ),
    )
  })
})
