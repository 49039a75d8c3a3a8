import { describe, expect, test } from '@jest/globals'
import { withDefaults } from '../../../../src/core/definition.js'
import { deployDefinition, type DeployInputName } from '../../../../src/core/deploy/definition.js'
import { parseDeployInputs } from '../../../../src/core/deploy/inputs.js'
import { InputError } from '../../../../src/core/shared/errors.js'

const PASSWORD = 'reg-pw-5c1e'
const valid: Partial<Record<DeployInputName, string>> = {
  'webhook-url': 'https://deploy.example.com/hooks/abc',
  'webhook-token': 'tok-3f9a7c1e5b',
  'frontend-image': 'ghcr.io/acme/front:1',
}
const parse = (
  overrides: Partial<Record<DeployInputName, string>>,
): ReturnType<typeof parseDeployInputs> =>
  parseDeployInputs(withDefaults(deployDefinition, { ...valid, ...overrides }))

function failure(overrides: Partial<Record<DeployInputName, string>>): InputError {
  try {
    parse(overrides)
  } catch (error) {
    if (error instanceof InputError) return error
    throw error
  }
  throw new Error('expected an InputError')
}

describe('the image check inputs', () => {
  test('by default: auto, no login', () => {
    expect(parse({})).toMatchObject({ verifyImages: 'auto', registryLogin: undefined })
  })

  test.each(['auto', 'true', 'false'] as const)('verify-images %s', (mode) => {
    expect(parse({ 'verify-images': mode }).verifyImages).toBe(mode)
  })

  test('a login, for the registry given by its one name', () => {
    expect(
      parse({
        registry: 'index.docker.io',
        'registry-username': 'ci',
        'registry-password': PASSWORD,
      }).registryLogin,
    ).toEqual({ registry: 'docker.io', username: 'ci', password: PASSWORD })
    expect(
      parse({ registry: 'ghcr.io/acme', 'registry-username': 'ci', 'registry-password': PASSWORD })
        .registryLogin,
    ).toEqual({ registry: 'ghcr.io', username: 'ci', password: PASSWORD })
    expect(
      parse({ 'registry-username': 'ci', 'registry-password': PASSWORD }).registryLogin,
    ).toEqual({ registry: undefined, username: 'ci', password: PASSWORD })
  })

  test.each<[string, Partial<Record<DeployInputName, string>>, DeployInputName, string]>([
    [
      'a verify-images that is no choice',
      { 'verify-images': 'yes' },
      'verify-images',
      "Invalid input 'verify-images' 'yes': expected one of 'auto', 'true', 'false'.",
    ],
    [
      'a registry with a scheme',
      { registry: 'https://ghcr.io' },
      'registry',
      "Invalid input 'registry' 'https://ghcr.io': has a scheme;",
    ],
    [
      'a user name without a password',
      { 'registry-username': 'ci' },
      'registry-password',
      "Invalid input 'registry-password' (value hidden: secret): is empty while 'registry-username' is set; give both for the image check, or neither to use the job's Docker login.",
    ],
    [
      'a password without a user name',
      { 'registry-password': PASSWORD },
      'registry-username',
      "Invalid input 'registry-username' '': is empty while 'registry-password' is set; give both for the image check, or neither to use the job's Docker login.",
    ],
  ])('%s is refused, naming the input', (_name, overrides, input, message) => {
    const error = failure(overrides)
    expect(error.input).toBe(input)
    expect(error.message).toContain(message)
    expect(error.message).not.toContain(PASSWORD)
  })
})
