import { describe, expect, test } from '@jest/globals'
import { parseChallenges } from '../../../../src/core/registry/challenge.js'

describe('parseChallenges: WWW-Authenticate as registries send it', () => {
  test.each([
    [
      'Docker Hub',
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"',
      [
        {
          scheme: 'bearer',
          params: {
            realm: 'https://auth.docker.io/token',
            service: 'registry.docker.io',
            scope: 'repository:library/nginx:pull',
          },
        },
      ],
    ],
    [
      'the distribution registry with htpasswd',
      'Basic realm="olympe-test-registry"',
      [{ scheme: 'basic', params: { realm: 'olympe-test-registry' } }],
    ],
    [
      'a scope with two actions: a comma inside quotes',
      'Bearer realm="https://gitlab.example.com/jwt/auth",service="container_registry",scope="repository:g/p:pull,push",error="insufficient_scope"',
      [
        {
          scheme: 'bearer',
          params: {
            realm: 'https://gitlab.example.com/jwt/auth',
            service: 'container_registry',
            scope: 'repository:g/p:pull,push',
            error: 'insufficient_scope',
          },
        },
      ],
    ],
    [
      'spaces around the separators, unquoted values, names in any case',
      'bearer  Realm = "https://r.example/token" , SERVICE=r.example',
      [{ scheme: 'bearer', params: { realm: 'https://r.example/token', service: 'r.example' } }],
    ],
    [
      'escaped quotes in a quoted value',
      'Basic realm="the \\"test\\" registry"',
      [{ scheme: 'basic', params: { realm: 'the "test" registry' } }],
    ],
    [
      'two challenges in one header',
      'Basic realm="one", Bearer realm="https://two.example/token",service="two"',
      [
        { scheme: 'basic', params: { realm: 'one' } },
        {
          scheme: 'bearer',
          params: { realm: 'https://two.example/token', service: 'two' },
        },
      ],
    ],
    ['a scheme without parameters', 'Negotiate', [{ scheme: 'negotiate', params: {} }]],
    ['nothing', '', []],
    [
      'an unclosed quote ends the parse',
      'Bearer service=x, realm="https://r.example/token',
      [{ scheme: 'bearer', params: { service: 'x' } }],
    ],
    [
      'an unquoted value that is not a token ends the parse',
      'Bearer realm=https://r.example/token',
      [{ scheme: 'bearer', params: {} }],
    ],
  ])('%s', (_name, header, expected) => {
    expect(parseChallenges(header)).toEqual(expected)
  })
})
