// A project built on fresh runners, run after run, against the real engine and a registry with
// basic auth that also holds the base images, as a runner pulls them. Before every run the
// project's files get new times (a fresh checkout) and the engine forgets every image of the
// registry (a fresh engine): only the registry remembers the last run. The bundle runs as the
// GitHub runner runs it, with GitHub's Actions cache service emulated on loopback (nothing
// configured: the cache keeps the record of what the default branch built, which reuse needs).
// The runs build on one another, in order.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { IMAGE_KINDS, type ImageKind } from '../../src/core/shared/project-images.js'
import {
  startActionsCacheServer,
  type ActionsCacheServer,
} from '../helpers/actions-cache-server.js'
import { useCleanup } from '../helpers/suite.js'
import { startCuttingProxy } from '../helpers/cutting-proxy.js'
import { BASE_IMAGES, dockerLogin, pushImage, run as runProcess } from '../helpers/docker-env.js'
import { useDockerSuite } from '../helpers/docker-suite.js'
import { runOutcome, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'

const FINGERPRINT = 'io.olympe.deploy-actions.fingerprint'

let cache: ActionsCacheServer
let project: string
let repository: string
const cleanup = useCleanup(60_000)
const suite = useDockerSuite(cleanup)
/** The digest each image had after the run before, and that run's tag and commit. */
let last: { digests: Record<ImageKind, string>; tag: string; sha: string }
let runs = 0
/** Inputs every later run keeps, as a workflow file would. */
const kept: Record<string, string> = {}

beforeAll(async () => {
  cache = cleanup.track('actions cache', await startActionsCacheServer())
  // The job logged in as docker/login-action does: the registry holds the base images too.
  await dockerLogin(suite.registry, { env: { ...process.env, DOCKER_CONFIG: suite.dockerConfig } })
  project = await suite.copyProjectOnRegistryBases()
  repository = suite.uniqueRepository('reuse')
}, 120_000)

/** A commit of its own for each run, so that each gets new tags. */
function nextSha(): string {
  runs++
  return createHash('sha1').update(`commit ${runs}`).digest('hex')
}

/** New times on every file and folder, as a fresh checkout has. */
async function freshCheckout(dir: string): Promise<void> {
  const when = new Date(Date.now() + runs * 60_000)
  const names = await readdir(dir, { recursive: true })
  for (const name of ['', ...names]) await utimes(join(dir, name), when, when)
}

interface Built {
  result: RunResult
  sha: string
  tag: string
  commands: string[]
}

async function buildImages(
  options: { inputs?: Record<string, string>; registry?: string } = {},
): Promise<Built> {
  const sha = nextSha()
  const tag = `main-${sha.slice(0, 7)}`
  await freshCheckout(project)
  await suite.spy.reset()
  const runnerTemp = await cleanup.tempDir('olympe-reuse-runner-temp-')
  // A fresh engine: nothing of the registry's, bases included, is left in it.
  const result = await suite.buildOnFreshEngine(project, {
    inputs: {
      registry: options.registry ?? suite.registry.host,
      codeasdata: 'true',
      ...kept,
      ...options.inputs,
    },
    env: {
      ...cache.env,
      GITHUB_SHA: sha,
      GITHUB_REPOSITORY: repository,
      GITHUB_RUN_ID: '7',
      RUNNER_TEMP: runnerTemp,
    },
  })
  const commands = await suite.spy.commands()
  expectNoSecrets(await suite.seenIn(result), [suite.registry.password])
  expect(runOutcome(result)).toEqual({ code: 0, tail: '' })
  // Nothing of the step's, nor of the cache client's, is left in the job's temporary folder.
  expect(await readdir(runnerTemp)).toEqual([])
  return { result, sha, tag, commands }
}

const name = (kind: ImageKind): string => `${repository}/${kind}`
const built = ({ commands }: Built): ImageKind[] =>
  IMAGE_KINDS.filter((kind) =>
    commands.some((line) => line.startsWith('buildx build') && line.includes(`${kind}.Dockerfile`)),
  )
const reused = ({ result }: Built): ImageKind[] =>
  JSON.parse(result.outputs.reused ?? '') as ImageKind[]

/** What the registry holds under the run's tag and the moving tag; remembered for the next run. */
async function registryAfter(run: Built): Promise<Record<ImageKind, string>> {
  const digests = {} as Record<ImageKind, string>
  for (const kind of IMAGE_KINDS) {
    const manifest = await suite.registry.manifest(name(kind), run.tag)
    const moving = await suite.registry.manifest(name(kind), 'main')
    expect({ kind, moving: moving.digest }).toEqual({ kind, moving: manifest.digest })
    expect(run.result.outputs[`${kind}-digest`]).toBe(manifest.digest)
    expect(run.result.outputs[`${kind}-image`]).toBe(
      `${suite.registry.host}/${name(kind)}:${run.tag}`,
    )
    digests[kind] = manifest.digest
  }
  last = { digests, tag: run.tag, sha: run.sha }
  return digests
}

/** `kinds` were reused: their new tags name the manifests `before` named, and the log says so. */
function expectReused(
  run: Built,
  kinds: readonly ImageKind[],
  before: Record<ImageKind, string>,
  after: Record<ImageKind, string>,
): void {
  expect(reused(run)).toEqual(kinds)
  for (const kind of kinds) {
    expect({ kind, digest: after[kind] }).toEqual({ kind, digest: before[kind] })
    expect(run.result.stdout).toMatch(
      new RegExp(
        `${kind} unchanged since main-[0-9a-f]{7} \\(fingerprint sha256:[0-9a-f]{64}\\): tagged ${run.tag}, not rebuilt\\.`,
      ),
    )
  }
}

describe('build-images on fresh runners: only what changed is built', () => {
  test('a first run builds the three images, each labelled with its fingerprint, and pushes the moving tag', async () => {
    const run = await buildImages()
    expect(built(run)).toEqual(IMAGE_KINDS)
    expect(reused(run)).toEqual([])
    // The bases were resolved in the registry, so the build pulls exactly them.
    expect(run.commands.filter((line) => line.startsWith('buildx build'))).toEqual(
      IMAGE_KINDS.map(() => expect.stringContaining(' --pull ')),
    )
    expect(run.result.stdout).toContain("frontend: built: no image 'main' in the registry yet.")
    // The default branch's record of each image, in the Actions cache.
    expect(cache.entries().map((entry) => entry.scope)).toEqual(
      IMAGE_KINDS.map(() => 'refs/heads/main'),
    )
    for (const kind of IMAGE_KINDS)
      expect(run.result.stdout).toMatch(
        new RegExp(
          `Recorded in the GitHub Actions cache: the default branch built \\S+/${kind}:${run.tag} as sha256:[0-9a-f]{64}`,
        ),
      )
    // One docker push an image; its moving tag is given the same manifest through the API.
    const pushes = run.commands.filter((line) => line.startsWith('push '))
    expect(pushes).toHaveLength(IMAGE_KINDS.length)
    expect(pushes.every((line) => line.endsWith(`:${run.tag}`))).toBe(true)
    for (const kind of IMAGE_KINDS) {
      expect((await suite.registry.tags(name(kind))).sort()).toEqual(['main', run.tag].sort())
      const { config, digest } = await suite.registry.manifest(name(kind), run.tag)
      expect(config.Labels?.[FINGERPRINT]).toMatch(/^sha256:[0-9a-f]{64}$/)
      expect(config.Labels?.['io.olympe.deploy-actions.built-as']).toBe(run.tag)
      expect((await suite.registry.manifest(name(kind), 'main')).digest).toBe(digest)
      expect(run.result.stdout).toContain(
        `[${kind}] tagged ${suite.registry.host}/${name(kind)}:main: the manifest pushed as ${suite.registry.host}/${name(kind)}:${run.tag} (${digest})`,
      )
    }
    await registryAfter(run)
  }, 180_000)

  test('nothing changed: the three are reused, their new tags name the previous manifests, nothing is built or pushed', async () => {
    const before = last
    const run = await buildImages()
    expect(built(run)).toEqual([])
    expect(run.commands.filter((line) => /^(buildx build|build|push|login) /.test(line))).toEqual(
      [],
    )
    expectReused(run, IMAGE_KINDS, before.digests, await registryAfter(run))
    expect(run.result.stdout).toContain(
      'Nothing to build: no image changed since it was last pushed.',
    )
    expect(run.result.summary).toContain('### Olympe images unchanged: tagged, not rebuilt')
    // The reused image is the one the commit before built: its revision label says so.
    const labels = (await suite.registry.manifest(name('backend'), run.tag)).config.Labels ?? {}
    expect(labels['org.opencontainers.image.revision']).toBe(before.sha)
  }, 180_000)

  test('one backend file changed: the backend is built, the others reused', async () => {
    const before = last.digests
    const file = join(project, 'dist/node/main.js')
    await writeFile(file, `${await readFile(file, 'utf8')}\nconsole.log('changed')\n`)
    const run = await buildImages()
    expect(built(run)).toEqual(['backend'])
    const digests = await registryAfter(run)
    expect(digests.backend).not.toBe(before.backend)
    expectReused(run, ['frontend', 'codeasdata'], before, digests)
  }, 180_000)

  test('a Dockerfile line added: that image is built', async () => {
    const before = last.digests
    const file = join(project, 'docker/frontend.Dockerfile')
    await writeFile(file, `${await readFile(file, 'utf8')}LABEL team=web\n`)
    const run = await buildImages()
    expect(built(run)).toEqual(['frontend'])
    expectReused(run, ['backend', 'codeasdata'], before, await registryAfter(run))
  }, 180_000)

  test('a build argument added: every image is built', async () => {
    kept['build-args'] = 'NODE_ENV=production'
    const run = await buildImages()
    expect(built(run)).toEqual(IMAGE_KINDS)
    expect(reused(run)).toEqual([])
    await registryAfter(run)
  }, 180_000)

  test("the base image's tag moved to new content: the image built on it is built on the new base", async () => {
    const before = last.digests
    const base = `${suite.registry.host}/${BASE_IMAGES.backend}`
    const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
    await runProcess('docker', ['build', '--quiet', '--tag', `${base}-next`, '-'], {
      input: `FROM ${BASE_IMAGES.backend}\nLABEL olympe.test.base-version=2\n`,
      env,
    })
    await pushImage(`${base}-next`, base, { env })
    const run = await buildImages()
    expect(built(run)).toEqual(['backend'])
    expectReused(run, ['frontend', 'codeasdata'], before, await registryAfter(run))
    const { config } = await suite.registry.manifest(name('backend'), run.tag)
    expect(config.Labels?.['olympe.test.base-version']).toBe('2')
  }, 180_000)

  test('the version bumped: every image is built, and the new tags carry the new version', async () => {
    const file = join(project, 'dist/web/version.json')
    await writeFile(file, JSON.stringify({ version: '2.12.0' }))
    const run = await buildImages()
    expect(built(run)).toEqual(IMAGE_KINDS)
    await registryAfter(run)
    for (const kind of IMAGE_KINDS) {
      const { config } = await suite.registry.manifest(name(kind), run.tag)
      expect({ kind, version: config.Labels?.['org.opencontainers.image.version'] }).toEqual({
        kind,
        version: '2.12.0',
      })
    }
  }, 180_000)

  test("'reuse-unchanged: false' builds every image, and the moving tag names the new ones", async () => {
    const before = last.digests
    const run = await buildImages({ inputs: { 'reuse-unchanged': 'false' } })
    expect(built(run)).toEqual(IMAGE_KINDS)
    expect(reused(run)).toEqual([])
    expect(run.result.stdout).toContain(
      "Every image is built: 'reuse-unchanged' is false. Each is labelled with its fingerprint, and recorded, so that later runs can reuse it.",
    )
    const digests = await registryAfter(run)
    for (const kind of IMAGE_KINDS) expect(digests[kind]).not.toBe(before[kind])
    for (const kind of IMAGE_KINDS) {
      const { config } = await suite.registry.manifest(name(kind), run.tag)
      expect(config.Labels?.[FINGERPRINT]).toMatch(/^sha256:[0-9a-f]{64}$/)
    }
  }, 180_000)

  test("then reuse on, nothing changed: every image that the 'reuse-unchanged: false' run pushed is reused", async () => {
    const before = last.digests
    const run = await buildImages()
    expect(built(run)).toEqual([])
    expectReused(run, IMAGE_KINDS, before, await registryAfter(run))
  }, 180_000)

  test('a record evicted from the cache: the image is built, said in one line', async () => {
    cache.evictAll()
    const run = await buildImages({ inputs: { images: 'frontend', codeasdata: 'false' } })
    expect(built(run)).toEqual(['frontend'])
    expect(run.result.stdout).toMatch(
      /frontend: built: 'main' \(built as main-[0-9a-f]{7}\) has the same fingerprint, but no record in the GitHub Actions cache that the default branch built sha256:[0-9a-f]{64} \(never recorded, or evicted\), so it is not trusted\./,
    )
  }, 180_000)

  test('the registry unreachable for the look-up: every image is built as usual', async () => {
    // The same registry behind a proxy that drops this step's own requests (the look-up), and
    // passes docker's (login, push).
    const [host = '', port = ''] = suite.registry.host.split(':')
    const proxy = cleanup.track(
      'cutting proxy',
      await startCuttingProxy({ host, port: Number(port) }, /user-agent: olympe-deploy-actions\//i),
    )
    const run = await buildImages({ registry: proxy.host })
    expect(built(run)).toEqual(IMAGE_KINDS)
    expect(reused(run)).toEqual([])
    expect(proxy.cuts()).toBeGreaterThan(0)
    expect(run.result.stdout).toMatch(
      /frontend: built: 'main' could not be looked up \(the connection was closed after the request was sent/,
    )
    for (const kind of IMAGE_KINDS)
      expect(run.result.outputs[`${kind}-digest`]).toBe(
        (await suite.registry.manifest(name(kind), run.tag)).digest,
      )
  }, 180_000)
})
