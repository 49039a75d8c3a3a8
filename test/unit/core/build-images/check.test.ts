import { describe, expect, test } from '@jest/globals'
import { checkBuildImages } from '../../../../src/core/build-images/check.js'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../../../../src/core/build-images/definition.js'
import { runBuildImages } from '../../../../src/core/build-images/run.js'
import { withDefaults } from '../../../../src/core/definition.js'
import { ActionError, InputError } from '../../../../src/core/shared/errors.js'
import type { Files } from '../../../../src/core/shared/ports.js'
import { fakeDocker, type FakeDocker } from '../../../helpers/docker-fake.js'
import { countingFiles, memoryFiles } from '../../../helpers/memory-files.js'
import { buildImagesPorts, PUSH_TO_MAIN } from '../../../helpers/unit-fakes.js'

const DOCKERFILE = 'FROM base\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n'
const DOCKERFILES: Record<string, string> = {
  '/p/docker/frontend.Dockerfile': DOCKERFILE,
  '/p/docker/backend.Dockerfile': DOCKERFILE,
}
const BUILT: Record<string, string> = {
  '/p/dist/web/index.html': '<html>',
  '/p/dist/node/main.js': '',
}

const context = PUSH_TO_MAIN
const dockerfile = (path: string): boolean => path.endsWith('.Dockerfile')

const raw = (
  given: Partial<Record<BuildImagesInputName, string>> = {},
): Record<BuildImagesInputName, string> =>
  withDefaults(buildImagesDefinition, { registry: 'r.io', ...given })

function ports(files: Files): ReturnType<typeof buildImagesPorts> & { docker: FakeDocker } {
  const docker = fakeDocker({ server: '26.1.5' })
  return { ...buildImagesPorts(docker, files), docker }
}

describe("build-images' check phase", () => {
  test('reads each Dockerfile once, renders the tags; the run builds from that and reads no Dockerfile', async () => {
    const files = countingFiles({ ...DOCKERFILES, ...BUILT }, dockerfile)
    const tools = ports(files)
    const checked = await checkBuildImages(raw(), context, tools)
    expect('tags' in checked && checked.tags).toEqual(['main-1a2b3c4'])
    expect(files.reads.sort()).toEqual([
      'hash /p/docker/backend.Dockerfile',
      'hash /p/docker/frontend.Dockerfile',
      'text /p/docker/backend.Dockerfile',
      'text /p/docker/frontend.Dockerfile',
    ])
    expect(tools.docker.calls).toEqual([])
    files.closed = true
    const built = await runBuildImages(checked, context, tools)
    expect(built.map((image) => image.reference)).toEqual([
      'r.io/acme/shop/frontend:main-1a2b3c4',
      'r.io/acme/shop/backend:main-1a2b3c4',
    ])
    expect(files.reads).toHaveLength(4)
  })

  test('no build output is needed: the sources folders are the run pre-flight', async () => {
    const checked = await checkBuildImages(raw(), context, ports(memoryFiles(DOCKERFILES)))
    expect('dockerfiles' in checked && [...checked.dockerfiles.keys()]).toEqual([
      'frontend',
      'backend',
    ])
  })

  test('a skipped branch: nothing read, nothing refused', async () => {
    const files = countingFiles({}, dockerfile)
    const checked = await checkBuildImages(
      raw({ 'tag-template': 'build-{run-id}' }),
      { ...context, branch: 'feature/x' },
      ports(files),
    )
    expect(checked).toMatchObject({ skipped: expect.stringContaining("branch 'feature/x'") })
    expect(files.reads).toEqual([])
  })

  test('a tag this run cannot fill is refused here, before any Dockerfile is read', async () => {
    const files = countingFiles(DOCKERFILES, dockerfile)
    const error = await checkBuildImages(
      raw({ 'tag-template': 'build-{run-id}' }),
      context,
      ports(files),
    ).catch((reason: unknown) => reason)
    expect((error as InputError).input).toBe('tag-template')
    expect(files.reads).toEqual([])
  })

  test('every Dockerfile problem at once: a missing one names docker-folder', async () => {
    const error = await checkBuildImages(
      raw(),
      context,
      ports(
        memoryFiles({
          '/p/docker/backend.Dockerfile':
            'FROM b AS build\nARG SOURCES_PATH\nFROM build\nCOPY $SOURCES_PATH /app\n',
        }),
      ),
    ).catch((reason: unknown) => reason)
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).input).toBe('docker-folder')
    const lines = (error as Error).message.split('\n')
    expect(lines[0]).toBe('The Dockerfiles cannot be built as they are, so no image was built:')
    expect(lines.slice(1).map((line) => line.split(' ').slice(0, 6).join(' '))).toEqual([
      "- The frontend image definition 'docker/frontend.Dockerfile'",
      "- 'docker/backend.Dockerfile' uses $SOURCES_PATH but nothing",
    ])
  })

  test('a Dockerfile problem alone is the step failing, not an input', async () => {
    const error = await checkBuildImages(
      raw({ images: 'frontend' }),
      context,
      ports(
        memoryFiles({
          '/p/docker/frontend.Dockerfile': 'ARG BASE\nFROM $BASE\nCOPY $SOURCES_PATH /app\n',
        }),
      ),
    ).catch((reason: unknown) => reason)
    expect(error).toBeInstanceOf(ActionError)
    expect((error as Error).message).toContain(
      'names the base image through a build argument without a value',
    )
  })

  describe("DOCKER_BUILDKIT false (docker's legacy builder) and 'registry-mirrors' serving a base", () => {
    const HUB =
      'FROM olympeio/frontend-base:latest\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /usr/share/nginx/html\n'
    const REFUSAL =
      "'registry-mirrors' serves base images of these Dockerfiles ('olympeio/frontend-base:latest'), which Docker takes from a mirror as named build contexts, a BuildKit feature; but DOCKER_BUILDKIT is false, so docker would build with the legacy builder, which would pull them from their own registries. Unset DOCKER_BUILDKIT, or set 'builder: buildah'."
    const legacy = { buildkitDisabled: true }

    /** The check of a frontend built from `text`, with `given` inputs and the facts given. */
    const check = (
      text: string,
      given: Partial<Record<BuildImagesInputName, string>> = {},
      facts: { buildkitDisabled?: boolean } = legacy,
    ): Promise<unknown> =>
      checkBuildImages(
        raw({ images: 'frontend', 'registry-mirrors': 'docker.io=m.example/hub', ...given }),
        context,
        ports(memoryFiles({ '/p/docker/frontend.Dockerfile': text })),
        facts,
      ).catch((reason: unknown) => reason)

    test.each<[string, string, Partial<Record<BuildImagesInputName, string>>]>([
      ['a FROM line', HUB, {}],
      ["'builder: docker'", HUB, { builder: 'docker' }],
      [
        'a base named through a build argument the run gives (build-args)',
        'ARG BASE\nFROM $BASE\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n',
        { 'build-args': 'BASE=olympeio/frontend-base:latest' },
      ],
      [
        'a COPY --from an image',
        'FROM scratch\nARG SOURCES_PATH\nCOPY --from=olympeio/frontend-base:latest /etc /etc\nCOPY $SOURCES_PATH /app\n',
        {},
      ],
    ])('refused in the check phase, as the run refuses it: %s', async (_, text, given) => {
      const error = await check(text, given)
      expect(error).toBeInstanceOf(ActionError)
      expect((error as Error).message).toBe(
        `The Dockerfiles cannot be built as they are, so no image was built:\n- ${REFUSAL}`,
      )
    })

    test.each<[string, string, Partial<Record<BuildImagesInputName, string>>, object]>([
      ['Buildah, which reads its registries configuration', HUB, { builder: 'buildah' }, legacy],
      ['BuildKit on', HUB, {}, {}],
      [
        'no base the mirror serves',
        'FROM r.io/frontend-base:latest\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n',
        {},
        legacy,
      ],
    ])('not refused: %s', async (_, text, given, facts) => {
      const checked = await check(text, given, facts)
      expect(checked).toMatchObject({ tags: ['main-1a2b3c4'] })
    })

    test('the bases the check read, with their mirrors, are what the build is given', async () => {
      const tools = ports(memoryFiles({ '/p/docker/frontend.Dockerfile': HUB, ...BUILT }))
      const given = raw({ images: 'frontend', 'registry-mirrors': 'docker.io=m.example/hub' })
      const checked = await checkBuildImages(given, context, tools)
      expect('dockerfiles' in checked && checked.dockerfiles.get('frontend')?.bases).toEqual([
        {
          reference: 'olympeio/frontend-base:latest',
          mirrored: 'm.example/hub/olympeio/frontend-base:latest',
        },
      ])
      await runBuildImages(checked, context, tools)
      expect(tools.docker.builds.map((build) => build.bases)).toEqual([
        [
          {
            reference: 'olympeio/frontend-base:latest',
            mirrored: 'm.example/hub/olympeio/frontend-base:latest',
          },
        ],
      ])
    })
  })

  describe('backends: each checked and named on its own', () => {
    const BACKENDS = JSON.stringify([
      { name: 'api', sources: 'dist/api' },
      { name: 'worker', sources: 'dist/worker' },
      { name: 'jobs', sources: 'dist/jobs', dockerfile: 'docker/jobs.Dockerfile' },
    ])
    const withJobs = { ...DOCKERFILES, '/p/docker/jobs.Dockerfile': DOCKERFILE }
    const check = (
      files: Files,
      given: Partial<Record<BuildImagesInputName, string>> = {},
    ): Promise<unknown> =>
      checkBuildImages(raw({ backends: BACKENDS, ...given }), context, ports(files)).catch(
        (reason: unknown) => reason,
      )

    test('each backend has its Dockerfile, read once however many backends share it', async () => {
      const files = countingFiles(withJobs, dockerfile)
      const checked = await check(files)
      expect('dockerfiles' in (checked as object)).toBe(true)
      const dockerfiles = (
        checked as { dockerfiles: Map<string, { path: string; sources: string }> }
      ).dockerfiles
      expect([...dockerfiles].map(([id, read]) => [id, read.path, read.sources])).toEqual([
        ['frontend', 'docker/frontend.Dockerfile', 'dist/web'],
        ['backend:api', 'docker/backend.Dockerfile', 'dist/api'],
        ['backend:worker', 'docker/backend.Dockerfile', 'dist/worker'],
        ['backend:jobs', 'docker/jobs.Dockerfile', 'dist/jobs'],
      ])
      expect(files.reads.sort()).toEqual([
        'hash /p/docker/backend.Dockerfile',
        'hash /p/docker/frontend.Dockerfile',
        'hash /p/docker/jobs.Dockerfile',
        'text /p/docker/backend.Dockerfile',
        'text /p/docker/frontend.Dockerfile',
        'text /p/docker/jobs.Dockerfile',
      ])
    })

    test("a backend's own Dockerfile missing: refused naming the backend and 'backends'", async () => {
      const error = await check(memoryFiles(DOCKERFILES))
      expect(error).toBeInstanceOf(InputError)
      expect((error as InputError).input).toBe('backends')
      expect((error as Error).message).toBe(
        "The Dockerfiles cannot be built as they are, so no image was built:\n- The backend 'jobs' image definition 'docker/jobs.Dockerfile' does not exist (looked for '/p/docker/jobs.Dockerfile'). Expected the Dockerfile that 'dockerfile' names for backend 'jobs' in 'backends': add it, or correct 'dockerfile'.",
      )
    })

    test('the shared backend.Dockerfile missing: one problem per backend, of docker-folder', async () => {
      const files: Record<string, string> = { ...withJobs }
      delete files['/p/docker/backend.Dockerfile']
      const error = await check(memoryFiles(files), { images: 'backend:api,backend:worker' })
      expect((error as InputError).input).toBe('docker-folder')
      expect((error as Error).message.split('\n').slice(1)).toEqual(
        ['api', 'worker'].map(
          (name) =>
            `- The backend '${name}' image definition 'docker/backend.Dockerfile' does not exist (looked for '/p/docker/backend.Dockerfile'). Expected 'backend.Dockerfile' in 'docker-folder': add it, or set 'docker-folder' to the folder that holds it (or give backend '${name}' a 'dockerfile' of its own in 'backends').`,
        ),
      )
    })

    test('a Dockerfile that resolves outside the project (a committed link): refused, not read', async () => {
      const inner = countingFiles(withJobs, dockerfile)
      const files: Files = {
        ...inner,
        realpath: (path) =>
          Promise.resolve(
            path === '/p/docker/jobs.Dockerfile' ? '/etc/runner/jobs.Dockerfile' : path,
          ),
      }
      const error = await check(files)
      expect((error as InputError).input).toBe('backends')
      expect((error as Error).message).toBe(
        "The Dockerfiles cannot be built as they are, so no image was built:\n- The backend 'jobs' image definition 'docker/jobs.Dockerfile' resolves to '/etc/runner/jobs.Dockerfile', outside the project '/p'; expected a Dockerfile inside it (a symbolic link out of the project is not followed).",
      )
      expect(inner.reads.filter((read) => read.includes('jobs'))).toEqual([])
    })

    test("images: backend:<name> reads that backend's Dockerfile alone", async () => {
      const files = countingFiles(withJobs, dockerfile)
      await check(files, { images: 'backend:jobs' })
      expect(files.reads.sort()).toEqual([
        'hash /p/docker/jobs.Dockerfile',
        'text /p/docker/jobs.Dockerfile',
      ])
    })
  })
})
