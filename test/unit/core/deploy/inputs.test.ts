import { describe, expect, test } from '@jest/globals'
import { withDefaults } from '../../../../src/core/definition.js'
import { deployDefinition, type DeployInputName } from '../../../../src/core/deploy/definition.js'
import { load as parseYaml } from 'js-yaml'
import { parseDeployInputs } from '../../../../src/core/deploy/inputs.js'
import { InputError } from '../../../../src/core/shared/errors.js'
import { GITLAB_REGISTRY_PASSWORD } from '../../../../src/platform/context.js'
import { inputErrorOf } from '../../../helpers/input-errors.js'
import { expectToSay } from '../../../helpers/assertions.js'

const SECRET_TOKEN = 'tok-3f9a7c1e5b'
const valid: Partial<Record<DeployInputName, string>> = {
  'webhook-url': 'https://deploy.example.com/hooks/abc',
  'webhook-token': SECRET_TOKEN,
  'frontend-image': 'r.io/shop/front:1',
}
const parse = (
  overrides: Partial<Record<DeployInputName, string>>,
): ReturnType<typeof parseDeployInputs> =>
  parseDeployInputs(withDefaults(deployDefinition, { ...valid, ...overrides }), { parseYaml })

describe('deploy inputs', () => {
  test('defaults come from the definition, as action.yml gives them on GitHub', () => {
    const inputs = parse({})
    expect(inputs).toMatchObject({
      timeoutSeconds: 60,
      dryRun: false,
      forceSync: false,
      skipUpdateVersions: false,
      backendImages: [],
    })
    expect(inputs.deployRules).toBeUndefined()
    expect(inputs.codeasdataUpdateMode).toBeUndefined()
  })

  test.each([
    ['TRUE', true],
    ['False', false],
    [' true ', true],
  ])('boolean %j reads as %s', (raw, expected) => {
    expect(parse({ 'dry-run': raw }).dryRun).toBe(expected)
  })

  test.each([
    ['one per line', 'r.io/a:1\nr.io/b:1\n\n', ['r.io/a:1', 'r.io/b:1']],
    ['comma-separated', 'r.io/a:1, r.io/b:1', ['r.io/a:1', 'r.io/b:1']],
  ])('backend-images %s', (_name, raw, expected) => {
    expect(parse({ 'backend-images': raw }).backendImages).toEqual(expected)
  })

  test.each([
    ['JSON', '[{"source": "api", "target": "^(?!legacy).*$"}]'],
    ['YAML', '- source: api\n  target: ^(?!legacy).*$\n'],
  ])('deploy-rules as %s', (_name, raw) => {
    expect(parse({ 'deploy-rules': raw }).deployRules).toEqual([
      { source: 'api', target: '^(?!legacy).*$' },
    ])
  })

  test.each<[string, Partial<Record<DeployInputName, string>>, DeployInputName, string]>([
    ['missing url', { 'webhook-url': '' }, 'webhook-url', 'is required'],
    [
      'relative url',
      { 'webhook-url': 'deploy/hook' },
      'webhook-url',
      'expected an absolute https:// URL',
    ],
    [
      'ftp url',
      { 'webhook-url': 'ftp://x.example.com/h' },
      'webhook-url',
      'expected an https:// URL',
    ],
    [
      'plain http to a remote host',
      { 'webhook-url': 'http://deploy.example.com/h' },
      'webhook-url',
      'allow-insecure-http: true',
    ],
    ['missing token', { 'webhook-token': '' }, 'webhook-token', 'is required'],
    [
      'a token with a line break',
      { 'webhook-token': 'tok-3f9a\n7c1e5b' },
      'webhook-token',
      "Invalid input 'webhook-token' (value hidden: secret): contains a line break, which an HTTP header cannot carry",
    ],
    [
      'a token with a carriage return',
      { 'webhook-token': 'tok-3f9a\r7c1e5b' },
      'webhook-token',
      'contains a line break',
    ],
    [
      'a token beyond Latin-1',
      { 'webhook-token': 'tok-3f9a\u20147c1e5b' },
      'webhook-token',
      "Invalid input 'webhook-token' (value hidden: secret): contains a control character or a character beyond Latin-1 (such as an emoji or a curly quote), which an HTTP header cannot carry",
    ],
    [
      'a token with a control character',
      { 'webhook-token': 'tok-3f9a\u00007c1e5b' },
      'webhook-token',
      'contains a control character',
    ],
    ['yes as boolean', { 'dry-run': 'yes' }, 'dry-run', "expected 'true' or 'false'"],
    [
      'untagged image',
      { 'frontend-image': 'r.io/shop/front' },
      'frontend-image',
      'has no tag or digest',
    ],
    [
      'one bad backend',
      { 'backend-images': 'r.io/a:1\nR.io/Bad Name:1' },
      'backend-images',
      "'R.io/Bad Name:1'",
    ],
    [
      'unknown mode',
      { 'promotion-mode': 'later' },
      'promotion-mode',
      "expected one of 'auto', 'manual'",
    ],
    ['zero timeout', { 'timeout-seconds': '0' }, 'timeout-seconds', 'whole number from 1 to 3600'],
    ['fractional timeout', { 'timeout-seconds': '1.5' }, 'timeout-seconds', 'whole number'],
    [
      'rules not a list',
      { 'deploy-rules': '{"source": ".*"}' },
      'deploy-rules',
      'expected a list of {source, target}',
    ],
    [
      'rule without target',
      { 'deploy-rules': '[{"source": ".*"}]' },
      'deploy-rules',
      'at [0].target: is missing: give the regular expression that the backend names must match',
    ],
    [
      'rule with an unknown key',
      { 'deploy-rules': '[{"source": ".*", "target": ".*", "x": 1}]' },
      'deploy-rules',
      'at [0].x: unknown key "x": expected only "source", "target"',
    ],
    [
      'rule that does not compile',
      { 'deploy-rules': '[{"source": "(", "target": ".*"}]' },
      'deploy-rules',
      "at [0].source: '(' is not a valid regular expression (Unterminated group)",
    ],
    [
      'a target that does not compile',
      { 'deploy-rules': '- source: api\n  target: "[z-a"' },
      'deploy-rules',
      "at [0].target: '[z-a' is not a valid regular expression (Range out of order in character class)",
    ],
    [
      'rules that are not YAML',
      { 'deploy-rules': '[{source: ' },
      'deploy-rules',
      'neither JSON nor YAML',
    ],
  ])('%s: names %s and says what is expected', (_name, overrides, input, expected) => {
    let error: unknown
    try {
      parse(overrides)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).input).toBe(input)
    expectToSay((error as InputError).message, `Invalid input '${input}'`, expected)
  })

  test.each(['tok\tab', 'tök-latin-1', 'tok with spaces'])(
    'a token that a header carries is accepted: %j',
    (token) => {
      expect(parse({ 'webhook-token': token }).webhookToken).toBe(token)
    },
  )

  test('a refused token is never quoted', () => {
    expect(() => parse({ 'webhook-token': 'tok-3f9a\n7c1e5b' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('3f9a') as unknown }),
    )
  })

  test('every bad input is reported at once, secrets hidden', () => {
    expect(() =>
      parse({ 'webhook-url': 'not a url', 'dry-run': 'maybe', 'webhook-token': '' }),
    ).toThrow(
      /'webhook-url' \(value hidden: secret\)[\s\S]*'webhook-token'[\s\S]*'dry-run' 'maybe'/,
    )
  })

  test.each([
    'http://localhost:8080/h',
    'http://127.0.0.1/h',
    'http://127.4.5.6:1/h',
    'http://[::1]:9/h',
  ])('plain http is fine on loopback %s', (url) => {
    expect(parse({ 'webhook-url': url }).webhookUrl.href).toBe(new URL(url).href)
  })

  test('plain http elsewhere with allow-insecure-http', () => {
    expect(
      parse({ 'webhook-url': 'http://deploy.lan/h', 'allow-insecure-http': 'true' })
        .allowInsecureHttp,
    ).toBe(true)
  })
})

const REGISTRY_PASSWORD = 'reg-pw-5c1e'

const failure = (overrides: Partial<Record<DeployInputName, string>>): InputError =>
  inputErrorOf(() => parse(overrides))

describe('the image check inputs', () => {
  test('by default: auto, no login', () => {
    expect(parse({})).toMatchObject({ verifyImages: 'auto', registryLogin: undefined })
  })

  test.each(['auto', 'true', 'false'] as const)('verify-images %s', (mode) => {
    expect(parse({ 'verify-images': mode }).verifyImages).toBe(mode)
  })

  test.each(['auto', 'true', 'false'] as const)('pin-digests %s (auto by default)', (mode) => {
    expect(parse({}).pinDigests).toBe('auto')
    expect(parse({ 'pin-digests': mode }).pinDigests).toBe(mode)
  })

  test('a login, for the registry given by its one name', () => {
    expect(
      parse({
        registry: 'index.docker.io',
        'registry-username': 'ci',
        'registry-password': REGISTRY_PASSWORD,
      }).registryLogin,
    ).toEqual({ registry: 'docker.io', username: 'ci', password: REGISTRY_PASSWORD })
    expect(
      parse({
        registry: 'ghcr.io/acme',
        'registry-username': 'ci',
        'registry-password': REGISTRY_PASSWORD,
      }).registryLogin,
    ).toEqual({ registry: 'ghcr.io', username: 'ci', password: REGISTRY_PASSWORD })
    expect(
      parse({ 'registry-username': 'ci', 'registry-password': REGISTRY_PASSWORD }).registryLogin,
    ).toEqual({ registry: undefined, username: 'ci', password: REGISTRY_PASSWORD })
  })

  test.each<[string, Partial<Record<DeployInputName, string>>, DeployInputName, string]>([
    [
      'a verify-images that is no choice',
      { 'verify-images': 'yes' },
      'verify-images',
      "Invalid input 'verify-images' 'yes': expected one of 'auto', 'true', 'false'.",
    ],
    [
      'a pin-digests that is no choice',
      { 'pin-digests': 'always' },
      'pin-digests',
      "Invalid input 'pin-digests' 'always': expected one of 'auto', 'true', 'false'.",
    ],
    [
      'pin-digests false with verify-signatures',
      { 'pin-digests': 'false', 'verify-signatures': 'cosign.pub' },
      'pin-digests',
      "Invalid input 'pin-digests' 'false': is false, but 'verify-signatures' is set: a signature is checked for the digest the registry gave, and a tag sent as given may be moved to another, unsigned, image before the platform pulls it; set 'pin-digests' to 'auto' (or 'true'), which sends each image by that digest, or leave 'verify-signatures' empty.",
    ],
    [
      'pin-digests true with the image check off',
      { 'pin-digests': 'true', 'verify-images': 'false' },
      'pin-digests',
      "Invalid input 'pin-digests' 'true': is true, but 'verify-images' is false, and the digests to send come from the image check; set 'verify-images' to 'true' (or 'auto', which then acts as 'true'), or 'pin-digests' to 'auto' or 'false'.",
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
      "Invalid input 'registry-password' (value hidden: secret): is empty while 'registry-username' is set; give both, or neither to use the job's existing Docker login.",
    ],
    [
      'a password without a user name',
      { 'registry-password': REGISTRY_PASSWORD },
      'registry-username',
      "Invalid input 'registry-username' '': is empty while 'registry-password' is set; give both, or neither to use the job's existing Docker login.",
    ],
  ])('%s is refused, naming the input', (_name, overrides, input, message) => {
    const error = failure(overrides)
    expect(error.input).toBe(input)
    expect(error.message).toContain(message)
    expect(error.message).not.toContain(REGISTRY_PASSWORD)
  })
})

test('a user name without its password on GitLab names the CI/CD variable, and the Docker login the image check reads', () => {
  const error = inputErrorOf(() =>
    parseDeployInputs(
      withDefaults(deployDefinition, { ...valid, 'registry-username': 'gitlab-ci-token' }),
      { parseYaml },
      { registryPasswordFrom: GITLAB_REGISTRY_PASSWORD },
    ),
  )
  expect(error.input).toBe('registry-password')
  expect(error.message).toBe(
    "Invalid input 'registry-password' (value hidden: secret): is empty while 'registry-username' is set; on GitLab the templates give it the CI/CD variable CI_REGISTRY_PASSWORD (GitLab's job token, beside CI_REGISTRY_USER), or, for another registry or account, the masked CI/CD variable INPUT_REGISTRY_PASSWORD: define the one that goes with that user name; or leave 'registry-username' empty to use the job's existing Docker login.",
  )
})
