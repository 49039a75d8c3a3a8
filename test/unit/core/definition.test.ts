import { describe, expect, test } from '@jest/globals'
import { buildImagesDefinition } from '../../../src/core/build-images/definition.js'
import { describeInputs, withDefaults } from '../../../src/core/definition.js'
import { inputSecrets } from '../../../src/core/shared/input-secrets.js'
import { Redactor } from '../../../src/core/shared/redactor.js'
import { findSecrets } from '../../helpers/secrets.js'
import { expectToSay } from '../../helpers/assertions.js'

describe('describeInputs', () => {
  test('a value of several lines is redacted before it is quoted: a secret holding \\ stays masked', () => {
    const raw = withDefaults(buildImagesDefinition, {
      registry: 'ghcr.io/acme',
      'registry-password': 'base-password-value',
      'build-args': 'API_KEY=ab\\cd"ef-9\nNODE_ENV=production',
    })
    const redactor = new Redactor()
    for (const secret of inputSecrets(buildImagesDefinition, raw)) redactor.add(secret)
    const shown = describeInputs(buildImagesDefinition, raw, (text) => redactor.redact(text))
    expectToSay(shown, 'build-args: "API_KEY=***\\nNODE_ENV=production"', 'registry-password: ***')
    expect(findSecrets({ shown }, ['ab\\cd"ef-9'])).toEqual([])
  })
})
