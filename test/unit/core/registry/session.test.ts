import { describe, expect, test } from '@jest/globals'
import { registryImage } from '../../../../src/core/registry/reference.js'
import {
  errorCodesIn,
  errorCodesOf,
  RegistrySession,
} from '../../../../src/core/registry/session.js'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { fakeNetwork, respond, type FakeNetwork } from '../../../helpers/fake-registry.js'

describe('the error codes of a distribution API error body', () => {
  test.each<[string, string, string[], string]>([
    [
      'two codes',
      '{"errors":[{"code":"MANIFEST_UNKNOWN","message":"x"},{"code":"NAME_UNKNOWN"}]}',
      ['MANIFEST_UNKNOWN', 'NAME_UNKNOWN'],
      ', MANIFEST_UNKNOWN, NAME_UNKNOWN',
    ],
    [
      'entries that are no error object are passed over',
      '{"errors":[null,7,{"code":5},{"code":"DENIED"}]}',
      ['DENIED'],
      ', DENIED',
    ],
    [
      "a registry's own text is a code but no upper-case word",
      '{"errors":[{"code":"not found, try later"}]}',
      ['not found, try later'],
      '',
    ],
    ['no errors list', '{"errors":{"code":"DENIED"}}', [], ''],
    ['no JSON', '<html>502 Bad Gateway</html>', [], ''],
    ['JSON null', 'null', [], ''],
  ])('%s', (_case, body, codes, shown) => {
    expect(errorCodesIn(body)).toEqual(codes)
    expect(errorCodesOf(body)).toBe(shown)
  })
})

describe('requests of one session at once', () => {
  test("a challenge another request answered meanwhile answers this one's too", async () => {
    const { network, session } = basicSession()
    // The first answer to 'feature' comes only once 'main' was sent again with the login.
    let answerFeature = (): void => undefined
    const featureHeld = new Promise<void>((resolve) => (answerFeature = resolve))
    const send = network.http.request.bind(network.http)
    network.http.request = async (request) => {
      const answer = send(request)
      if (request.url.pathname.endsWith('/feature') && !request.headers.Authorization)
        await featureHeld
      if (request.url.pathname.endsWith('/main') && request.headers.Authorization) answerFeature()
      return answer
    }
    const [main, feature] = await Promise.all([
      session.send({ method: 'GET', path: 'manifests/main', maxBodyBytes: 100 }),
      session.send({ method: 'GET', path: 'manifests/feature', maxBodyBytes: 100 }),
    ])
    expect([main, feature].map((answer) => ('status' in answer ? answer.status : answer))).toEqual([
      200, 200,
    ])
    // 'feature' is asked again with the login 'main' got: no second answer to the challenge.
    expect(
      network.requests.map(({ url, headers }) => [url.pathname, headers.Authorization]),
    ).toEqual([
      ['/v2/app/web/manifests/main', undefined],
      ['/v2/app/web/manifests/feature', undefined],
      ['/v2/app/web/manifests/main', BASIC],
      ['/v2/app/web/manifests/feature', BASIC],
    ])
  })

  test('a second 401 to the login it was sent with is returned as it is, and not asked again', async () => {
    const { network, session } = basicSession(() => true)
    const answer = await session.send({ method: 'GET', path: 'manifests/main', maxBodyBytes: 100 })
    expect('status' in answer && answer.status).toBe(401)
    expect(network.requests.map(({ headers }) => headers.Authorization)).toEqual([undefined, BASIC])
  })
})

const BASIC = `Basic ${Buffer.from('ci:pw-9').toString('base64')}`

/** A registry that challenges for Basic auth, and refuses the login too when `refuses` says so. */
function basicSession(refuses: () => boolean = () => false): {
  network: FakeNetwork
  session: RegistrySession
} {
  const network = fakeNetwork((request) =>
    request.headers.Authorization === BASIC && !refuses()
      ? respond(200, {}, '{}')
      : respond(401, { 'WWW-Authenticate': 'Basic realm="registry"' }),
  )
  const target = registryImage('reg.example.com/app/web:main')
  if (isProblem(target)) throw new Error(target.problem)
  const ports = { ...network, registerSecret: () => undefined, redact: (text: string) => text }
  const deadline = startDeadline(network.clock, 30, 'the test')
  const login = { username: 'ci', password: 'pw-9', source: 'the test' }
  return { network, session: new RegistrySession(target, login, 'pull', deadline, ports, 1) }
}
