// build-images with Buildah, as a runner without privileges runs it: Debian bookworm's buildah,
// as a user that is not root and cannot reach any Docker socket (.ci/setup-buildah.sh), on the
// official project template, built as a team builds it. The bases come from the instance's own
// registry (`registry-mirrors`, Docker Hub's images under `dockerhub/` of the push registry), the
// images go to that registry, which wants a password. What the registry then holds is compared
// with what the Docker builder pushes for the same project; the runs build on one another. The
// GitHub runs get the Actions cache service (emulated on loopback), as every GitHub job does: it
// keeps the record of what the default branch built, which reuse needs.
import { beforeAll, describe, expect, test } from '@jest/globals'
import type { ChildProcess } from 'node:child_process'
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import { chmod, cp, readdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { startActionsCacheServer } from '../helpers/actions-cache-server.js'
import { useCleanup, useServers } from '../helpers/suite.js'
import { docker, dockerLogin, dockerRun, pushImage } from '../helpers/docker-env.js'
import { expectBuildCancelled, startDockerSuite } from '../helpers/docker-suite.js'
import type { ImageManifest } from '../helpers/docker-registry.js'
import { buildProcesses, killAll, whenGone, whenRunning } from '../helpers/processes.js'
import {
  asUser,
  buildahStore,
  dockerAsUser,
  giveTo,
  rootlessUser,
  type RootlessUser,
} from '../helpers/rootless.js'
import { fixture, runAsGithub, runCli, runOutcome, type RunResult } from '../helpers/run-action.js'
import { capture } from '../helpers/run-process.js'
import { startCosign } from '../helpers/cosign.js'
import { expectNoSecrets, findSecrets, keySecrets } from '../helpers/secrets.js'
import { ensureTemplateBaseImages } from '../helpers/template-base-images.js'
import { webRootOwners } from '../helpers/template-chain.js'
import {
  createTemplateProject,
  installAndBuild,
  outcomes,
  STAND_IN_VERSIONS,
  startTemplateRegistry,
  type TemplateProject,
} from '../helpers/template-project.js'
import { IMAGE_KINDS, type ImageKind } from '../../src/core/shared/project-images.js'

const FINGERPRINT = 'io.olympe.deploy-actions.fingerprint'
const BUILT_AS = 'io.olympe.deploy-actions.built-as'
const CREATED = 'org.opencontainers.image.created'
/** What the team adds to the template's backend: a step that reads an npm token, as a secret. */
const SECRET_STEP =
  "RUN --mount=type=secret,id=NPM_TOKEN,required=true sha256sum /run/secrets/NPM_TOKEN | cut -d' ' -f1 > /npm-token.sha256"
const TOKEN = `npm_${randomBytes(12).toString('hex')}`
const RUN_MS = 600_000

let user: RootlessUser
let project: TemplateProject
/** The job's temporary folder, and Buildah's store (its environment), the user's own, as on its runner. */
let jobTemp: string
let store: Record<string, string>
let repository: string
const cleanup = useCleanup(120_000)
const { npm, suite, cache } = useServers(
  { npm: startTemplateRegistry, suite: startDockerSuite, cache: startActionsCacheServer },
  cleanup,
  120_000,
)
/** The digests each image had after the last run. */
let last: Record<ImageKind, string>
let runs = 0

beforeAll(async () => {
  user = await rootlessUser(cleanup)
  // The instance's own copy of Docker Hub's bases, in the push registry under dockerhub/.
  const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
  await dockerLogin(suite.registry, { env })
  const flavours = await ensureTemplateBaseImages()
  for (const base of [...Object.values(flavours.onbuild), flavours.plain.frontend])
    await pushImage(base, `${suite.registry.host}/dockerhub/${base}`, { env })
  const backend = await readFile(
    fixture('olympe-project-template/docker/backend.Dockerfile'),
    'utf8',
  )
  project = cleanup.track(
    'template project',
    await createTemplateProject({
      appVersion: '1.4.0',
      files: {
        '.npmrc': npm.npmrc('env'),
        'docker/backend.Dockerfile': `${backend.trimEnd()}\n${SECRET_STEP}\n`,
      },
    }),
  )
  expect(outcomes(await installAndBuild(project, npm.token))).toEqual(
    ['npm install', 'npm run build:draw', 'npm run build:node', 'npx olympe buildCodeAsData'].map(
      (step) => ({ step, code: 0, tail: '' }),
    ),
  )
  jobTemp = await cleanup.tempDir('olympe-buildah-job-')
  store = await buildahStore(user, await cleanup.tempDir('olympe-buildah-store-'))
  // The project's folder is the user's, as a checkout on its runner; the one above it (root's,
  // private) is opened to it, as a runner's work folder is.
  await chmod(dirname(project.dir), 0o755)
  await giveTo(user, project.dir, jobTemp)
  repository = suite.uniqueRepository('buildah')
}, 300_000)

const name = (kind: ImageKind, repo = repository): string => `${repo}/${kind}`

function inputs(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...suite.pushInputs,
    codeasdata: 'true',
    'registry-mirrors': `docker.io=${suite.registry.host}/dockerhub`,
    'build-secrets': `NPM_TOKEN=${TOKEN}`,
    ...extra,
  }
}

/** A commit of its own for each run: its tag. */
function nextCommit(): { sha: string; tag: string } {
  runs++
  const sha = createHash('sha1').update(`buildah commit ${runs}`).digest('hex')
  return { sha, tag: `main-${sha.slice(0, 7)}` }
}

/** The step as the user, on GitHub's runner or as a GitLab job runs the command line. */
async function buildAsUser(
  how: 'github' | 'gitlab',
  commit: { sha: string; tag: string },
  onSpawn?: (child: ChildProcess) => void,
  dir = project.dir,
  extra: Record<string, string> = {},
  runner: { store?: Record<string, string>; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const common = { user, cwd: dir, inputs: inputs(extra), timeoutMs: RUN_MS, onSpawn }
  const env = { ...(runner.store ?? store), ...runner.env }
  return how === 'github'
    ? runAsGithub('build-images', {
        ...common,
        env: {
          ...env,
          ...cache.env,
          GITHUB_SHA: commit.sha,
          GITHUB_REPOSITORY: repository,
          GITHUB_RUN_ID: String(runs),
          RUNNER_TEMP: jobTemp,
        },
        event: { name: 'push', payload: { repository: { default_branch: 'main' } } },
      })
    : runCli('build-images', {
        ...common,
        env: {
          ...env,
          GITLAB_CI: 'true',
          CI_PIPELINE_SOURCE: 'push',
          CI_COMMIT_BRANCH: 'main',
          CI_DEFAULT_BRANCH: 'main',
          CI_COMMIT_SHA: commit.sha,
          CI_PIPELINE_ID: String(runs),
          CI_PROJECT_PATH: repository,
          CI_PROJECT_DIR: dir,
          RUNNER_TEMP_PROJECT_DIR: jobTemp,
          ...runner.env,
        },
      })
}

/** Exit 0, nothing secret anywhere it printed or wrote, nothing of its own left in the job's folder. */
async function expectClean(result: RunResult): Promise<void> {
  expect(runOutcome(result)).toEqual({ code: 0, tail: '' })
  expectNoSecrets({ stdout: result.stdout, stderr: result.stderr, ...result.files }, [
    suite.registry.password,
    TOKEN,
  ])
  expect(await readdir(jobTemp)).toEqual([])
}

/** What the registry holds under the run's tag, the moving tag naming the same manifest. */
async function pushed(
  result: RunResult,
  tag: string,
  repo = repository,
): Promise<Record<ImageKind, ImageManifest>> {
  const manifests = {} as Record<ImageKind, ImageManifest>
  for (const kind of IMAGE_KINDS) {
    const manifest = await suite.registry.manifest(name(kind, repo), tag)
    const moving = await suite.registry.manifest(name(kind, repo), 'main')
    expect({ kind, moving: moving.digest }).toEqual({ kind, moving: manifest.digest })
    expect({ kind, output: result.outputs[`${kind}-digest`] }).toEqual({
      kind,
      output: manifest.digest,
    })
    manifests[kind] = manifest
  }
  return manifests
}

/** The labels that do not change from run to run, nor from builder to builder, but `also`. */
function lastingLabels(manifest: ImageManifest, also: string[] = []): Record<string, string> {
  const dropped = new Set([CREATED, FINGERPRINT, BUILT_AS, ...also])
  return Object.fromEntries(
    Object.entries(manifest.config.Labels ?? {}).filter(([label]) => !dropped.has(label)),
  )
}
const RUN_LABELS = ['org.opencontainers.image.revision', 'org.opencontainers.image.source']

const built = (result: RunResult): ImageKind[] =>
  IMAGE_KINDS.filter((kind) =>
    new RegExp(`^\\[${kind}\\] \\$ buildah .* bud `, 'm').test(result.stdout),
  )

describe('build-images with Buildah, as an unprivileged user without Docker', () => {
  let docker26: Record<ImageKind, ImageManifest>

  test('the user is not root and cannot reach the Docker socket', async () => {
    expect(user.uid).not.toBe(0)
    const info = await dockerAsUser(user)
    expect(info.code).not.toBe(0)
    expect(info.stderr).toContain('permission denied while trying to connect to the Docker daemon')
  })

  test(
    "the bundle on GitHub's runner builds the template's three images and pushes them",
    async () => {
      const commit = nextCommit()
      const result = await buildAsUser('github', commit)
      await expectClean(result)
      expect(result.stdout).toMatch(
        /Building with Buildah: no Docker engine answers \(permission denied while trying to connect to the Docker daemon socket[^\n]*\), and Buildah 1\.\d+\.\d+ is on PATH\./,
      )
      expect(result.stdout).toContain(
        "Builder: Buildah 1.28.2, storage driver vfs (STORAGE_DRIVER unset: this step's default), isolation chroot (BUILDAH_ISOLATION unset: this step's default)",
      )
      expect(built(result)).toEqual(IMAGE_KINDS)
      // The default branch's record of each image, in the Actions cache, for the next runs.
      expect(cache.entries().map((entry) => entry.scope)).toEqual(
        IMAGE_KINDS.map(() => 'refs/heads/main'),
      )
      const manifests = await pushed(result, commit.tag)
      last = {} as Record<ImageKind, string>
      for (const kind of IMAGE_KINDS) {
        const manifest = manifests[kind]
        last[kind] = manifest.digest
        // Docker's manifest format, as `docker push` sends it.
        expect({ kind, type: manifest.mediaType }).toEqual({
          kind,
          type: 'application/vnd.docker.distribution.manifest.v2+json',
        })
        expect(manifest.config.Labels?.[FINGERPRINT]).toMatch(/^sha256:[0-9a-f]{64}$/)
        expect(manifest.config.Labels?.[BUILT_AS]).toBe(commit.tag)
        expect(lastingLabels(manifest)).toMatchObject({
          'org.opencontainers.image.version': '1.4.0',
          'org.opencontainers.image.revision': commit.sha,
          'org.opencontainers.image.source': `https://github.com/${repository}`,
          draw_version: STAND_IN_VERSIONS.draw,
        })
        // No label of Buildah's own (io.buildah.version): the labels are the step's and the base's.
        expect(
          Object.keys(manifest.config.Labels ?? {}).filter((l) => l.includes('buildah')),
        ).toEqual([])
      }
    },
    RUN_MS,
  )

  test(
    'the registry holds what the Docker builder pushes for the same project',
    async () => {
      // The same project and inputs, built by Docker 26 (as root, which reaches the engine): its
      // bases come from the same mirror, as named build contexts.
      const commit = nextCommit()
      const other = suite.uniqueRepository('docker26')
      const result = await runAsGithub('build-images', {
        cwd: project.dir,
        inputs: inputs({ builder: 'docker' }),
        env: {
          ...suite.env,
          GITHUB_SHA: commit.sha,
          GITHUB_REPOSITORY: other,
          GITHUB_RUN_ID: String(runs),
        },
        event: { name: 'push', payload: { repository: { default_branch: 'main' } } },
        timeoutMs: RUN_MS,
      })
      expect(runOutcome(result)).toEqual({ code: 0, tail: '' })
      const commands = await suite.spy.commands()
      expect(commands.find((line) => line.includes('frontend.Dockerfile'))).toContain(
        `--build-context olympeio/frontend-base=docker-image://${suite.registry.host}/dockerhub/olympeio/frontend-base:latest`,
      )
      docker26 = await pushed(result, commit.tag, other)
      const ours = {} as Record<ImageKind, ImageManifest>
      for (const kind of IMAGE_KINDS) ours[kind] = await suite.registry.manifest(name(kind), 'main')
      for (const kind of IMAGE_KINDS) {
        expect({ kind, type: ours[kind].mediaType }).toEqual({
          kind,
          type: docker26[kind].mediaType,
        })
        // The same labels but the run's own (revision, source name, time, fingerprint).
        expect({ kind, labels: lastingLabels(ours[kind], RUN_LABELS) }).toEqual({
          kind,
          labels: lastingLabels(docker26[kind], RUN_LABELS),
        })
      }
      // The web root belongs to nginx (101) and group root (0), as the template wants, in both.
      const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
      const frontend = `${suite.registry.host}/${name('frontend')}:main`
      await docker(['pull', '--quiet', frontend], { env })
      const owners = await webRootOwners(frontend)
      expect(Object.keys(owners)).toEqual(['101:0'])
      expect(owners).toEqual(
        await webRootOwners(`${suite.registry.host}/${name('frontend', other)}:main`),
      )
    },
    RUN_MS,
  )

  test(
    'the build secret reached its step, and is in no layer and no history',
    async () => {
      const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
      const backend = `${suite.registry.host}/${name('backend')}:main`
      await docker(['pull', '--quiet', backend], { env })
      const hash = createHash('sha256').update(TOKEN).digest('hex')
      expect((await dockerRun(backend, ['cat', '/npm-token.sha256'])).trim()).toBe(hash)
      for (const kind of IMAGE_KINDS) {
        const manifest = await suite.registry.manifest(name(kind), 'main')
        const layers = await suite.registry.layerFiles(name(kind), 'main')
        const texts: Record<string, string> = {
          config: JSON.stringify(manifest.config),
          history: JSON.stringify(manifest.history),
        }
        layers.forEach(
          (layer, index) => (texts[`${kind} layer ${index}`] = layer.toString('latin1')),
        )
        expect({ kind, found: findSecrets(texts, [TOKEN]) }).toEqual({ kind, found: [] })
        // The scan reads the files the layers hold: the backend's has the token's hash.
        if (kind === 'backend') expect(Object.values(texts).join('\n')).toContain(hash)
      }
      const history = (await suite.registry.manifest(name('backend'), 'main')).history
      expect(history.map((step) => step.created_by ?? '')).toContainEqual(
        expect.stringContaining('--mount=type=secret,id=NPM_TOKEN'),
      )
    },
    RUN_MS,
  )

  test(
    'a second run with nothing changed: all three reused, nothing built or pushed',
    async () => {
      const commit = nextCommit()
      const result = await buildAsUser('github', commit)
      await expectClean(result)
      expect(built(result)).toEqual([])
      expect(result.stdout).not.toMatch(/\$ buildah .* push /)
      expect(result.stdout).toContain(
        'Nothing to build: no image changed since it was last pushed.',
      )
      expect(JSON.parse(result.outputs.reused ?? '')).toEqual(IMAGE_KINDS)
      const manifests = await pushed(result, commit.tag)
      for (const kind of IMAGE_KINDS) expect(manifests[kind].digest).toBe(last[kind])
    },
    RUN_MS,
  )

  test(
    'one backend file changed: the backend is built, the other two reused',
    async () => {
      const file = join(project.dir, 'dist/node/main.js')
      await writeFile(file, `${await readFile(file, 'utf8')}\n// changed\n`)
      const commit = nextCommit()
      const result = await buildAsUser('github', commit)
      await expectClean(result)
      expect(built(result)).toEqual(['backend'])
      expect(JSON.parse(result.outputs.reused ?? '')).toEqual(['frontend', 'codeasdata'])
      const manifests = await pushed(result, commit.tag)
      expect(manifests.backend.digest).not.toBe(last.backend)
      expect(manifests.frontend.digest).toBe(last.frontend)
      expect(manifests.codeasdata.digest).toBe(last.codeasdata)
    },
    RUN_MS,
  )

  test(
    "with 'signing-key': the images are built once more, signed and attested, cosign verifies the signatures and both attestations, and once the cache has forgotten them, their signatures prove them",
    async () => {
      // An unencrypted PEM key, as openssl makes one.
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      const key = privateKey.export({ type: 'sec1', format: 'pem' }).toString()
      const signing = { 'signing-key': key }
      const first = nextCommit()
      const signed = await buildAsUser('github', first, undefined, project.dir, signing)
      await expectClean(signed)
      expectNoSecrets(
        { stdout: signed.stdout, stderr: signed.stderr, ...signed.files },
        keySecrets(key),
      )
      // With a key, only its signature proves an image: the unsigned ones are built again.
      expect(built(signed)).toEqual(IMAGE_KINDS)
      const digests = {} as Record<ImageKind, string>
      for (const kind of IMAGE_KINDS) {
        digests[kind] = (await pushed(signed, first.tag))[kind].digest
        expect(signed.stdout).toMatch(
          new RegExp(
            `^${kind}: built: 'main' \\(built as main-[0-9a-f]{7}\\) has the same fingerprint, but no signature \\(no 'sha256-[0-9a-f]{64}\\.sig' in its repository\\), so it is not trusted\\.$`,
            'm',
          ),
        )
        expect(signed.stdout).toMatch(
          new RegExp(
            `^${kind}: signed ${digests[kind]} \\(sha256-[0-9a-f]{64}\\.sig, fingerprint sha256:[0-9a-f]{64}\\)\\.$`,
            'm',
          ),
        )
      }
      const home = await cleanup.tempDir('olympe-buildah-cosign-')
      const pub = join(home, 'cosign.pub')
      await writeFile(pub, publicKey.export({ type: 'spki', format: 'pem' }).toString())
      const verified = await capture(
        'cosign',
        [
          'verify',
          '--key',
          pub,
          '--insecure-ignore-tlog=true',
          '--allow-http-registry=true',
          `${suite.registry.host}/${name('backend')}@${digests.backend}`,
        ],
        {
          env: { PATH: process.env.PATH ?? '', HOME: home, DOCKER_CONFIG: suite.dockerConfig },
          timeoutMs: 60_000,
        },
      )
      expect({ code: verified.code, stderr: verified.code === 0 ? '' : verified.stderr }).toEqual({
        code: 0,
        stderr: '',
      })
      // The attestations Buildah's images carry: both types accepted, offline; the provenance
      // names the commit, the repository and the base by the digest its mirror serves; the SBOM
      // lists the runtime the lock file locks.
      const cosign = await startCosign(cleanup, suite.dockerConfig)
      const backend = `${suite.registry.host}/${name('backend')}@${digests.backend}`
      const attested: Record<string, Record<string, unknown>> = {}
      for (const type of ['slsaprovenance1', 'cyclonedx']) {
        const run = await cosign.verifyAttestation(pub, type, backend)
        expect({ type, code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({
          type,
          code: 0,
          output: '',
        })
        attested[type] = run.statements[0] ?? {}
      }
      const base = await suite.registry.manifest('dockerhub/olympeio/backend-base', '24-latest')
      expect(attested.slsaprovenance1?.predicate).toMatchObject({
        buildDefinition: {
          externalParameters: { repository: `https://github.com/${repository}`, image: 'backend' },
          resolvedDependencies: expect.arrayContaining([
            {
              uri: `git+https://github.com/${repository}@refs/heads/main`,
              digest: { gitCommit: first.sha },
            },
            { name: 'olympeio/backend-base:24-latest', digest: { sha256: base.digest.slice(7) } },
          ]),
        },
      })
      const purls = (
        attested.cyclonedx?.predicate as { components: Array<{ purl: string }> }
      ).components.map((each) => each.purl)
      expect(purls).toContain(`pkg:npm/%40olympeio/runtime-node@${STAND_IN_VERSIONS.runtime}`)
      expect(purls).not.toContain(`pkg:npm/webpack@${STAND_IN_VERSIONS.webpack}`)
      cache.evictAll()
      const second = nextCommit()
      const proven = await buildAsUser('github', second, undefined, project.dir, signing)
      await expectClean(proven)
      expect(built(proven)).toEqual([])
      expect(JSON.parse(proven.outputs.reused ?? '')).toEqual(IMAGE_KINDS)
      for (const kind of IMAGE_KINDS) {
        expect(proven.stdout).toContain(
          `${kind}: 'main' (built as ${first.tag}) has the same fingerprint, and signed under the key of 'signing-key'`,
        )
        expect(proven.stdout).toContain(
          `${kind}: unchanged, it keeps the attestations of the run that built it (provenance, sbom).`,
        )
      }
      const manifests = await pushed(proven, second.tag)
      for (const kind of IMAGE_KINDS) expect(manifests[kind].digest).toBe(digests[kind])
    },
    RUN_MS,
  )
})

describe("SOURCES_PATH with Buildah: the base's ONBUILD read by buildah, and what COPY took", () => {
  /** A copy of the template project, given to the user, with its frontend Dockerfile rewritten. */
  async function variant(frontend: string): Promise<string> {
    const copy = await suite.copyProject()
    await cp(project.dir, copy, { recursive: true })
    await writeFile(join(copy, 'docker/frontend.Dockerfile'), frontend)
    // What a context holds besides the build output: installed packages, far larger than it.
    await writeFile(join(copy, 'node_modules/packed.bin'), randomBytes(4 * 1024 * 1024))
    await giveTo(user, copy)
    return copy
  }

  test(
    'a base without ONBUILD ARG SOURCES_PATH: refused before any build, nothing pushed',
    async () => {
      const copy = await variant(
        'FROM olympeio/frontend-base:latest-plain\nCOPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html\n',
      )
      const result = await buildAsUser('github', nextCommit(), undefined, copy, {
        images: 'frontend',
        codeasdata: 'false',
        'frontend-image-name': `${repository}/undeclared`,
      })
      expect(result.code).toBe(1)
      expect(result.stdout).toContain(
        "'docker/frontend.Dockerfile' uses $SOURCES_PATH but nothing declares it: it has no 'ARG SOURCES_PATH' line, and its base image 'olympeio/frontend-base:latest-plain' has no 'ONBUILD ARG SOURCES_PATH'.",
      )
      expect(result.stdout).not.toMatch(/\$ buildah .* bud /)
      expect(await suite.registry.catalog()).not.toContain(`${repository}/undeclared`)
    },
    RUN_MS,
  )

  test(
    'a COPY of the whole context: built, but not pushed, and the message names the step',
    async () => {
      const copy = await variant(
        'FROM olympeio/frontend-base:latest\nCOPY --chown=nginx:root . /usr/share/nginx/html\n',
      )
      const result = await buildAsUser('github', nextCommit(), undefined, copy, {
        images: 'frontend',
        codeasdata: 'false',
        'frontend-image-name': `${repository}/whole`,
      })
      expect(result.code).toBe(1)
      expect(result.stdout).toMatch(
        /The frontend image was built but not pushed: its step 'COPY dir:[0-9a-f]+ in \/usr\/share\/nginx\/html \(with the steps after it, one layer\)' added \d+\.\d MB, while 'dist\/web' holds \d+\.\d MB\./,
      )
      expect(await suite.registry.catalog()).not.toContain(`${repository}/whole`)
    },
    RUN_MS,
  )
})

describe("Buildah with the runner's own login, in a GitLab job of a runner set up its own way", () => {
  test(
    "DOCKER_CONFIG naming a folder without config.json, the job's temporary folder not made yet: pushed with the login of 'buildah login'",
    async () => {
      // A store of its own, whose runtime folder holds the login `buildah login` wrote, as an
      // earlier line of the job's script would.
      const own = await buildahStore(user, await cleanup.tempDir('olympe-buildah-login-store-'))
      const login = await asUser(
        user,
        'buildah',
        [
          'login',
          '--tls-verify=false',
          '--username',
          suite.registry.user,
          '--password-stdin',
          suite.registry.host,
        ],
        own,
        suite.registry.password,
      )
      expect({ code: login.code, stderr: login.stderr }).toEqual({ code: 0, stderr: '' })
      // The job's Docker config folder, which holds no config.json (no docker login), and a
      // temporary folder GitLab makes only for a job with a variable of type File.
      const dockerConfig = await cleanup.tempDir('olympe-buildah-docker-config-')
      const builds = await cleanup.tempDir('olympe-buildah-builds-')
      await giveTo(user, dockerConfig, builds)
      const temporary = join(builds, 'shop.tmp')
      const result = await buildAsUser(
        'gitlab',
        nextCommit(),
        undefined,
        project.dir,
        {
          images: 'frontend',
          codeasdata: 'false',
          'frontend-image-name': `${repository}/runner-login`,
          // No login as inputs: the runner's own.
          'registry-username': '',
          'registry-password': '',
        },
        { store: own, env: { DOCKER_CONFIG: dockerConfig, RUNNER_TEMP_PROJECT_DIR: temporary } },
      )
      expect(runOutcome(result)).toEqual({ code: 0, tail: '' })
      expect(result.stdout).not.toContain('checking authfile')
      expect(result.stdout).not.toContain('Logged in to')
      expect(await suite.registry.tags(`${repository}/runner-login`)).toContain('main')
      expect(await readdir(temporary)).toEqual([])
      expect(await readdir(dockerConfig)).toEqual([])
      expectNoSecrets({ stdout: result.stdout, stderr: result.stderr, ...result.files }, [
        suite.registry.password,
      ])
    },
    RUN_MS,
  )
})

describe('build-images with Buildah cancelled during a build', () => {
  test.each<['github' | 'gitlab', NodeJS.Signals]>([
    ['github', 'SIGINT'],
    ['gitlab', 'SIGTERM'],
  ])(
    'on %s, %s leaves no buildah running and no login on disk',
    async (how, signal) => {
      const seconds = how === 'github' ? 3411 : 3412
      const copy = await suite.copyProject()
      await writeFile(
        join(copy, 'docker/frontend.Dockerfile'),
        `FROM olympeio/frontend-base:latest\nRUN echo ${randomBytes(4).toString('hex')} && sleep ${seconds}\nCOPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html\n`,
      )
      await giveTo(user, copy)
      const ours = buildProcesses(/^buildah/, copy, seconds)
      let step: ChildProcess | undefined
      try {
        const running = buildAsUser(how, nextCommit(), (child) => (step = child), copy)
        expect(await whenRunning(`sleep ${seconds}`, 120_000)).toBe(true)
        step?.kill(signal)
        const result = await running
        expectBuildCancelled(result, how, signal)
        expect(await whenGone(ours, 30_000)).toEqual([])
        expect(await readdir(jobTemp)).toEqual([])
        expectNoSecrets({ stdout: result.stdout, stderr: result.stderr, ...result.files }, [
          suite.registry.password,
          TOKEN,
        ])
      } finally {
        killAll(ours())
      }
    },
    RUN_MS,
  )
})
