// A multi-stage Dockerfile whose first stage runs on the build machine (`FROM
// --platform=$BUILDPLATFORM`) and whose last stage is the target platform's, both from one
// multi-platform base image, built for another platform than the engine's: the fingerprint of
// reuse-unchanged must follow each stage's own base. Real engine, real registry with auth; the
// bundle runs as the GitHub runner runs it, run after run, with GitHub's Actions cache emulated on
// loopback (it keeps the default branch's record of what it built, which reuse needs).
import { beforeAll, describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  startActionsCacheServer,
  type ActionsCacheServer,
} from '../helpers/actions-cache-server.js'
import { useCleanup } from '../helpers/suite.js'
import {
  BASE_IMAGES,
  docker,
  dockerLogin,
  pushImage,
  type RunOptions,
} from '../helpers/docker-env.js'
import { useDockerSuite } from '../helpers/docker-suite.js'
import { runOutcome, type RunResult } from '../helpers/run-action.js'

const TARGET = 'linux/arm64'

let cache: ActionsCacheServer
let project: string
let repository: string
let tools: string
/** The suite's DOCKER_CONFIG, logged in to its registry. */
let config: RunOptions
const cleanup = useCleanup(60_000)
const suite = useDockerSuite(cleanup)

/** `tools:<variant>` for one platform, pushed to the suite's registry; its digest. */
async function pushVariant(variant: string, platform: string, marker: string): Promise<string> {
  const dir = await cleanup.tempDir('olympe-platform-base-')
  await writeFile(join(dir, 'marker'), marker)
  // The build machine's variant runs commands (busybox); the target's only receives files.
  const from = platform === 'linux/amd64' ? BASE_IMAGES.frontend : 'scratch'
  await writeFile(join(dir, 'Dockerfile'), `FROM ${from}\nCOPY marker /marker\n`)
  const reference = `${tools}:${variant}`
  await docker(['buildx', 'build', '--platform', platform, '--load', '-t', reference, dir], config)
  return pushImage(reference, reference, config)
}

/** `tools:1`, a multi-platform index of the two variants named. */
async function publishIndex(amd64: string, arm64: string): Promise<void> {
  const index = `${tools}:1`
  await docker(['manifest', 'rm', index], config).catch(() => '')
  await docker(
    ['manifest', 'create', '--insecure', index, `${tools}:${amd64}`, `${tools}:${arm64}`],
    config,
  )
  await docker(['manifest', 'push', '--insecure', '--purge', index], config)
}

beforeAll(async () => {
  cache = cleanup.track('actions cache', await startActionsCacheServer())
  config = { env: { ...process.env, DOCKER_CONFIG: suite.dockerConfig } }
  await dockerLogin(suite.registry, config)
  tools = `${suite.registry.host}/${suite.uniqueRepository('tools')}`
  await pushVariant('amd64-v1', 'linux/amd64', 'build machine, first')
  await pushVariant('arm64-v1', 'linux/arm64', 'target, first')
  await pushVariant('amd64-v2', 'linux/amd64', 'build machine, second')
  await publishIndex('amd64-v1', 'arm64-v1')
  project = await suite.copyProject()
  await mkdir(join(project, 'docker'), { recursive: true })
  await writeFile(
    join(project, 'docker/frontend.Dockerfile'),
    [
      `FROM --platform=$BUILDPLATFORM ${tools}:1 AS build`,
      'RUN cat /marker > /built.txt',
      `FROM ${tools}:1`,
      'ARG SOURCES_PATH',
      'COPY --from=build /built.txt /built.txt',
      'COPY $SOURCES_PATH /usr/share/nginx/html',
      '',
    ].join('\n'),
  )
  repository = suite.uniqueRepository('platform-stages')
}, 240_000)

let runs = 0
async function buildImages(): Promise<RunResult> {
  runs++
  const sha = createHash('sha1').update(`commit ${runs}`).digest('hex')
  // A fresh engine each run: only the registry remembers.
  const result = await suite.buildOnFreshEngine(project, {
    inputs: { images: 'frontend', platform: TARGET },
    env: { ...cache.env, GITHUB_SHA: sha, GITHUB_REPOSITORY: repository },
  })
  expect(runOutcome(result)).toEqual({ code: 0, tail: '' })
  return result
}

const reused = (run: RunResult): string[] => JSON.parse(run.outputs.reused ?? '[]') as string[]

/** What the builder stage wrote into the image the run reports: from the base it ran on. */
async function builtText(run: RunResult): Promise<string> {
  const image = `${suite.registry.host}/${repository}/frontend@${run.outputs['frontend-digest'] ?? ''}`
  // Not run (it is for the target platform): created, and the file copied out of it.
  const id = (await docker(['create', '--platform', TARGET, image, '/none'], config)).trim()
  try {
    return await docker(['cp', `${id}:/built.txt`, '-'], config)
  } finally {
    await docker(['rm', id])
  }
}

describe('FROM --platform=$BUILDPLATFORM in a multi-stage build for another platform', () => {
  test('first run: built for the target platform', async () => {
    const run = await buildImages()
    expect(reused(run)).toEqual([])
    const manifest = await suite.registry.manifest(`${repository}/frontend`, 'main')
    expect(manifest.digest).toBe(run.outputs['frontend-digest'])
    expect(await builtText(run)).toContain('build machine, first')
  })

  test('nothing changed: reused', async () => {
    expect(reused(await buildImages())).toEqual(['frontend'])
  })

  test("the build machine's variant of the base changed, the target's did not: built again", async () => {
    await publishIndex('amd64-v2', 'arm64-v1')
    const run = await buildImages()
    expect(reused(run)).toEqual([])
    expect(run.stdout).toMatch(/frontend: built: 'main' .*was built from other inputs/)
    // Reused, the image would still hold what the first variant made.
    expect(await builtText(run)).toContain('build machine, second')
  })

  test('then nothing changed again: reused', async () => {
    expect(reused(await buildImages())).toEqual(['frontend'])
  })
})
