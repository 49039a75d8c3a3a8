import { describe, expect, test } from '@jest/globals'
import { parseDockerConfig } from '../../../../src/core/registry/docker-config-logins.js'

const PATH = '/home/runner/.docker/config.json'
const auth = (user: string, password: string): string =>
  Buffer.from(`${user}:${password}`).toString('base64')
const source = `the Docker config ${PATH}`

describe('parseDockerConfig: the logins `docker login` wrote', () => {
  test('auths by registry name, Docker Hub keys included; a password may hold colons', () => {
    const config = {
      auths: {
        '127.0.0.1:5000': { auth: auth('ci', 'pw') },
        'https://index.docker.io/v1/': { auth: auth('hubber', 'a:b:c') },
        'https://GHCR.io': { username: 'octo', password: 'ghp-x' },
        'registry.example.com': {},
      },
    }
    const { logins, notes } = parseDockerConfig(JSON.stringify(config), PATH)
    expect(Object.fromEntries(logins)).toEqual({
      '127.0.0.1:5000': { username: 'ci', password: 'pw', source },
      'docker.io': { username: 'hubber', password: 'a:b:c', source },
      'ghcr.io': { username: 'octo', password: 'ghp-x', source },
    })
    expect(notes).toEqual([])
  })

  test('credential helpers and identity tokens are skipped, with a note each', () => {
    const config = {
      auths: {
        'r.example': { identitytoken: 'refresh-token' },
        'q.example': { auth: 'bm9jb2xvbg==' },
      },
      credsStore: 'desktop',
      credHelpers: { 'gcr.io': 'gcloud' },
    }
    const { logins, notes } = parseDockerConfig(JSON.stringify(config), PATH)
    expect(logins.size).toBe(0)
    expect(notes).toEqual([
      `${source}: the login to 'r.example' holds an identity token, which needs an OAuth exchange that this step does not make; it is not used.`,
      `${source}: the login to 'q.example' has an 'auth' that is not base64 of 'user:password'; it is not used.`,
      `${source} names credential helpers (credsStore 'desktop', credHelpers for 'gcr.io'), which are not run: the registries they serve are asked without their logins; to use one, give its login in 'registry-username' and 'registry-password' (and name it in 'registry' when the images are in several registries).`,
    ])
  })

  test.each([
    ['not valid JSON', '{', 'is not valid JSON: it ends too early (after line 1)'],
    ['an array', '[]', 'is not a JSON object'],
  ])('a config that is %s gives no login and a note', (_name, text, problem) => {
    const { logins, notes } = parseDockerConfig(text, PATH)
    expect(logins.size).toBe(0)
    expect(notes).toEqual([
      `The Docker config ${PATH} ${problem}: its logins are not used, and the registries are asked without them.`,
    ])
  })

  test('a byte order mark (a config saved by a Windows editor) is accepted', () => {
    const config = JSON.stringify({ auths: { 'r.example': { auth: auth('ci', 'pw') } } })
    const { logins } = parseDockerConfig(`\uFEFF${config}`, PATH)
    expect(logins.get('r.example')?.username).toBe('ci')
  })

  test('a broken config is never quoted: the login around the syntax error stays out of the note', () => {
    // JSON.parse's own message would quote `…"auth":Y2k6c2VjcmV0LXB3}…`.
    const login = auth('ci', 'secret-pw')
    const { notes } = parseDockerConfig(`{"auths":{"r.example":{"auth":${login}}}}`, PATH)
    expect(notes.join('\n')).not.toContain(login.slice(0, 8))
    expect(notes).toEqual([
      `The Docker config ${PATH} is not valid JSON: unexpected 'Y' at line 1, column 31: its logins are not used, and the registries are asked without them.`,
    ])
  })
})
