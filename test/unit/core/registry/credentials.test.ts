import { describe, expect, test } from '@jest/globals'
import {
  EXISTING_LOGIN,
  loginFromInputs,
  parseBasicAuth,
  parseRegistry,
} from '../../../../src/core/registry/credentials.js'
import { loginForms } from '../../../../src/core/registry/inputs.js'
import { basicAuth } from '../../../../src/core/shared/http.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { GITLAB_REGISTRY_PASSWORD } from '../../../../src/platform/context.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

describe('registry credentials', () => {
  test('basicAuth is base64 of user:password, and parseBasicAuth reads it back', () => {
    expect(basicAuth('ci', 'pa:ss')).toBe(Buffer.from('ci:pa:ss').toString('base64'))
    expect(parseBasicAuth(basicAuth('ci', 'pa:ss'))).toEqual({ username: 'ci', password: 'pa:ss' })
    expect(parseBasicAuth(Buffer.from('no-colon').toString('base64'))).toBeUndefined()
    expect(parseBasicAuth(Buffer.from(':pw').toString('base64'))).toBeUndefined()
  })

  test('the secrets of a login: its password and the base64 form Docker stores', () => {
    expect(loginForms('ci', 'pw-1')).toEqual(['pw-1', basicAuth('ci', 'pw-1')])
    expect(loginForms('ci', '')).toEqual([])
  })

  test.each<[string, string | undefined, string | undefined, ReturnType<typeof loginFromInputs>]>([
    ['both', 'ci', 'pw', { username: 'ci', password: 'pw' }],
    ['neither', undefined, undefined, undefined],
    [
      'a user name alone',
      'ci',
      undefined,
      {
        input: 'registry-password',
        problem:
          "is empty while 'registry-username' is set; give both, or neither to use the job's existing Docker login",
      },
    ],
    [
      'a password alone',
      undefined,
      'pw',
      {
        input: 'registry-username',
        problem:
          "is empty while 'registry-password' is set; give both, or neither to use the job's existing Docker login",
      },
    ],
    [
      'a user name with a colon',
      'ci:pw',
      'pw',
      {
        input: 'registry-username',
        problem:
          'holds a colon or a control character (a line break, a tab), which no registry user name can; expected the user name alone',
      },
    ],
  ])('login inputs: %s', (_name, username, password, expected) => {
    expect(loginFromInputs(username, password)).toEqual(expected)
  })

  test.each([
    ['Buildah', EXISTING_LOGIN.buildah, "Buildah's login from earlier in the job (buildah login)"],
    [
      "either builder ('auto')",
      EXISTING_LOGIN.auto,
      "the job's existing login (docker login, or buildah login)",
    ],
  ])('a login given by half, with %s, names its login', (_name, existing, said) => {
    expect(loginFromInputs('ci', undefined, { existing })).toEqual({
      input: 'registry-password',
      problem: `is empty while 'registry-username' is set; give both, or neither to use ${said}`,
    })
    expect(loginFromInputs(undefined, 'pw', { existing })).toEqual({
      input: 'registry-username',
      problem: `is empty while 'registry-password' is set; give both, or neither to use ${said}`,
    })
  })

  test("GitLab's templates give the password from a CI/CD variable: the message names it", () => {
    const advice = { existing: EXISTING_LOGIN.buildah, passwordFrom: GITLAB_REGISTRY_PASSWORD }
    expect(loginFromInputs('gitlab-ci-token', undefined, advice)).toEqual({
      input: 'registry-password',
      problem:
        "is empty while 'registry-username' is set; on GitLab the templates give it the CI/CD variable CI_REGISTRY_PASSWORD (GitLab's job token, beside CI_REGISTRY_USER), or, for another registry or account, the masked CI/CD variable INPUT_REGISTRY_PASSWORD: define the one that goes with that user name; or leave 'registry-username' empty to use Buildah's login from earlier in the job (buildah login)",
    })
    // A password without a user name: the user name is the input to give, as anywhere.
    expect(loginFromInputs(undefined, 'pw', advice)).toMatchObject({ input: 'registry-username' })
  })

  eachAnswer('registry %s', parseRegistry, [
    ['ghcr.io', { host: 'ghcr.io', prefix: 'ghcr.io' }],
    ['ghcr.io/acme/', { host: 'ghcr.io', prefix: 'ghcr.io/acme' }],
    ['localhost:5000', { host: 'localhost:5000', prefix: 'localhost:5000' }],
  ])

  test.each([
    ['https://ghcr.io', 'has a scheme;'],
    ['acme/shop', 'is not a registry host;'],
    ['r.io:70000', 'has port 70000, which is not from 1 to 65535;'],
  ])('registry %s is refused', (raw, problem) => {
    const parsed = parseRegistry(raw)
    expect(isProblem(parsed) && parsed.problem).toContain(problem)
  })
})
