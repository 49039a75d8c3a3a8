import { describe, expect, test } from '@jest/globals'
import { registryRetag } from '../../../../src/core/build-images/retag.js'
import { basicAuth } from '../../../../src/core/shared/http.js'
import { fakeNetwork, memoryRegistry } from '../../../helpers/fake-registry.js'
import { memoryFiles } from '../../../helpers/memory-files.js'
import { recordingTools } from '../../../helpers/recording.js'

const ORIGIN = 'https://reg.example.com'
const LOGIN = {
  registry: 'reg.example.com',
  credentials: {
    username: 'ci',
    password: 'pw-9',
    source: "'registry-username' and 'registry-password'",
  },
}

function setUp(): {
  registry: ReturnType<typeof memoryRegistry>
  network: ReturnType<typeof fakeNetwork>
  retag: ReturnType<typeof registryRetag>
  lines: string[]
} {
  const registry = memoryRegistry(ORIGIN, `Basic ${basicAuth('ci', 'pw-9')}`)
  const network = fakeNetwork(registry.script)
  const { logger, lines } = recordingTools()
  const retag = registryRetag(LOGIN, {
    ...network,
    logger,
    files: memoryFiles({}),
    dockerConfigPath: '/home/ci/.docker/config.json',
    registerSecret: () => undefined,
    redact: (text) => text,
  })
  return { registry, network, retag, lines }
}

describe('registryRetag', () => {
  test('the manifest pushed is read back by its digest and put under the tag, with the login', async () => {
    const { registry, retag, lines } = setUp()
    const digest = registry.put('shop/backend-api', 'main-1a2b3c4', { labels: { team: 'web' } })
    const problem = await retag(
      'reg.example.com/shop/backend-api:main-1a2b3c4',
      digest,
      'reg.example.com/shop/backend-api:main',
    )
    expect(problem).toBeUndefined()
    expect(registry.digestOf('shop/backend-api', 'main')).toBe(digest)
    expect(registry.puts).toEqual(['PUT shop/backend-api:main'])
    expect(lines).toEqual([
      "Registry 'reg.example.com': asked with the login from 'registry-username' and 'registry-password'.",
    ])
    // The login is chosen once per registry.
    await retag(
      'reg.example.com/shop/frontend:main-1a2b3c4',
      registry.put('shop/frontend', 'main-1a2b3c4', {}),
      'reg.example.com/shop/frontend:main',
    )
    expect(lines).toHaveLength(1)
  })

  test('a digest the registry does not hold: nothing is put, and the problem says why', async () => {
    const { registry, retag } = setUp()
    registry.put('shop/backend-api', 'main-1a2b3c4', {})
    const absent = `sha256:${'1'.repeat(64)}`
    const problem = await retag(
      'reg.example.com/shop/backend-api:main-1a2b3c4',
      absent,
      'reg.example.com/shop/backend-api:main',
    )
    expect(problem).toBe(
      `reading ${absent} back: '${absent}' does not exist (HTTP 404, MANIFEST_UNKNOWN)`,
    )
    expect(registry.puts).toEqual([])
  })

  test('a registry this step cannot reach: the problem, for the push to do it', async () => {
    const { retag } = setUp()
    const problem = await retag(
      'unreachable.example.com/shop/backend-api:main-1a2b3c4',
      `sha256:${'1'.repeat(64)}`,
      'unreachable.example.com/shop/backend-api:main',
    )
    expect(problem).toBe('the host name could not be resolved (ENOTFOUND)')
  })

  test('a tag in another repository is not given through the API', async () => {
    const { network, retag } = setUp()
    const problem = await retag(
      'reg.example.com/shop/backend-api:main-1a2b3c4',
      `sha256:${'1'.repeat(64)}`,
      'reg.example.com/shop/other:main',
    )
    expect(problem).toBe(
      "'reg.example.com/shop/other:main' is not in the repository of 'reg.example.com/shop/backend-api:main-1a2b3c4'",
    )
    expect(network.requests).toEqual([])
  })
})
