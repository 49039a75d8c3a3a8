// The five ways a hostile user could once make build-images give this commit's tags to an image
// that does not hold this commit's content, each on the real engine and a registry with auth:
// a first run builds and pushes the frontend, something BuildKit reads changes (or someone
// pushes an image of their own), and the second run must build it again. The bundle runs as the
// GitHub runner runs it, with the Actions cache service emulated on loopback and nothing
// configured. Each case has a project and an image name of its own.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { createHash, generateKeyPairSync } from 'node:crypto'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import {
  startActionsCacheServer,
  type ActionsCacheServer,
} from '../helpers/actions-cache-server.js'
import { useCleanup } from '../helpers/suite.js'
import { BASE_IMAGES, docker, dockerLogin, pushImage } from '../helpers/docker-env.js'
import { useDockerSuite } from '../helpers/docker-suite.js'
import type { RunResult } from '../helpers/run-action.js'
import { expectNoSecrets, keySecrets } from '../helpers/secrets.js'

let cache: ActionsCacheServer
let base: string
const cleanup = useCleanup(60_000)
const suite = useDockerSuite(cleanup)
let runs = 0

beforeAll(async () => {
  cache = cleanup.track('actions cache', await startActionsCacheServer())
  const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
  await dockerLogin(suite.registry, { env })
  base = `${suite.registry.host}/${BASE_IMAGES.frontend}`
  await pushImage(BASE_IMAGES.frontend, base, { env })
}, 120_000)

interface Case {
  project: string
  repository: string
}

/** The sample project with this frontend Dockerfile, and an image name of its own. */
async function newCase(label: string, dockerfile: string): Promise<Case> {
  const project = await suite.copyProject()
  await writeFile(join(project, 'docker/frontend.Dockerfile'), dockerfile)
  await mkdir(join(project, 'extra'))
  await writeFile(join(project, 'extra/note.txt'), 'first\n')
  return { project, repository: suite.uniqueRepository(label) }
}

interface Built {
  result: RunResult
  tag: string
  built: boolean
}

async function buildFrontend(which: Case, inputs: Record<string, string> = {}): Promise<Built> {
  runs++
  const sha = createHash('sha1').update(`attack ${runs}`).digest('hex')
  await suite.spy.reset()
  // A fresh engine: nothing of the registry's is left in it.
  const result = await suite.buildOnFreshEngine(which.project, {
    inputs: { images: 'frontend', ...inputs },
    env: { ...cache.env, GITHUB_SHA: sha, GITHUB_REPOSITORY: which.repository },
  })
  const commands = await suite.spy.commands()
  expectNoSecrets(await suite.seenIn(result), [
    suite.registry.password,
    ...(inputs['signing-key'] ? keySecrets(inputs['signing-key']) : []),
  ])
  expect({ code: result.code, tail: result.code === 0 ? '' : result.stdout.slice(-3000) }).toEqual({
    code: 0,
    tail: '',
  })
  return {
    result,
    tag: `main-${sha.slice(0, 7)}`,
    built: commands.some((line) => line.startsWith('buildx build')),
  }
}

/** A file of the image under the run's tag, read from the registry's image. */
async function fileInImage(which: Case, run: Built, path: string): Promise<string> {
  const reference = `${suite.registry.host}/${which.repository}/frontend:${run.tag}`
  const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
  await docker(['pull', '--quiet', reference], { env })
  return docker(['run', '--rm', reference, 'cat', path], { env })
}

const FROM = (): string => `FROM ${base}\nARG SOURCES_PATH\n`

describe('build-images: what a first run built is not reused when what BuildKit reads changed', () => {
  // A COPY that a careless reading of the Dockerfile would miss: its file changes, so it rebuilds.
  test.each<[string, string, (from: string) => string]>([
    [
      '1. `<<` inside a word of LABEL is no heredoc: a COPY after it is read, and its change rebuilds',
      'heredoc',
      (from) => `${from}LABEL note=shift<<EOF\n`,
    ],
    [
      '2. `# escape=`` makes ` the continuation: a line ending in \\ does not hide the COPY after it',
      'escape',
      (from) => `# escape=\`\n${from}RUN echo \\\n`,
    ],
  ])(
    '%s',
    async (_title, label, before) => {
      const which = await newCase(
        label,
        `${before(FROM())}COPY extra/ /extra/\nCOPY $SOURCES_PATH /usr/share/nginx/html\n`,
      )
      await buildFrontend(which)
      await writeFile(join(which.project, 'extra/note.txt'), 'second\n')
      const second = await buildFrontend(which)
      expect(second.built).toBe(true)
      expect(await fileInImage(which, second, '/extra/note.txt')).toBe('second\n')
    },
    240_000,
  )

  test('3. a wildcard that matches a link: BuildKit copies its target, whose change rebuilds', async () => {
    const which = await newCase('link', `${FROM()}COPY dist/web/*.js /js/\n`)
    await mkdir(join(which.project, 'shared'))
    await writeFile(join(which.project, 'shared/app.js'), 'first\n')
    await symlink('../../shared/app.js', join(which.project, 'dist/web/app.js'))
    const first = await buildFrontend(which)
    expect(await fileInImage(which, first, '/js/app.js')).toBe('first\n')
    await writeFile(join(which.project, 'shared/app.js'), 'second\n')
    const second = await buildFrontend(which)
    expect(second.built).toBe(true)
    expect(await fileInImage(which, second, '/js/app.js')).toBe('second\n')
  }, 240_000)

  test('4. an ARG holding an URL, then `ADD $ASSET`: the URL is known after expansion, and builds every time', async () => {
    let asset = 'first\n'
    const server: Server = createServer((_request, response) => response.end(asset))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanup.add('asset server', () => new Promise<void>((resolve) => server.close(() => resolve())))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/asset.txt`
    const which = await newCase(
      'add-url',
      `FROM ${base}\nARG ASSET=${url}\nADD $ASSET /asset.txt\n`,
    )
    await buildFrontend(which)
    asset = 'second\n'
    const second = await buildFrontend(which)
    expect(second.built).toBe(true)
    expect(second.result.stdout).toContain(
      `frontend: built, not looked up: 'ADD ${url}' downloads what only the build knows (pin it with ADD --checksum=sha256:…).`,
    )
    expect(await fileInImage(which, second, '/asset.txt')).toBe('second\n')
  }, 240_000)

  test("5. someone pushes an image of their own to '<image>:main' with the fingerprint label the next run computes: it is built, not reused", async () => {
    const which = await newCase('foreign', `${FROM()}COPY $SOURCES_PATH /usr/share/nginx/html\n`)
    const first = await buildFrontend(which)
    const image = `${suite.registry.host}/${which.repository}/frontend`
    const { config } = await suite.registry.manifest(`${which.repository}/frontend`, first.tag)
    const labels = config.Labels ?? {}
    // Anyone who can push (another branch's workflow, a laptop) builds their own image with
    // the very labels the next default-branch run computes, and pushes it as '<image>:main'.
    const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
    const args = Object.entries(labels).flatMap(([name, value]) => ['--label', `${name}=${value}`])
    await docker(['build', '--quiet', ...args, '--tag', `${image}:main`, '-'], {
      input: `FROM ${base}\nRUN mkdir -p /usr/share/nginx/html && echo foreign > /usr/share/nginx/html/index.html\n`,
      env,
    })
    await docker(['push', '--quiet', `${image}:main`], { env })
    const foreign = await suite.registry.manifest(`${which.repository}/frontend`, 'main')
    const second = await buildFrontend(which)
    expect(second.built).toBe(true)
    expect(second.result.stdout).toContain(
      `frontend: built: 'main' (built as ${first.tag}) has the same fingerprint, but no record in the GitHub Actions cache that the default branch built ${foreign.digest} (never recorded, or evicted), so it is not trusted.`,
    )
    const html = await readFile(join(which.project, 'dist/web/index.html'), 'utf8')
    expect(await fileInImage(which, second, '/usr/share/nginx/html/index.html')).toBe(html)
  }, 240_000)

  test("5, with 'signing-key': the foreign image carries no signature under the key, so it is built; the image the key signed is reused", async () => {
    // An unencrypted PEM key, as openssl makes one: the proof is then a signature, not a record.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const signing = { 'signing-key': privateKey.export({ type: 'sec1', format: 'pem' }).toString() }
    const which = await newCase(
      'foreign-signed',
      `${FROM()}COPY $SOURCES_PATH /usr/share/nginx/html\n`,
    )
    const first = await buildFrontend(which, signing)
    cache.evictAll()
    const again = await buildFrontend(which, signing)
    expect(again.built).toBe(false)
    expect(again.result.stdout).toContain(
      "has the same fingerprint, and signed under the key of 'signing-key'",
    )
    const image = `${suite.registry.host}/${which.repository}/frontend`
    const { config } = await suite.registry.manifest(`${which.repository}/frontend`, first.tag)
    const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
    const labels = Object.entries(config.Labels ?? {}).flatMap(([n, v]) => ['--label', `${n}=${v}`])
    await docker(['build', '--quiet', ...labels, '--tag', `${image}:main`, '-'], {
      input: `FROM ${base}\nRUN mkdir -p /usr/share/nginx/html && echo foreign > /usr/share/nginx/html/index.html\n`,
      env,
    })
    await docker(['push', '--quiet', `${image}:main`], { env })
    const second = await buildFrontend(which, signing)
    expect(second.built).toBe(true)
    expect(second.result.stdout).toMatch(
      /has the same fingerprint, but no signature \(.*\), so it is not trusted\./,
    )
  }, 300_000)
})
