import { describe, expect, test } from '@jest/globals'
import { buildAndPush } from '../../../../src/core/build-images/build.js'
import type { ImagePlan } from '../../../../src/core/build-images/plan.js'
import { DockerCommandError } from '../../../../src/core/build-images/docker.js'
import { ActionError } from '../../../../src/core/shared/errors.js'
import { fakeDocker, recordingTools, type FakeDockerScript } from '../../../helpers/docker-fake.js'

function planFor(kind: ImagePlan['kind'], tags = ['main-1a2b3c4']): ImagePlan {
  const references = tags.map((tag) => `r.io/shop/${kind}:${tag}`)
  return {
    kind,
    reference: references[0] ?? '',
    references,
    dockerfile: `docker/${kind}.Dockerfile`,
    sources: `dist/${kind}`,
    command: {
      dockerfile: `/p/docker/${kind}.Dockerfile`,
      context: '/p',
      sourcesPath: `dist/${kind}`,
      tags: references,
      buildArgs: [],
      labels: [],
      cacheFrom: [],
    },
  }
}

const THREE = [planFor('frontend'), planFor('backend'), planFor('codeasdata')]
const redact = (text: string): string => text.replaceAll('s3cret', '***')

async function run(
  script: FakeDockerScript,
  options: { push?: boolean; parallel?: number; loggedIn?: boolean; plans?: ImagePlan[] } = {},
): Promise<{ docker: ReturnType<typeof fakeDocker>; error?: unknown; lines: string[] }> {
  const docker = fakeDocker(script)
  const { logger, lines } = recordingTools()
  try {
    await buildAndPush(
      options.plans ?? THREE,
      {
        push: options.push ?? true,
        loggedIn: options.loggedIn ?? true,
        parallel: options.parallel,
      },
      { docker, logger, redact },
    )
    return { docker, lines }
  } catch (error) {
    return { docker, error, lines }
  }
}

describe('build and push', () => {
  test('the three builds run side by side, each pushed after its own build', async () => {
    const docker = fakeDocker({ buildMs: { frontend: 30, backend: 5, codeasdata: 15 } })
    const { logger } = recordingTools()
    const images = await buildAndPush(
      THREE,
      { push: true, loggedIn: true },
      { docker, logger, redact },
    )
    expect(docker.maxConcurrentBuilds).toBe(3)
    expect(images.map((image) => image.kind)).toEqual(['frontend', 'backend', 'codeasdata'])
    expect(images.every((image) => image.digest?.startsWith('sha256:'))).toBe(true)
    expect(images[0]?.size).toBe(1_984_513)
    // The backend, quickest, is pushed before the frontend finishes building.
    const calls = docker.calls
    expect(calls.indexOf('push r.io/shop/backend:main-1a2b3c4')).toBeLessThan(
      calls.indexOf('built frontend'),
    )
  })

  test('every tag is pushed; the outputs keep the first digest', async () => {
    const { docker } = await run({}, { plans: [planFor('frontend', ['main-1', 'latest'])] })
    expect(docker.calls.filter((call) => call.startsWith('push'))).toEqual([
      'push r.io/shop/frontend:main-1',
      'push r.io/shop/frontend:latest',
    ])
  })

  test('push false builds only', async () => {
    const { docker, error } = await run({}, { push: false })
    expect(error).toBeUndefined()
    expect(docker.calls.some((call) => call.startsWith('push'))).toBe(false)
  })

  test('after a failed build no new build starts and nothing more is pushed', async () => {
    const { docker, error } = await run({ failBuild: ['frontend'] }, { parallel: 1 })
    expect(error).toBeInstanceOf(ActionError)
    expect(docker.calls).toEqual(['build frontend'])
  })

  test('a build in flight finishes, but is not pushed after another failed', async () => {
    const { docker, error, lines } = await run(
      { failBuild: ['backend'], buildMs: { frontend: 40, backend: 5 } },
      { plans: [planFor('frontend'), planFor('backend')] },
    )
    expect(error).toBeInstanceOf(ActionError)
    expect(docker.calls).toEqual(['build frontend', 'build backend', 'built frontend'])
    expect(lines).toContain('[frontend] not pushed: another image failed')
  })

  test('the legacy builder banner and blank lines are left out of the tail', async () => {
    const docker = fakeDocker()
    docker.build = () =>
      Promise.reject(
        new DockerCommandError('docker build', 'exited with 1', [
          'DEPRECATED: The legacy builder is deprecated and will be removed in a future release.',
          '            Install the buildx component to build images with BuildKit:',
          '            https://docs.docker.com/go/buildx/',
          '',
          'Step 3/3 : RUN exit 3',
        ]),
      )
    const { logger } = recordingTools()
    const error = await buildAndPush(
      [planFor('backend')],
      { push: true, loggedIn: true },
      { docker, logger, redact },
    ).catch((caught: unknown) => caught)
    expect((error as Error).message).toContain(
      'Last lines of its output:\n  Step 3/3 : RUN exit 3\nFix',
    )
  })

  test('the failure names the image, the command, its output tail and the fix', async () => {
    const { error } = await run({ failBuild: ['backend'] })
    expect((error as Error).message).toBe(
      [
        'Building the backend image failed: docker build exited with 1. Last lines of its output:',
        '  COPY failed: file not found in build context (backend)',
        "Fix 'docker/backend.Dockerfile' or the sources in 'dist/backend' and run again; no other image was built after this failure.",
      ].join('\n'),
    )
  })

  test.each([
    [true, "check that 'registry-username' and 'registry-password' may write"],
    [false, "set 'registry-username' and 'registry-password', or log in"],
  ])('a refused push (logged in: %s) says what to check', async (loggedIn, advice) => {
    const reference = 'r.io/shop/frontend:main-1a2b3c4'
    const { error } = await run(
      { failPush: { [reference]: ['unauthorized: authentication required, token s3cret'] } },
      { loggedIn, plans: [planFor('frontend')] },
    )
    const message = (error as Error).message
    expect(message).toContain(`Pushing the frontend image '${reference}' failed`)
    expect(message).toContain(advice)
    expect(message).toContain('token ***')
    expect(message).not.toContain('s3cret')
  })
})
