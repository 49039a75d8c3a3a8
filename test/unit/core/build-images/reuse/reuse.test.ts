import { beforeEach, describe, expect, test } from '@jest/globals'
import type {
  ReuseRecord,
  ReuseRecords,
} from '../../../../../src/core/build-images/reuse/ci-record.js'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../../../../../src/core/build-images/definition.js'
import { BUILT_AS_LABEL, FINGERPRINT_LABEL } from '../../../../../src/core/shared/image-labels.js'
import { checkBuildImages } from '../../../../../src/core/build-images/check.js'
import { runBuildImages } from '../../../../../src/core/build-images/run.js'
import { withDefaults } from '../../../../../src/core/definition.js'
import {
  fakeDocker,
  type FakeDocker,
  type FakeDockerScript,
} from '../../../../helpers/docker-fake.js'
import {
  failure,
  fakeNetwork,
  memoryRegistry,
  respond,
  type MemoryRegistry,
  type RegistryScript,
} from '../../../../helpers/fake-registry.js'
import { memoryFiles } from '../../../../helpers/memory-files.js'
import { buildImagesPorts, PUSH_TO_MAIN } from '../../../../helpers/unit-fakes.js'

const SHA1 = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'
const SHA2 = '5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80'
const BASIC = `Basic ${Buffer.from('ci:pw-123456').toString('base64')}`
const LOGIN = { 'registry-username': 'ci', 'registry-password': 'pw-123456' }
const FRONTEND_ONLY = { images: 'frontend', codeasdata: 'false' }

const dockerfile = (base: string): string =>
  `FROM r.io/${base}:stable\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n`
const PROJECT: Record<string, string> = {
  '/p/docker/frontend.Dockerfile': dockerfile('frontend-base'),
  '/p/docker/backend.Dockerfile': dockerfile('backend-base'),
  '/p/docker/codeasdata.Dockerfile': dockerfile('backend-base'),
  '/p/dist/web/index.html': '<html>',
  '/p/dist/web/version.json': '{"version":"1.4.0"}',
  '/p/dist/node/main.js': 'console.log(1)',
  '/p/dist/codeAsData/import_order.json': '[]',
  '/p/package.json': '{"version":"1.4.0"}',
}

/** The CI's records (ci-record.ts) in memory: what the default branch's runs added. */
interface MemoryRecords extends ReuseRecords {
  kept: ReuseRecord[]
  asked: string[]
  /** Why they are not trusted in this run (what untrusted() answers), if they are not. */
  distrust?: string
}

function memoryRecords(): MemoryRecords {
  const kept: ReuseRecord[] = []
  const asked: string[] = []
  const records: MemoryRecords = {
    where: 'the memory cache',
    kept,
    asked,
    untrusted: () => Promise.resolve(records.distrust),
    has: (record) => {
      asked.push(record.digest)
      return Promise.resolve(
        kept.some((k) => k.fingerprint === record.fingerprint && k.digest === record.digest),
      )
    },
    add: (added) => {
      kept.push(...added)
      return Promise.resolve(undefined)
    },
  }
  return records
}

let records: MemoryRecords | undefined
beforeEach(() => {
  records = memoryRecords()
})

interface Ran {
  docker: FakeDocker
  lines: string[]
  outputs: Record<string, string>
  summary: string
  error?: unknown
}

/** A registry at https://r.io that holds the base images and needs the login. */
function registryWithBases(): MemoryRegistry {
  const registry = memoryRegistry('https://r.io', BASIC)
  registry.put('frontend-base', 'stable', {})
  registry.put('backend-base', 'stable', {})
  return registry
}

async function run(
  registry: { script: RegistryScript },
  options: {
    given?: Partial<Record<BuildImagesInputName, string>>
    sha?: string
    branch?: string
    files?: Record<string, string>
    /** The builder the run builds with (default: Docker 26.1.5). */
    builder?: FakeDockerScript
  } = {},
): Promise<Ran> {
  const docker = fakeDocker(options.builder ?? { server: '26.1.5' })
  const network = fakeNetwork(registry.script)
  const files = memoryFiles(options.files ?? PROJECT)
  const ports = buildImagesPorts(docker, files, { network, records })
  const ctx = { ...PUSH_TO_MAIN, sha: options.sha ?? SHA1, branch: options.branch ?? 'main' }
  const raw = withDefaults(buildImagesDefinition, {
    registry: 'r.io',
    codeasdata: 'true',
    ...LOGIN,
    ...options.given,
  })
  const ran = (error?: unknown): Ran => ({
    docker,
    lines: ports.lines,
    outputs: ports.outputs,
    summary: JSON.stringify(ports.summaries),
    ...(error === undefined ? {} : { error }),
  })
  try {
    await runBuildImages(await checkBuildImages(raw, ctx, ports), ctx, ports)
    return ran()
  } catch (error) {
    return ran(error)
  }
}

/** What `docker push` would have left in the registry after a run: each built image, every tag. */
function pushBuilt(registry: MemoryRegistry, docker: FakeDocker): Record<string, string> {
  const digests: Record<string, string> = {}
  for (const command of docker.builds) {
    const labels = Object.fromEntries(command.labels)
    let digest = ''
    for (const reference of command.tags) {
      const [repository = '', tag = ''] = reference.slice('r.io/'.length).split(':')
      digest = registry.put(repository, tag, { labels })
    }
    // What the run recorded, with the digest the registry gives (the fake push gives another).
    const fingerprint = labels[FINGERPRINT_LABEL]
    if (fingerprint) records?.kept.push({ fingerprint, digest, image: command.tags[0] ?? '' })
    // By the image's last name part: `backend`, or `backend-api` for one of several backends.
    digests[/\/([a-z0-9-]+):/.exec(command.tags[0] ?? '')?.[1] ?? ''] = digest
  }
  return digests
}

/** A first run that builds and pushes all three images, as the registry then holds them. */
async function firstRun(registry: MemoryRegistry): Promise<Record<string, string>> {
  const first = await run(registry)
  expect(first.error).toBeUndefined()
  expect(first.docker.builds).toHaveLength(3)
  return pushBuilt(registry, first.docker)
}

const built = (ran: Ran): string[] =>
  ran.docker.calls.filter((call) => call.startsWith('build ')).map((call) => call.slice(6))

describe('reuse of unchanged images', () => {
  test('a first run builds every image with its fingerprint and the tag it is built as, and --pull', async () => {
    const registry = registryWithBases()
    const ran = await run(registry)
    expect(ran.error).toBeUndefined()
    expect(built(ran)).toEqual(['frontend', 'backend', 'codeasdata'])
    for (const command of ran.docker.builds) {
      const labels = Object.fromEntries(command.labels)
      expect(labels[FINGERPRINT_LABEL]).toMatch(/^sha256:[0-9a-f]{64}$/)
      expect(labels[BUILT_AS_LABEL]).toBe('main-1a2b3c4')
      expect(command.pull).toBe(true)
    }
    // Same Dockerfile and base, other sources: other fingerprints.
    const fingerprints = ran.docker.builds.map(
      (c) => Object.fromEntries(c.labels)[FINGERPRINT_LABEL],
    )
    expect(new Set(fingerprints).size).toBe(3)
    expect(ran.lines).toContain("backend: built: no image 'main' in the registry yet.")
    expect(ran.lines.filter((line) => line.startsWith('backend: fingerprint '))).toEqual([
      expect.stringMatching(
        /^backend: fingerprint sha256:[0-9a-f]{64} \(1 file in dist\/node; 1 image\(s\) built from: r\.io\/backend-base:stable\)$/,
      ),
    ])
    expect(ran.outputs.reused).toBe('[]')
    expect(ran.lines).toContain(
      "Registry 'r.io': asked with the login from 'registry-username' and 'registry-password'.",
    )
  })

  test('nothing changed: every image gets the new tags, nothing is built, pushed or logged in', async () => {
    const registry = registryWithBases()
    const digests = await firstRun(registry)
    const ran = await run(registry, { sha: SHA2 })
    expect(ran.error).toBeUndefined()
    expect(ran.docker.calls).toEqual([])
    // Each image's tags, then its moving tag; the three images side by side.
    expect([...registry.puts].sort()).toEqual(
      ['frontend', 'backend', 'codeasdata']
        .flatMap((kind) => [`PUT acme/shop/${kind}:main`, `PUT acme/shop/${kind}:main-5d6e7f8`])
        .sort(),
    )
    for (const kind of ['frontend', 'backend', 'codeasdata'])
      expect(registry.puts.filter((put) => put.includes(`/${kind}:`))).toEqual([
        `PUT acme/shop/${kind}:main-5d6e7f8`,
        `PUT acme/shop/${kind}:main`,
      ])
    for (const kind of ['frontend', 'backend', 'codeasdata']) {
      expect(registry.digestOf(`acme/shop/${kind}`, 'main-5d6e7f8')).toBe(digests[kind])
      expect(ran.outputs[`${kind}-digest`]).toBe(digests[kind])
      expect(ran.outputs[`${kind}-image`]).toBe(`r.io/acme/shop/${kind}:main-5d6e7f8`)
      expect(ran.lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^${kind} unchanged since main-1a2b3c4 \\(fingerprint sha256:[0-9a-f]{64}\\): tagged main-5d6e7f8, not rebuilt\\.$`,
          ),
        ),
      )
    }
    expect(JSON.parse(ran.outputs.reused ?? '')).toEqual(['frontend', 'backend', 'codeasdata'])
    expect(ran.lines).toContain('Nothing to build: no image changed since it was last pushed.')
    expect(ran.lines.filter((line) => line.startsWith('group: '))).not.toContain(
      'group: Registry login: r.io',
    )
    expect(ran.summary).toContain('Olympe images unchanged: tagged, not rebuilt')
    expect(ran.summary).toContain('unchanged since main-1a2b3c4')
  })

  test('one backend file changed: the backend is built, the others reused', async () => {
    const registry = registryWithBases()
    const digests = await firstRun(registry)
    const ran = await run(registry, {
      sha: SHA2,
      files: { ...PROJECT, '/p/dist/node/main.js': 'console.log(2)' },
    })
    expect(ran.error).toBeUndefined()
    expect(built(ran)).toEqual(['backend'])
    expect(ran.docker.calls).toContain('login r.io ci')
    expect(JSON.parse(ran.outputs.reused ?? '')).toEqual(['frontend', 'codeasdata'])
    expect(ran.outputs['frontend-digest']).toBe(digests.frontend)
    expect(ran.outputs['backend-digest']).not.toBe(digests.backend)
    expect(ran.lines).toContainEqual(
      expect.stringMatching(
        /^backend: built: 'main' \(built as main-1a2b3c4\) was built from other inputs \(fingerprint sha256:[0-9a-f]{64}\)\.$/,
      ),
    )
    expect(ran.summary).toContain('Olympe images built and pushed')
  })

  test.each<[string, Partial<Record<BuildImagesInputName, string>>, Record<string, string>]>([
    ['a build argument added', { 'build-args': 'NODE_ENV=production' }, {}],
    ['a label changed (draw_version)', { 'draw-version': '2.12.0' }, {}],
    ['the version bumped', {}, { '/p/dist/web/version.json': '{"version":"1.5.0"}' }],
    ['another platform', { platform: 'linux/arm64' }, {}],
  ])('%s: every image is built', async (_name, given, files) => {
    const registry = registryWithBases()
    await firstRun(registry)
    const ran = await run(registry, { sha: SHA2, given, files: { ...PROJECT, ...files } })
    expect(ran.error).toBeUndefined()
    expect(built(ran)).toEqual(['frontend', 'backend', 'codeasdata'])
    expect(ran.outputs.reused).toBe('[]')
  })

  test('a Dockerfile line added: that image is built', async () => {
    const registry = registryWithBases()
    await firstRun(registry)
    const files = {
      ...PROJECT,
      '/p/docker/frontend.Dockerfile': `${dockerfile('frontend-base')}LABEL team=web\n`,
    }
    const ran = await run(registry, { sha: SHA2, files })
    expect(built(ran)).toEqual(['frontend'])
  })

  test('the base image tag moved: the images built on it are built, the other reused', async () => {
    const registry = registryWithBases()
    await firstRun(registry)
    registry.put('backend-base', 'stable', { labels: { patched: 'yes' } })
    const ran = await run(registry, { sha: SHA2 })
    expect(built(ran)).toEqual(['backend', 'codeasdata'])
    expect(JSON.parse(ran.outputs.reused ?? '')).toEqual(['frontend'])
  })

  test("a feature branch reuses the default branch's image and gets its own moving tag", async () => {
    const registry = registryWithBases()
    const digests = await firstRun(registry)
    const ran = await run(registry, { sha: SHA2, branch: 'feature/X', given: { branches: '*' } })
    expect(ran.docker.calls).toEqual([])
    expect(registry.digestOf('acme/shop/backend', 'feature-x-5d6e7f8')).toBe(digests.backend)
    expect(registry.digestOf('acme/shop/backend', 'feature-x')).toBe(digests.backend)
    expect(ran.lines).toContainEqual(
      expect.stringMatching(
        /^backend: 'main' \(built as main-1a2b3c4\) has the same fingerprint, and the memory cache records that the default branch built it\.$/,
      ),
    )
  })

  test('the new tags are given to an index of one image and its provenance, byte for byte', async () => {
    const registry = registryWithBases()
    const first = await run(registry)
    const fingerprint = (kind: string): string =>
      Object.fromEntries(
        first.docker.builds.find((c) => c.dockerfile.includes(kind))?.labels ?? [],
      )[FINGERPRINT_LABEL] ?? ''
    const index = registry.putIndex('acme/shop/frontend', 'main', {
      'linux/amd64': { labels: { [FINGERPRINT_LABEL]: fingerprint('frontend') } },
    })
    records?.kept.push({ fingerprint: fingerprint('frontend'), digest: index, image: 'frontend' })
    const ran = await run(registry, { sha: SHA2, given: FRONTEND_ONLY })
    expect(ran.docker.calls).toEqual([])
    expect(ran.outputs['frontend-digest']).toBe(index)
    expect(registry.digestOf('acme/shop/frontend', 'main-5d6e7f8')).toBe(index)
  })

  test('an image of several platforms under the moving tag is not reused', async () => {
    const registry = registryWithBases()
    registry.putIndex('acme/shop/frontend', 'main', { 'linux/amd64': {}, 'linux/arm64': {} })
    const ran = await run(registry, { given: FRONTEND_ONLY })
    expect(built(ran)).toEqual(['frontend'])
    expect(ran.lines).toContain(
      "frontend: built: 'main' could not be looked up (it is a manifest list of 2 platforms).",
    )
  })

  test('an image without the fingerprint label is not reused', async () => {
    const registry = registryWithBases()
    registry.put('acme/shop/frontend', 'main', { labels: { draw_version: '2.11.3' } })
    const ran = await run(registry, { given: FRONTEND_ONLY })
    expect(built(ran)).toEqual(['frontend'])
    expect(ran.lines).toContain("frontend: built: 'main' has no fingerprint label.")
  })

  test.each<[string, string, string]>([
    [
      'ADD of a URL',
      'FROM r.io/frontend-base:stable\nADD https://example.com/app.tgz /app\n',
      "frontend: built, not looked up: 'ADD https://example.com/app.tgz' downloads what only the build knows (pin it with ADD --checksum=sha256:…).",
    ],
    [
      'a base that is not in its registry',
      'FROM r.io/gone:1\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n',
      "frontend: built, not looked up: the image 'r.io/gone:1' it builds from could not be resolved in its registry ('1' does not exist (HTTP 404, MANIFEST_UNKNOWN)).",
    ],
    [
      'a base in a registry that does not answer',
      'FROM elsewhere.example/base:1\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n',
      "frontend: built, not looked up: the image 'elsewhere.example/base:1' it builds from could not be resolved in its registry (the host name could not be resolved (ENOTFOUND)); if the runner cannot reach 'elsewhere.example', give a registry it can reach that serves its images in 'registry-mirrors' (such as 'docker.io=registry.internal/dockerhub') to have unchanged images reused.",
    ],
    [
      'an external frontend',
      '# syntax=docker/dockerfile:1\nFROM r.io/frontend-base:stable\n',
      "frontend: built, not looked up: this step cannot read it as BuildKit does: its '# syntax=docker/dockerfile:1' directive runs that frontend instead of BuildKit's own, which may read the file differently.",
    ],
  ])('%s: built, and the log says why', async (_name, text, said) => {
    const registry = registryWithBases()
    const files = { ...PROJECT, '/p/docker/frontend.Dockerfile': text }
    const ran = await run(registry, { given: FRONTEND_ONLY, files })
    expect(ran.error).toBeUndefined()
    expect(built(ran)).toEqual(['frontend'])
    expect(ran.lines).toContain(said)
    const labels = Object.fromEntries(ran.docker.builds[0]?.labels ?? [])
    expect(labels[FINGERPRINT_LABEL]).toBeUndefined()
    expect(ran.docker.builds[0]?.pull).toBeUndefined()
  })

  test('the registry unreachable for the look-up: every image is built as usual', async () => {
    const registry = registryWithBases()
    await firstRun(registry)
    const down: RegistryScript = () =>
      failure('refused', 'the server refused the connection (ECONNREFUSED)')
    const ran = await run({ script: down }, { sha: SHA2 })
    expect(ran.error).toBeUndefined()
    expect(built(ran)).toEqual(['frontend', 'backend', 'codeasdata'])
    expect(ran.lines).toContain(
      "backend: built, not looked up: the image 'r.io/backend-base:stable' it builds from could not be resolved in its registry (the server refused the connection (ECONNREFUSED)); if the runner cannot reach 'r.io', give a registry it can reach that serves its images in 'registry-mirrors' (such as 'docker.io=registry.internal/dockerhub') to have unchanged images reused.",
    )
  })

  test('an unexpected error in the look-up: every image is built, and the step goes on', async () => {
    const broken: RegistryScript = () => {
      throw new Error('the port broke')
    }
    const ran = await run({ script: broken })
    expect(ran.error).toBeUndefined()
    expect(built(ran)).toEqual(['frontend', 'backend', 'codeasdata'])
    expect(ran.lines).toContain(
      'Every image is built: looking for unchanged images failed (the port broke).',
    )
  })

  test('a tag the registry refuses to write: that image is built after all', async () => {
    const registry = registryWithBases()
    await firstRun(registry)
    const refusing: RegistryScript = (request) =>
      request.method === 'PUT' && request.url.pathname.includes('/backend/')
        ? respond(403, {}, '{"errors":[{"code":"DENIED"}]}')
        : registry.script(request)
    const ran = await run({ script: refusing }, { sha: SHA2 })
    expect(ran.error).toBeUndefined()
    expect(built(ran)).toEqual(['backend'])
    expect(ran.lines).toContain(
      "backend: built after all: giving its unchanged image the tag 'main-5d6e7f8' failed (the registry refused the login from 'registry-username' and 'registry-password' (HTTP 403); check that the user name and the password or token are right, and that this user may push to 'acme/shop/backend').",
    )
    expect(JSON.parse(ran.outputs.reused ?? '')).toEqual(['frontend', 'codeasdata'])
  })

  test.each<[string, Partial<Record<BuildImagesInputName, string>>, string]>([
    [
      'push false',
      { push: 'false' },
      'Every image is built: push is false, and only an image in the registry can be reused.',
    ],
  ])('%s: every image is built, the registry is not asked', async (_name, given, said) => {
    const registry = registryWithBases()
    await firstRun(registry)
    const requests: string[] = []
    const watched: RegistryScript = (request) => {
      requests.push(request.url.href)
      return registry.script(request)
    }
    const ran = await run({ script: watched }, { sha: SHA2, given })
    expect(built(ran)).toEqual(['frontend', 'backend', 'codeasdata'])
    expect(requests).toEqual([])
    expect(ran.lines).toContain(said)
  })

  test("'reuse-unchanged: false' builds every image, still labelled and recorded for later runs", async () => {
    const registry = registryWithBases()
    await firstRun(registry)
    const ran = await run(registry, { sha: SHA2, given: { 'reuse-unchanged': 'false' } })
    expect(built(ran)).toEqual(['frontend', 'backend', 'codeasdata'])
    expect(ran.lines).toContain(
      "Every image is built: 'reuse-unchanged' is false. Each is labelled with its fingerprint, and recorded, so that later runs can reuse it.",
    )
    // No earlier image is looked at: only the bases are read, for the fingerprints.
    expect(registry.puts).not.toContain('PUT acme/shop/frontend:main-5d6e7f8')
    for (const command of ran.docker.builds)
      expect(Object.fromEntries(command.labels)[FINGERPRINT_LABEL]).toMatch(/^sha256:/)
    expect(records?.asked).toEqual([])
    expect(ran.lines).toContainEqual(
      expect.stringMatching(
        /^Recorded in the memory cache: the default branch built r\.io\/acme\/shop\/backend:main-5d6e7f8 as sha256:[0-9a-f]{64} \(fingerprint sha256:[0-9a-f]{64}\)\.$/,
      ),
    )
    // The next run, with reuse on and nothing changed, reuses what that run pushed.
    pushBuilt(registry, ran.docker)
    const next = await run(registry, { sha: '9'.repeat(40) })
    expect(built(next)).toEqual([])
    expect(JSON.parse(next.outputs.reused ?? '')).toEqual(['frontend', 'backend', 'codeasdata'])
  })

  test('an image someone else pushed with the fingerprint label this run computes is not reused', async () => {
    const registry = registryWithBases()
    const first = await run(registry)
    const label = Object.fromEntries(first.docker.builds[0]?.labels ?? [])
    // Another branch's workflow, or a laptop, pushes its own image with the very same labels.
    registry.put('acme/shop/frontend', 'main', { labels: { ...label, foreign: 'yes' } })
    const ran = await run(registry, { sha: SHA2, given: FRONTEND_ONLY })
    expect(built(ran)).toEqual(['frontend'])
    expect(ran.lines).toContainEqual(
      expect.stringMatching(
        /^frontend: built: 'main' \(built as main-1a2b3c4\) has the same fingerprint, but no record in the memory cache that the default branch built sha256:[0-9a-f]{64} \(never recorded, or evicted\), so it is not trusted\.$/,
      ),
    )
  })

  test('without a place for records, every image is built, said in one line', async () => {
    const registry = registryWithBases()
    await firstRun(registry)
    records = undefined
    const ran = await run(registry, { sha: SHA2 })
    expect(built(ran)).toEqual(['frontend', 'backend', 'codeasdata'])
    expect(ran.lines.filter((line) => line.startsWith('Every image is built'))).toEqual([
      "Every image is built: no proof that the default branch built an image can be had here: neither a signature under 'signing-key' (not set) nor the CI's own record of what it built (the GitHub Actions cache, or the cache the GitLab template declares).",
    ])
  })

  test('records not trusted here: every image built, said in one line; none read, none written', async () => {
    const registry = registryWithBases()
    await firstRun(registry)
    const kept = [...(records?.kept ?? [])]
    if (records) records.distrust = 'is not trusted on this ref: set a key'
    const ran = await run(registry, { sha: SHA2 })
    expect(built(ran)).toEqual(['frontend', 'backend', 'codeasdata'])
    expect(ran.lines.filter((line) => line.includes('memory cache'))).toEqual([
      'Every image is built: the memory cache is not trusted on this ref: set a key.',
    ])
    expect(records?.asked).toEqual([])
    expect(records?.kept).toEqual(kept)
  })

  test("records not trusted with 'reuse-unchanged: false': said once, when nothing is recorded", async () => {
    const registry = registryWithBases()
    if (records) records.distrust = 'is not trusted on this ref: set a key'
    const ran = await run(registry, { given: { 'reuse-unchanged': 'false', ...FRONTEND_ONLY } })
    expect(ran.lines.filter((line) => line.includes('memory cache'))).toEqual([
      'Not recorded in the memory cache: it is not trusted on this ref: set a key.',
    ])
    expect(records?.kept).toEqual([])
  })

  test('a feature branch is not recorded: later runs trust only what the default branch built', async () => {
    const registry = registryWithBases()
    const ran = await run(registry, {
      branch: 'feature/X',
      given: { branches: '*', ...FRONTEND_ONLY },
      files: { ...PROJECT, '/p/dist/web/index.html': '<html>feature' },
    })
    expect(built(ran)).toEqual(['frontend'])
    expect(records?.kept).toEqual([])
    expect(ran.lines).toContain(
      "Not recorded in the memory cache: later runs trust only what the default branch 'main' built, and this run builds 'feature/X'.",
    )
  })
})

describe('reuse with backends: each backend fingerprinted, reused and recorded on its own', () => {
  // api and worker: the same Dockerfile and the same files, in folders of their own.
  const BACKENDS = JSON.stringify([
    { name: 'api', sources: 'dist/api' },
    { name: 'worker', sources: 'dist/worker' },
    { name: 'jobs', sources: 'dist/jobs', dockerfile: 'docker/jobs.Dockerfile' },
  ])
  const FILES: Record<string, string> = {
    ...PROJECT,
    '/p/docker/jobs.Dockerfile': dockerfile('backend-base'),
    '/p/dist/api/main.js': 'console.log(1)',
    '/p/dist/worker/main.js': 'console.log(1)',
    '/p/dist/jobs/main.js': 'console.log(3)',
  }
  const given = { backends: BACKENDS, codeasdata: 'false' }
  const IDS = ['backend:api', 'backend:worker', 'backend:jobs']

  test('each backend its fingerprint, labelled with its name; a second run reuses them all', async () => {
    const registry = registryWithBases()
    const first = await run(registry, { given, files: FILES })
    expect(first.error).toBeUndefined()
    expect(built(first)).toEqual(['frontend', 'backend-api', 'backend-worker', 'backend-jobs'])
    const labels = first.docker.builds.map((command) => Object.fromEntries(command.labels))
    expect(labels.map((each) => each['io.olympe.deploy-actions.backend'])).toEqual([
      undefined,
      'api',
      'worker',
      'jobs',
    ])
    // Same Dockerfile, same files: the name alone keeps the two backends' records apart.
    expect(new Set(labels.map((each) => each[FINGERPRINT_LABEL])).size).toBe(4)
    for (const id of IDS)
      expect(first.lines).toContainEqual(
        expect.stringMatching(new RegExp(`^${id}: fingerprint sha256:[0-9a-f]{64} \\(1 file in `)),
      )
    const digests = pushBuilt(registry, first.docker)
    const second = await run(registry, { given, files: FILES, sha: SHA2 })
    expect(second.error).toBeUndefined()
    expect(second.docker.calls).toEqual([])
    expect(JSON.parse(second.outputs.reused ?? '')).toEqual(['frontend', ...IDS])
    expect(second.outputs['backend-images']?.split('\n')).toEqual(
      ['api', 'worker', 'jobs'].map((name) => `r.io/acme/shop/backend-${name}:main-5d6e7f8`),
    )
    expect(JSON.parse(second.outputs.images ?? '')).toEqual([
      expect.objectContaining({ kind: 'frontend', digest: digests.frontend }),
      ...['api', 'worker', 'jobs'].map((name) => ({
        kind: 'backend',
        name,
        reference: `r.io/acme/shop/backend-${name}:main-5d6e7f8`,
        references: [`r.io/acme/shop/backend-${name}:main-5d6e7f8`],
        digest: digests[`backend-${name}`],
        size: null,
      })),
    ])
    expect(second.outputs['backend-image']).toBe('')
    expect(second.outputs['backend-digest']).toBe('')
  })

  test("one backend's file changed: that backend alone is built", async () => {
    const registry = registryWithBases()
    pushBuilt(registry, (await run(registry, { given, files: FILES })).docker)
    const ran = await run(registry, {
      given,
      files: { ...FILES, '/p/dist/worker/main.js': 'console.log(2)' },
      sha: SHA2,
    })
    expect(ran.error).toBeUndefined()
    expect(built(ran)).toEqual(['backend-worker'])
    expect(JSON.parse(ran.outputs.reused ?? '')).toEqual([
      'frontend',
      'backend:api',
      'backend:jobs',
    ])
    expect(ran.lines).toContainEqual(
      expect.stringMatching(
        /^backend:worker: built: 'main' \(built as main-1a2b3c4\) was built from other inputs \(fingerprint sha256:[0-9a-f]{64}\)\.$/,
      ),
    )
  })

  test('a backend that fails names itself; the others are reported, and those pushed recorded', async () => {
    const registry = registryWithBases()
    const ran = await run(registry, {
      given,
      files: FILES,
      // Three at a time: the frontend and api pushed, jobs started, then worker fails.
      builder: {
        server: '26.1.5',
        failBuild: ['backend-worker'],
        buildMs: { frontend: 1, 'backend-api': 1, 'backend-worker': 60, 'backend-jobs': 120 },
      },
    })
    const message = (ran.error as Error).message
    expect(message.split('\n')[0]).toBe(
      "Building the backend 'worker' image failed: docker build exited with 1. Last lines of its output:",
    )
    expect(message.split('\n').slice(-4)).toEqual([
      'The other images:',
      expect.stringMatching(/^- frontend: built and pushed \(sha256:[0-9a-f]+\)$/),
      expect.stringMatching(/^- backend:api: built and pushed \(sha256:[0-9a-f]+\)$/),
      '- backend:jobs: built, not pushed (another image had failed)',
    ])
    // The next run rebuilds only what is missing: what was pushed is recorded.
    expect(records?.kept.map((record) => record.image)).toEqual([
      'r.io/acme/shop/frontend:main-1a2b3c4',
      'r.io/acme/shop/backend-api:main-1a2b3c4',
    ])
  })
})

/** The template's Dockerfiles: bases named without a registry, Docker Hub's. */
const HUB_PROJECT: Record<string, string> = {
  ...PROJECT,
  '/p/docker/frontend.Dockerfile': 'FROM olympeio/frontend-base:stable\nCOPY $SOURCES_PATH /app\n',
  '/p/docker/backend.Dockerfile': 'FROM olympeio/backend-base:stable\nCOPY $SOURCES_PATH /app\n',
  '/p/docker/codeasdata.Dockerfile': 'FROM olympeio/backend-base:stable\nCOPY $SOURCES_PATH /app\n',
}
const HUB_MIRROR = { 'registry-mirrors': 'docker.io=r.io/hub' }
const ONBUILD = { onBuild: ['ARG SOURCES_PATH'] }
/** The builder's answers about the bases' ONBUILD, by the name it pulls them by. */
const declaring = (
  prefix: string,
  script: FakeDockerScript = { server: '26.1.5' },
): FakeDockerScript => ({
  ...script,
  onBuild: Object.fromEntries(
    ['frontend-base', 'backend-base'].map((base) => [
      `${prefix}olympeio/${base}:stable`,
      ONBUILD.onBuild,
    ]),
  ),
})
const DOCKER_HUB = declaring('')
const MIRRORED = declaring('r.io/hub/')

/** r.io holding Docker Hub's bases under `hub/`, as an instance's own mirror of them. */
function registryWithMirroredBases(): MemoryRegistry {
  const registry = memoryRegistry('https://r.io', BASIC)
  registry.put('hub/olympeio/frontend-base', 'stable', ONBUILD)
  registry.put('hub/olympeio/backend-base', 'stable', ONBUILD)
  return registry
}

describe('reuse with registry-mirrors: the bases read where the build pulls them', () => {
  test('Docker Hub out of reach, no mirror: built, and the message says how to get reuse back', async () => {
    const registry = registryWithMirroredBases()
    const ran = await run(registry, {
      files: HUB_PROJECT,
      given: FRONTEND_ONLY,
      builder: DOCKER_HUB,
    })
    expect(ran.error).toBeUndefined()
    expect(built(ran)).toEqual(['frontend'])
    expect(ran.lines).toContain(
      "frontend: built, not looked up: the image 'olympeio/frontend-base:stable' it builds from could not be resolved in its registry (the host name could not be resolved (ENOTFOUND)); if the runner cannot reach 'docker.io', give a registry it can reach that serves its images in 'registry-mirrors' (such as 'docker.io=registry.internal/dockerhub') to have unchanged images reused.",
    )
  })

  test('a mirror on the push registry: its login first, the bases found there, named contexts, then reuse', async () => {
    const registry = registryWithMirroredBases()
    const first = await run(registry, { files: HUB_PROJECT, given: HUB_MIRROR, builder: MIRRORED })
    expect(first.error).toBeUndefined()
    // The mirror needs the login before the pre-flight reads the bases' ONBUILD there.
    expect(first.lines.filter((line) => line.startsWith('group: '))).toEqual([
      'group: Branch check',
      'group: Plan',
      'group: Builder',
      'group: Registry login: r.io',
      'group: Pre-flight checks',
      'group: Unchanged images',
      'group: Build and push',
    ])
    expect(first.docker.calls.slice(0, 3)).toEqual([
      'login r.io ci',
      'onbuild r.io/hub/olympeio/frontend-base:stable',
      'onbuild r.io/hub/olympeio/backend-base:stable',
    ])
    expect(first.docker.builds[0]?.bases).toEqual([
      {
        reference: 'olympeio/frontend-base:stable',
        mirrored: 'r.io/hub/olympeio/frontend-base:stable',
      },
    ])
    expect(first.lines).toContainEqual(
      expect.stringMatching(/^frontend: fingerprint sha256:[0-9a-f]{64} \(/),
    )
    pushBuilt(registry, first.docker)
    const second = await run(registry, {
      files: HUB_PROJECT,
      given: HUB_MIRROR,
      sha: SHA2,
      builder: MIRRORED,
    })
    expect(built(second)).toEqual([])
    expect(JSON.parse(second.outputs.reused ?? '')).toEqual(['frontend', 'backend', 'codeasdata'])
  })

  test('a base the mirror does not hold: built, and the message names the mirror', async () => {
    const registry = memoryRegistry('https://r.io', BASIC)
    registry.put('hub/olympeio/backend-base', 'stable', ONBUILD)
    const ran = await run(registry, { files: HUB_PROJECT, given: HUB_MIRROR, builder: MIRRORED })
    expect(ran.lines).toContain(
      "frontend: built, not looked up: the image 'olympeio/frontend-base:stable' it builds from could not be resolved in 'r.io' (the mirror of 'docker.io' in 'registry-mirrors') ('stable' does not exist (HTTP 404, MANIFEST_UNKNOWN)).",
    )
  })
})

describe('reuse across builders: only where both read the Dockerfile alike', () => {
  const BUILDAH: FakeDockerScript = declaring('r.io/hub/', { name: 'buildah' })

  test('fully qualified bases: an image Docker built is reused by a Buildah run', async () => {
    const registry = registryWithBases()
    await firstRun(registry)
    const ran = await run(registry, { sha: SHA2, builder: BUILDAH, given: { builder: 'buildah' } })
    expect(ran.error).toBeUndefined()
    expect(built(ran)).toEqual([])
    expect(ran.lines).toContain("Building with Buildah: 'builder' is 'buildah'.")
  })

  test("bases named without a registry: Buildah's own fingerprint, so Docker's images are built again, then Buildah's reused", async () => {
    const registry = registryWithMirroredBases()
    const docker = await run(registry, { files: HUB_PROJECT, given: HUB_MIRROR, builder: MIRRORED })
    pushBuilt(registry, docker.docker)
    const given = { ...HUB_MIRROR, builder: 'buildah' }
    const buildah = await run(registry, { files: HUB_PROJECT, given, sha: SHA2, builder: BUILDAH })
    expect(buildah.error).toBeUndefined()
    expect(built(buildah)).toEqual(['frontend', 'backend', 'codeasdata'])
    const fingerprint = (ran: Ran): unknown =>
      Object.fromEntries(ran.docker.builds[0]?.labels ?? [])[FINGERPRINT_LABEL]
    expect(fingerprint(buildah)).not.toBe(fingerprint(docker))
    pushBuilt(registry, buildah.docker)
    const again = await run(registry, {
      files: HUB_PROJECT,
      given,
      sha: '9a8b7c6d5e4f30211a2b3c4d5e6f708192a3b4c5',
      builder: BUILDAH,
    })
    expect(built(again)).toEqual([])
  })
})
