import { describe, expect, test } from '@jest/globals'
import type { CiContext } from '../../../../src/core/shared/context.js'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../../../../src/core/build-images/definition.js'
import { IMAGE_KINDS, type ImageKind } from '../../../../src/core/shared/project-images.js'
import { checkBuildImages } from '../../../../src/core/build-images/check.js'
import { CODEASDATA_WARNING } from '../../../../src/core/build-images/report.js'
import { runBuildImages } from '../../../../src/core/build-images/run.js'
import { InputError } from '../../../../src/core/shared/errors.js'
import { withDefaults } from '../../../../src/core/definition.js'
import { fakeBuilders, fakeDocker, type FakeDockerScript } from '../../../helpers/docker-fake.js'
import type { Recorded } from '../../../helpers/recording.js'
import { memoryFiles } from '../../../helpers/memory-files.js'
import { buildImagesPorts, PUSH_TO_MAIN } from '../../../helpers/unit-fakes.js'
import { failure, fakeNetwork, type RegistryScript } from '../../../helpers/fake-registry.js'
import type { HttpRequest } from '../../../../src/core/shared/http.js'

type Given = Partial<Record<BuildImagesInputName, string>>
const KIND_LABELS: Record<ImageKind, string> = {
  frontend: 'Frontend',
  backend: 'Backend',
  codeasdata: 'Code as data',
}

const DOCKERFILE = 'FROM base\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n'
const PROJECT: Record<string, string> = {
  '/p/docker/frontend.Dockerfile': DOCKERFILE,
  '/p/docker/backend.Dockerfile': DOCKERFILE,
  '/p/docker/codeasdata.Dockerfile': DOCKERFILE,
  '/p/dist/web/index.html': '<html>',
  '/p/dist/web/version.json': '{"version":"2.11.3"}',
  '/p/dist/node/main.js': '',
  '/p/dist/codeAsData/import_order.json': '[]',
  '/p/node_modules/@olympeio/draw/package.json': '{"name":"@olympeio/draw","version":"2.11.3"}',
}

async function runWith(
  options: {
    given?: Given
    context?: Partial<CiContext>
    files?: Record<string, string>
    docker?: FakeDockerScript
    /** The registries' API (default: no registry answers, as offline). */
    registry?: RegistryScript
    /** The runner's other builder, when the test has both. */
    other?: FakeDockerScript
  } = {},
): Promise<
  Recorded & {
    docker: ReturnType<typeof fakeDocker>
    builders: ReturnType<typeof fakeBuilders>
    requests: HttpRequest[]
    error?: unknown
  }
> {
  const docker = fakeDocker({ server: '20.10.24', ...options.docker })
  const other = options.other && fakeDocker(options.other)
  const builders = fakeBuilders(docker, other ? { others: { [other.name]: other } } : {})
  const network = fakeNetwork(options.registry ?? (() => failure('dns')))
  const files = memoryFiles(options.files ?? PROJECT)
  const ports = buildImagesPorts(docker, files, { builders, network })
  const ctx = { ...PUSH_TO_MAIN, ...options.context }
  const ran = { ...ports, docker, builders, requests: network.requests }
  try {
    const raw = withDefaults(buildImagesDefinition, { registry: 'r.io', ...options.given })
    await runBuildImages(await checkBuildImages(raw, ctx, ports), ctx, ports)
    return ran
  } catch (error) {
    return { ...ran, error }
  }
}

describe('build-images run', () => {
  test('happy path: phases in order, outputs and summary', async () => {
    const { lines, outputs, summaries, docker, error } = await runWith({
      given: { 'registry-username': 'ci', 'registry-password': 'pw-123456' },
    })
    expect(error).toBeUndefined()
    expect(lines.filter((line) => line.startsWith('group: '))).toEqual([
      'group: Branch check',
      'group: Plan',
      'group: Builder',
      'group: Pre-flight checks',
      'group: Unchanged images',
      'group: Registry login: r.io',
      'group: Build and push',
    ])
    expect(lines).toContain('Docker client 28.2.2, daemon 20.10.24')
    expect(lines).toContain(
      "draw_version 2.11.3 (from 'version' in node_modules/@olympeio/draw/package.json)",
    )
    expect(docker.calls[0]).toBe('login r.io ci')
    expect(docker.passwords).toEqual(['pw-123456'])
    expect(outputs).toMatchObject({
      skipped: 'false',
      'frontend-image': 'r.io/acme/shop/frontend:main-1a2b3c4',
      'backend-image': 'r.io/acme/shop/backend:main-1a2b3c4',
      'codeasdata-image': '',
    })
    expect(summaries[0]?.rows.map(([name]) => name)).toEqual([
      'Image',
      'Frontend',
      'Backend',
      'Branch',
      'Version label',
      'draw_version label',
    ])
  })

  test('a registry namespace that the default image names repeat: one warning, the images as named', async () => {
    const { lines, outputs, error } = await runWith({ given: { registry: 'ghcr.io/acme' } })
    expect(error).toBeUndefined()
    expect(lines.filter((line) => line.startsWith('warning: The registry'))).toEqual([
      "warning: The registry 'ghcr.io/acme' ends with 'acme', and the image name 'acme/shop/frontend' starts with it: the image is 'ghcr.io/acme/acme/shop/frontend'. If 'acme' should appear once, set 'registry' to 'ghcr.io' (the default image names start with the repository's owner), or set the image names.",
    ])
    expect(outputs['frontend-image']).toBe('ghcr.io/acme/acme/shop/frontend:main-1a2b3c4')
  })

  test('a registry namespace of its own: no warning', async () => {
    const { lines } = await runWith({ given: { registry: 'ghcr.io/platform' } })
    expect(lines.filter((line) => line.startsWith('warning: The registry'))).toEqual([])
  })

  test('skipped on another branch: empty outputs, a reason, no docker at all', async () => {
    const { lines, outputs, summaries, docker, error } = await runWith({
      context: { branch: 'feature/x' },
    })
    expect(error).toBeUndefined()
    expect(docker.calls).toEqual([])
    expect(outputs).toMatchObject({ skipped: 'true', 'frontend-image': '', images: '[]' })
    expect(lines.join('\n')).toContain("Skipped, nothing is built: branch 'feature/x'")
    expect(summaries[0]?.heading).toBe('Olympe images: skipped')
  })

  // What `images` and `codeasdata` select is all that is built, pushed and reported; the
  // outputs of the others stay empty, and the database warning comes with code as data only.
  test.each<[string, Given, ImageKind[]]>([
    ['default', {}, ['frontend', 'backend']],
    ['codeasdata true', { codeasdata: 'true' }, ['frontend', 'backend', 'codeasdata']],
    ['images: codeasdata', { images: 'codeasdata' }, ['codeasdata']],
    ['images: backend', { images: 'backend' }, ['backend']],
    [
      'images: frontend, codeasdata true',
      { images: 'frontend', codeasdata: 'true' },
      ['frontend', 'codeasdata'],
    ],
  ])('builds and pushes the images selected only: %s', async (_name, given, kinds) => {
    const { lines, outputs, summaries, docker, error } = await runWith({ given })
    expect(error).toBeUndefined()
    const reference = (kind: ImageKind): string => `r.io/acme/shop/${kind}:main-1a2b3c4`
    expect(docker.calls.filter((call) => call.startsWith('build ')).sort()).toEqual(
      kinds.map((kind) => `build ${kind}`).sort(),
    )
    // Each tag, then the branch's moving tag.
    expect(docker.calls.filter((call) => call.startsWith('push ')).sort()).toEqual(
      kinds
        .flatMap((kind) => [`push ${reference(kind)}`, `push r.io/acme/shop/${kind}:main`])
        .sort(),
    )
    for (const kind of IMAGE_KINDS) {
      const built = kinds.includes(kind)
      expect({ kind, image: outputs[`${kind}-image`] }).toEqual({
        kind,
        image: built ? reference(kind) : '',
      })
      expect({ kind, digested: outputs[`${kind}-digest`] !== '' }).toEqual({
        kind,
        digested: built,
      })
    }
    const listed = JSON.parse(outputs.images ?? '') as Array<{ kind: string }>
    expect(listed.map((image) => image.kind)).toEqual(kinds)

    const summary = summaries[0]
    const notes = summary?.notes ?? []
    expect(summary?.rows.slice(1, -3).map(([label]) => label)).toEqual(
      kinds.map((kind) => KIND_LABELS[kind]),
    )
    const left = IMAGE_KINDS.filter((kind) => !kinds.includes(kind))
    const notBuilt = notes.find((note) => note.startsWith('Not built'))
    if (left.length === 0) expect(notBuilt).toBeUndefined()
    else for (const kind of left) expect(notBuilt).toContain(KIND_LABELS[kind].toLowerCase())

    const withCodeAsData = kinds.includes('codeasdata')
    expect(lines.some((line) => line.startsWith('warning: The code-as-data image is built'))).toBe(
      withCodeAsData,
    )
    expect(notes.includes(CODEASDATA_WARNING)).toBe(withCodeAsData)
  })

  test('code as data only: the frontend and backend files are not needed', async () => {
    const files = Object.fromEntries(
      Object.entries(PROJECT).filter(([path]) => /codeasdata|codeAsData/.test(path)),
    )
    const { error, docker, lines } = await runWith({ given: { images: 'codeasdata' }, files })
    expect(error).toBeUndefined()
    expect(docker.calls.filter((call) => call.startsWith('build '))).toEqual(['build codeasdata'])
    expect(lines).toContain("Not built (not named in 'images'): frontend, backend.")
  })

  test('pre-flight reports every problem at once and builds nothing', async () => {
    const files = { ...PROJECT }
    delete files['/p/dist/node/main.js']
    files['/p/docker/backend.Dockerfile'] = 'FROM base\nCOPY $SOURCES_PATH /app\n'
    const { error, lines, docker } = await runWith({ files, docker: { client: '23.0.1' } })
    const message = (error as Error).message
    expect(message).toContain('The pre-flight checks failed, so no image was built:')
    expect(message).toContain("The backend sources folder 'dist/node' does not exist")
    expect(message).toContain("Run 'npm run build:node' before this step, or set 'backend-sources'")
    expect(message).toContain("Docker client '23.0.1' is too old")
    // Base images are read only once the sources exist and the engine answers.
    expect(lines.join('\n')).not.toContain("'ARG SOURCES_PATH'")
    expect(docker.calls).toEqual([])
  })

  test('a missing Dockerfile is found by the check phase, before the engine is asked anything', async () => {
    const files = { ...PROJECT }
    delete files['/p/docker/frontend.Dockerfile']
    delete files['/p/dist/node/main.js']
    const { error, lines, docker } = await runWith({ files })
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).input).toBe('docker-folder')
    expect((error as Error).message).toBe(
      "The Dockerfiles cannot be built as they are, so no image was built:\n- The frontend image definition 'docker/frontend.Dockerfile' does not exist (looked for '/p/docker/frontend.Dockerfile'). Expected 'frontend.Dockerfile' in 'docker-folder': add it, or set 'docker-folder' to the folder that holds it.",
    )
    expect(lines.filter((line) => line.startsWith('group: '))).toEqual(['group: Branch check'])
    expect(docker.calls).toEqual([])
  })

  test('a daemon that does not answer fails the pre-flight', async () => {
    const { error } = await runWith({ docker: { server: '' }, given: { builder: 'docker' } })
    expect((error as Error).message).toContain('The Docker daemon does not answer')
  })

  test('a refused login says what to check and builds nothing', async () => {
    const { error, docker } = await runWith({
      given: { 'registry-username': 'ci', 'registry-password': 'wrong-pass' },
      docker: {
        failLogin: [
          'WARNING! Your password will be stored unencrypted',
          'Error response from daemon: Get "http://r.io/v2/": unauthorized',
        ],
      },
    })
    const message = (error as Error).message
    expect(message).toContain(
      "Logging in to the registry 'r.io' as 'ci' failed: docker login exited with 1",
    )
    expect(message).toContain('unauthorized')
    expect(message).not.toContain('WARNING!')
    expect(docker.calls).toEqual(['login r.io ci'])
  })
})

describe('build-images run: several backends', () => {
  const BACKENDS = JSON.stringify([
    { name: 'api', sources: 'dist/api' },
    { name: 'worker', sources: 'dist/worker' },
    { name: 'jobs', sources: 'dist/jobs', dockerfile: 'docker/jobs.Dockerfile' },
  ])
  const FILES = {
    ...PROJECT,
    '/p/docker/jobs.Dockerfile': DOCKERFILE,
    '/p/dist/api/main.js': 'api',
    '/p/dist/worker/main.js': 'worker',
    '/p/dist/jobs/main.js': 'jobs',
  }

  test('each backend built from its sources into its image, side by side, and reported by name', async () => {
    const { docker, outputs, summaries, lines, error } = await runWith({
      given: { backends: BACKENDS },
      files: FILES,
    })
    expect(error).toBeUndefined()
    expect(docker.maxConcurrentBuilds).toBe(3)
    expect(
      docker.builds.map((build) => [build.tags[0], build.dockerfile, build.sourcesPath]),
    ).toEqual([
      ['r.io/acme/shop/frontend:main-1a2b3c4', '/p/docker/frontend.Dockerfile', 'dist/web'],
      ['r.io/acme/shop/backend-api:main-1a2b3c4', '/p/docker/backend.Dockerfile', 'dist/api'],
      ['r.io/acme/shop/backend-worker:main-1a2b3c4', '/p/docker/backend.Dockerfile', 'dist/worker'],
      ['r.io/acme/shop/backend-jobs:main-1a2b3c4', '/p/docker/jobs.Dockerfile', 'dist/jobs'],
    ])
    expect(lines).toContain(
      'backend:jobs: r.io/acme/shop/backend-jobs:main-1a2b3c4 from docker/jobs.Dockerfile with SOURCES_PATH=dist/jobs',
    )
    expect(lines).toContain('[backend:api] built r.io/acme/shop/backend-api:main-1a2b3c4')
    expect(outputs).toMatchObject({
      'backend-image': '',
      'backend-digest': '',
      'backend-images': [
        'r.io/acme/shop/backend-api:main-1a2b3c4',
        'r.io/acme/shop/backend-worker:main-1a2b3c4',
        'r.io/acme/shop/backend-jobs:main-1a2b3c4',
      ].join('\n'),
      matrix: '["frontend","backend:api","backend:worker","backend:jobs"]',
    })
    const listed = JSON.parse(outputs.images ?? '') as Array<{ kind: string; name?: string }>
    expect(listed.map(({ kind, name }) => [kind, name])).toEqual([
      ['frontend', undefined],
      ['backend', 'api'],
      ['backend', 'worker'],
      ['backend', 'jobs'],
    ])
    expect(summaries[0]?.rows.slice(1, 5).map(([label]) => label)).toEqual([
      'Frontend',
      "Backend 'api'",
      "Backend 'worker'",
      "Backend 'jobs'",
    ])
  })

  test('images: backend:<name> builds that backend alone, whose sources alone must exist', async () => {
    const files: Record<string, string> = { ...FILES }
    delete files['/p/dist/api/main.js']
    delete files['/p/dist/web/index.html']
    const { docker, outputs, error } = await runWith({
      given: { backends: BACKENDS, images: 'backend:worker' },
      files,
    })
    expect(error).toBeUndefined()
    expect(docker.calls.filter((call) => call.startsWith('build '))).toEqual([
      'build backend-worker',
    ])
    expect(outputs.matrix).toBe('["backend:worker"]')
    expect(outputs['backend-images']).toBe('r.io/acme/shop/backend-worker:main-1a2b3c4')
    expect(outputs['frontend-image']).toBe('')
  })

  test("a backend's sources folder missing: refused at run, naming it, before anything is built", async () => {
    const files: Record<string, string> = { ...FILES }
    delete files['/p/dist/worker/main.js']
    const { docker, error } = await runWith({ given: { backends: BACKENDS }, files })
    expect((error as Error).message).toBe(
      "The pre-flight checks failed, so no image was built:\n- The backend 'worker' sources folder 'dist/worker' does not exist (looked for '/p/dist/worker'). Expected the project's built backend 'worker'. Run 'npm run build:node' before this step, or set its 'sources' in 'backends' to the folder your build writes.",
    )
    expect(docker.calls.filter((call) => /^(build|push) /.test(call))).toEqual([])
  })
})

describe('build-images run: SOURCES_PATH declared, and what COPY took', () => {
  const template = 'FROM olympeio/frontend-base:latest\nCOPY $SOURCES_PATH /usr/share/nginx/html\n'

  test('a Dockerfile that nothing declares SOURCES_PATH in: refused before any build', async () => {
    const files = { ...PROJECT, '/p/docker/frontend.Dockerfile': template }
    const { error, docker } = await runWith({ files })
    expect((error as Error).message).toMatch(
      /^The pre-flight checks failed, so no image was built:\n- 'docker\/frontend.Dockerfile' uses \$SOURCES_PATH but nothing declares it: it has no 'ARG SOURCES_PATH' line, and its base image 'olympeio\/frontend-base:latest' has no 'ONBUILD ARG SOURCES_PATH'\./,
    )
    expect(docker.calls).toEqual(['onbuild olympeio/frontend-base:latest'])
  })

  test('a COPY far larger than the sources: that image is not pushed', async () => {
    const reference = 'r.io/acme/shop/frontend:main-1a2b3c4'
    const { error, docker } = await runWith({
      given: { images: 'frontend' },
      docker: {
        history: {
          [reference]: [{ createdBy: 'COPY . /usr/share/nginx/html # buildkit', bytes: 9_000_000 }],
        },
      },
    })
    expect((error as Error).message).toContain(
      "The frontend image was built but not pushed: its step 'COPY . /usr/share/nginx/html' added 9.0 MB, while 'dist/web' holds 0.0 MB.",
    )
    expect(docker.calls).toEqual([
      'builder',
      'build frontend',
      'built frontend',
      `history ${reference}`,
      'history base',
    ])
  })
})

describe('build-images run: the builder', () => {
  test('auto on a runner without an engine: Buildah, opened with the login, and closed at the end', async () => {
    const { lines, docker, builders, error } = await runWith({
      docker: { name: 'buildah' },
      other: { name: 'docker' },
      given: { 'registry-username': 'ci', 'registry-password': 'pw-123456' },
    })
    expect(error).toBeUndefined()
    expect(lines).toContain(
      'Building with Buildah: no Docker engine answers (Cannot connect to the Docker daemon), and Buildah 1.28.2 is on PATH.',
    )
    expect(lines).toContain('Buildah 1.28.2, building for linux/amd64')
    expect(builders.opened).toEqual(['buildah with login'])
    expect(builders.disposed).toBe(1)
    expect(docker.calls.filter((call) => !call.startsWith('built '))).toEqual([
      'login r.io ci',
      'builder',
      'build frontend',
      'build backend',
      // The size check reads the images in Buildah's store, as in the engine's.
      'history r.io/acme/shop/frontend:main-1a2b3c4',
      'history base',
      'push r.io/acme/shop/frontend:main-1a2b3c4',
      'push r.io/acme/shop/frontend:main',
      // The base's history was read for the frontend: the run keeps it.
      'history r.io/acme/shop/backend:main-1a2b3c4',
      'push r.io/acme/shop/backend:main-1a2b3c4',
      // Buildah pushes every tag itself: the registry API tags only the engine's images.
      'push r.io/acme/shop/backend:main',
    ])
  })

  test('a run skipped by its branch opens no builder and asks none', async () => {
    const { builders, error } = await runWith({ context: { branch: 'feature/x' } })
    expect(error).toBeUndefined()
    expect(builders.opened).toEqual([])
  })

  test('a failed run still closes the builder it opened (its login goes with it)', async () => {
    const { builders, error } = await runWith({
      docker: { failBuild: ['frontend'] },
      given: { 'registry-username': 'ci', 'registry-password': 'pw-123456' },
    })
    expect(error).toBeInstanceOf(Error)
    expect(builders.opened).toEqual(['docker with login'])
    expect(builders.disposed).toBe(1)
  })

  test("'cache-from' with Buildah: a warning, and no image of it reaches the build", async () => {
    const { lines, error } = await runWith({
      docker: { name: 'buildah' },
      given: { builder: 'buildah', 'cache-from': 'r.io/acme/shop/frontend:main' },
    })
    expect(error).toBeUndefined()
    expect(lines).toContain(
      "warning: 'cache-from' is not used: Buildah takes a repository of its own layer cache there, not the images it names.",
    )
  })

  test('the legacy builder (no buildx plugin) cannot take a base from a mirror: refused before any build', async () => {
    // DOCKER_BUILDKIT=0 is refused by the check phase (check.test.ts); only the run finds buildx missing.
    const { docker, error } = await runWith({
      docker: { builder: { kind: 'legacy', reason: 'no-buildx' } },
      given: { 'registry-mirrors': 'docker.io=m.example/hub' },
      files: {
        ...PROJECT,
        '/p/docker/frontend.Dockerfile': `FROM node:20\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n`,
      },
    })
    expect((error as Error).message).toBe(
      "'registry-mirrors' serves base images of these Dockerfiles ('node:20', 'base'), which Docker takes from a mirror as named build contexts, a BuildKit feature; but the buildx plugin is not installed, so docker would build with the legacy builder, which would pull them from their own registries. Install buildx (package docker-buildx-plugin, or docker-buildx on Debian), or set 'builder: buildah'. Nothing was built.",
    )
    expect(docker.calls).toEqual(['builder'])
  })
})
