import { describe, expect, test } from '@jest/globals'
import { REGISTRY_LOGIN_HELP } from '../../../../src/platform/context.js'
import { BuildFailure, buildAndPush } from '../../../../src/core/build-images/build.js'
import { failureReport } from '../../../../src/core/build-images/report.js'
import { CONTEXT_NOTE } from '../../../../src/core/build-images/builders/docker.js'
import type { ImagePlan } from '../../../../src/core/build-images/plan/plan.js'
import type { Retag } from '../../../../src/core/build-images/retag.js'
import { BuilderCommandError } from '../../../../src/core/build-images/builders/image-builder.js'
import { ActionError } from '../../../../src/core/shared/errors.js'
import { fakeDocker, type FakeDockerScript } from '../../../helpers/docker-fake.js'
import { recordingTools } from '../../../helpers/recording.js'

function planFor(kind: ImagePlan['kind'], tags = ['main-1a2b3c4']): ImagePlan {
  const references = tags.map((tag) => `r.io/shop/${kind}:${tag}`)
  return {
    id: kind,
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

/** The platform's words for its registry login (CiContext.registryLoginHelp): GitLab's here. */
const HELP = REGISTRY_LOGIN_HELP.gitlab
const THREE = [planFor('frontend'), planFor('backend'), planFor('codeasdata')]
const redact = (text: string): string => text.replaceAll('s3cret', '***')

async function run(
  script: FakeDockerScript,
  options: {
    push?: boolean
    parallel?: number
    loggedIn?: boolean
    plans?: ImagePlan[]
    retag?: Retag
  } = {},
): Promise<{ docker: ReturnType<typeof fakeDocker>; error?: unknown; lines: string[] }> {
  const docker = fakeDocker(script)
  const { logger, lines } = recordingTools()
  try {
    await buildAndPush(
      options.plans ?? THREE,
      {
        push: options.push ?? true,
        loggedIn: options.loggedIn ?? true,
        loginHelp: HELP,
        parallel: options.parallel,
        ...(options.retag ? { retag: options.retag } : {}),
      },
      { builder: docker, logger, redact },
    )
    return { docker, lines }
  } catch (error) {
    return { docker, error, lines }
  }
}

// The end of `docker buildx build --progress=plain` output for a COPY whose source is missing
// (Docker 26.1.5, buildx 0.13.1), verbatim.
const BUILDKIT_FAILURE = [
  '#4 [1/2] FROM docker.io/olympeio/backend-base:stable',
  '#4 CACHED',
  '',
  '#5 [internal] load build context',
  '#5 transferring context: 2B done',
  '#5 DONE 0.0s',
  '',
  '#6 [2/2] COPY dist/nodee /home/node/app',
  '#6 ERROR: failed to calculate checksum of ref 79ac02b4-34fc-4161-adbb-dc99242a6a14::eqlfhw6obr015we5u65x9l9nr: "/dist/nodee": not found',
  '------',
  ' > [2/2] COPY dist/nodee /home/node/app:',
  '------',
  'backend.Dockerfile:3',
  '--------------------',
  '   1 |     FROM olympeio/backend-base:stable',
  '   2 |     ARG SOURCES_PATH',
  '   3 | >>> COPY dist/nodee /home/node/app',
  '   4 |     ',
  '--------------------',
  'ERROR: failed to solve: failed to compute cache key: failed to calculate checksum of ref 79ac02b4-34fc-4161-adbb-dc99242a6a14::eqlfhw6obr015we5u65x9l9nr: "/dist/nodee": not found',
]

/** The legacy builder's tail: its deprecation banner, a blank line, the failing step. */
const LEGACY_FAILURE = [
  'DEPRECATED: The legacy builder is deprecated and will be removed in a future release.',
  '            Install the buildx component to build images with BuildKit:',
  '            https://docs.docker.com/go/buildx/',
  '',
  'Step 3/3 : RUN exit 3',
]

/** The message of a backend build whose `command` failed with this output `tail`. */
async function failWith(tail: string[], command = 'docker buildx build'): Promise<string> {
  const docker = fakeDocker()
  docker.build = () => Promise.reject(new BuilderCommandError(command, 'exited with 1', tail))
  const { logger } = recordingTools()
  const error = await buildAndPush(
    [planFor('backend')],
    { push: true, loggedIn: true, loginHelp: HELP },
    { builder: docker, logger, redact },
  ).catch((caught: unknown) => caught)
  return (error as Error).message
}

describe('build and push', () => {
  test('the three builds run side by side, each pushed after its own build', async () => {
    const docker = fakeDocker({ buildMs: { frontend: 30, backend: 5, codeasdata: 15 } })
    const { logger } = recordingTools()
    const images = await buildAndPush(
      THREE,
      { push: true, loggedIn: true, loginHelp: HELP },
      { builder: docker, logger, redact },
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

  test('with the registry API: one push, then the other tags given the same digest', async () => {
    const asked: string[] = []
    const retag: Retag = (pushed, digest, reference) => {
      asked.push(`${pushed} ${digest} ${reference}`)
      return Promise.resolve(undefined)
    }
    const plans = [planFor('frontend', ['main-1', 'main']), planFor('backend', ['main-1', 'main'])]
    const { docker, lines, error } = await run({}, { plans, retag, parallel: 1 })
    expect(error).toBeUndefined()
    expect(docker.calls.filter((call) => call.startsWith('push'))).toEqual([
      'push r.io/shop/frontend:main-1',
      'push r.io/shop/backend:main-1',
    ])
    const digest = (kind: string): string =>
      /digest (sha256:\w+)$/.exec(
        lines.find((line) => line.startsWith(`[${kind}] pushed`)) ?? '',
      )?.[1] ?? ''
    expect(asked).toEqual([
      `r.io/shop/frontend:main-1 ${digest('frontend')} r.io/shop/frontend:main`,
      `r.io/shop/backend:main-1 ${digest('backend')} r.io/shop/backend:main`,
    ])
    expect(lines).toContain(
      `[frontend] tagged r.io/shop/frontend:main: the manifest pushed as r.io/shop/frontend:main-1 (${digest('frontend')})`,
    )
  })

  test('the registry API refuses a tag: it is pushed, and so is every later tag of the run', async () => {
    let asked = 0
    const retag: Retag = () => {
      asked += 1
      return Promise.resolve("the registry answered HTTP 401 (UNAUTHORIZED) with 's3cret'")
    }
    const plans = [planFor('frontend', ['main-1', 'main']), planFor('backend', ['main-1', 'main'])]
    const { docker, lines, error } = await run({}, { plans, retag, parallel: 1 })
    expect(error).toBeUndefined()
    expect(asked).toBe(1)
    expect(docker.calls.filter((call) => call.startsWith('push'))).toEqual([
      'push r.io/shop/frontend:main-1',
      'push r.io/shop/frontend:main',
      'push r.io/shop/backend:main-1',
      'push r.io/shop/backend:main',
    ])
    expect(lines).toContain(
      "[frontend] tagging r.io/shop/frontend:main through the registry API failed (the registry answered HTTP 401 (UNAUTHORIZED) with '***'): pushed instead, as are the next tags of this run",
    )
  })

  test('push false builds only', async () => {
    const { docker, error } = await run({}, { push: false })
    expect(error).toBeUndefined()
    expect(docker.calls.some((call) => call.startsWith('push'))).toBe(false)
  })

  test('after a failed build no new build starts and nothing more is pushed', async () => {
    const { docker, error } = await run({ failBuild: ['frontend'] }, { parallel: 1 })
    expect(error).toBeInstanceOf(ActionError)
    expect(docker.calls).toEqual(['builder', 'build frontend'])
  })

  test('a build in flight finishes, but is not pushed after another failed', async () => {
    const { docker, error, lines } = await run(
      { failBuild: ['backend'], buildMs: { frontend: 40, backend: 5 } },
      { plans: [planFor('frontend'), planFor('backend')] },
    )
    expect(error).toBeInstanceOf(ActionError)
    expect(docker.calls).toEqual(['builder', 'build frontend', 'build backend', 'built frontend'])
    expect(lines).toContain('[frontend] not pushed: another image failed')
  })

  test('a failure holds what each other image became: pushed, built only, or not built', async () => {
    const named = (name: string): ImagePlan => ({
      ...planFor('backend'),
      id: `backend:${name}`,
      name,
      reference: `r.io/shop/backend-${name}:main-1a2b3c4`,
      references: [`r.io/shop/backend-${name}:main-1a2b3c4`],
      command: { ...planFor('backend').command, tags: [`r.io/shop/backend-${name}:main-1a2b3c4`] },
      sources: `dist/${name}`,
    })
    const plans = ['api', 'worker', 'jobs', 'mail'].map(named)
    const { error, lines } = await run(
      {
        failBuild: ['backend-worker'],
        buildMs: { 'backend-api': 1, 'backend-worker': 60, 'backend-jobs': 120, 'backend-mail': 1 },
      },
      { plans, parallel: 3 },
    )
    expect(error).toBeInstanceOf(BuildFailure)
    const failure = error as BuildFailure
    expect(failure.failed.map(({ plan }) => plan.id)).toEqual(['backend:worker'])
    expect(failure.message.split('\n')[0]).toBe(
      "Building the backend 'worker' image failed: docker build exited with 1. Last lines of its output:",
    )
    // api pushed; mail started after it and pushed too; jobs in flight at the failure.
    expect(failure.built.map((image) => image.id)).toEqual(['backend:api', 'backend:mail'])
    expect([...failure.unpushed]).toEqual(['backend:jobs'])
    expect(lines).toContain('[backend:jobs] not pushed: another image failed')
    expect(
      failureReport(failure, [...plans, { id: 'codeasdata' }], failure.built, true)
        .split('\n')
        .slice(-5),
    ).toEqual([
      'The other images:',
      `- backend:api: built and pushed (${failure.built[0]?.digest ?? ''})`,
      '- backend:jobs: built, not pushed (another image had failed)',
      `- backend:mail: built and pushed (${failure.built[1]?.digest ?? ''})`,
      '- codeasdata: not built (no build starts after a failure)',
    ])
  })

  test('the legacy builder banner and blank lines are left out of the tail', async () => {
    const message = await failWith(LEGACY_FAILURE, 'docker build')
    expect(message).toContain('Last lines of its output:\n  Step 3/3 : RUN exit 3\nFix')
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
    [true, `The registry refused the push: the login may not write to this image name. ${HELP}.`],
    [
      false,
      `The registry refused the push, and the step was given no login ('registry-username' and 'registry-password'; or a docker login in an earlier step). ${HELP}.`,
    ],
  ])(
    "a refused push (logged in: %s) says what to check, in the platform's words",
    async (loggedIn, advice) => {
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
    },
  )
})

const CONTAINER_DRIVER = {
  kind: 'buildkit',
  name: 'builder-3f1c',
  driver: 'docker-container',
} as const

describe('the builder decides where images go', () => {
  test('the engine’s builder (docker driver): build, then docker push', async () => {
    const { docker, lines } = await run({}, { plans: [planFor('frontend')] })
    expect(docker.calls).toEqual([
      'builder',
      'build frontend',
      'built frontend',
      'push r.io/shop/frontend:main-1a2b3c4',
    ])
    expect(lines).toContain(
      "Builder: BuildKit, builder 'default' (docker driver): the images go into the engine, then docker push sends them.",
    )
    expect(lines).toContain(CONTEXT_NOTE)
  })

  test('a docker-container builder pushes in the build, every tag, with the digest it reports', async () => {
    const docker = fakeDocker({ builder: CONTAINER_DRIVER })
    const { logger, lines } = recordingTools()
    const images = await buildAndPush(
      [planFor('frontend', ['main-1', 'latest'])],
      { push: true, loggedIn: true, loginHelp: HELP },
      { builder: docker, logger, redact },
    )
    expect(docker.calls).toEqual(['builder', 'build frontend --push', 'built frontend'])
    expect(images[0]?.digest).toMatch(/^sha256:b+8$/)
    // The image is in the registry, not in the engine: no size to read.
    expect(images[0]?.size).toBeUndefined()
    expect(lines.join('\n')).toContain("builder 'builder-3f1c' (docker-container driver)")
    expect(lines).toContain(`[frontend] pushed, digest ${images[0]?.digest ?? ''}`)
  })

  test('a docker-container builder without push loads the image into the engine', async () => {
    const { docker, error } = await run(
      { builder: CONTAINER_DRIVER },
      { push: false, plans: [planFor('backend')] },
    )
    expect(error).toBeUndefined()
    expect(docker.calls).toEqual(['builder', 'build backend --load', 'built backend'])
  })

  test('no buildx: the legacy builder, with a warning that says how to get BuildKit', async () => {
    const { docker, lines } = await run(
      { builder: { kind: 'legacy', reason: 'no-buildx' } },
      { plans: [planFor('backend')] },
    )
    expect(docker.calls).toContain('push r.io/shop/backend:main-1a2b3c4')
    expect(lines).toContain(
      'warning: Builder: the legacy builder, because the buildx plugin is not installed (Docker deprecated the legacy builder in version 23). Install buildx (package docker-buildx-plugin, or docker-buildx on Debian) to build with BuildKit.',
    )
  })

  test('no buildx, and build secrets: refused before any build, as the legacy builder cannot mount them', async () => {
    const plan = planFor('backend')
    const withSecret = {
      ...plan,
      command: { ...plan.command, secrets: [{ id: 'NPM', value: 'v' }] },
    }
    const { docker, error } = await run(
      { builder: { kind: 'legacy', reason: 'no-buildx' } },
      { plans: [withSecret] },
    )
    expect(docker.calls).toEqual(['builder'])
    expect((error as Error).message).toBe(
      "'build-secrets' needs BuildKit, but the buildx plugin is not installed, so docker would build with the legacy builder, which cannot mount secrets (RUN --mount=type=secret). Install buildx (package docker-buildx-plugin, or docker-buildx on Debian), or leave 'build-secrets' empty. Nothing was built.",
    )
  })

  test('a builder buildx cannot find fails before any build, saying how to pick one', async () => {
    const { docker, error } = await run({ builder: ['ERROR: no builder "gone" found'] })
    expect((error as Error).message).toBe(
      "Finding the current buildx builder failed: docker buildx inspect exited with 1 (ERROR: no builder \"gone\" found). Select a working builder with 'docker buildx use default' (or set BUILDX_BUILDER to one that 'docker buildx ls' lists), then run again. Nothing was built.",
    )
    expect(docker.calls).toEqual(['builder'])
  })
})

describe('BuildKit failures', () => {
  test('the tail starts at the failing step, and a missing COPY source points at .dockerignore', async () => {
    expect(await failWith(BUILDKIT_FAILURE)).toBe(
      [
        'Building the backend image failed: docker buildx build exited with 1. Last lines of its output:',
        ...BUILDKIT_FAILURE.slice(8)
          .filter((line) => line !== '')
          .map((line) => `  ${line}`),
        "'dist/nodee' is not in the build context. BuildKit sends only the files the Dockerfile uses, minus those .dockerignore (or 'docker/backend.Dockerfile.dockerignore') leaves out: check the path and those files; no other image was built after this failure.",
      ].join('\n'),
    )
  })

  test.each([
    [
      'a builder that cannot boot',
      [
        '#1 [internal] booting buildkit',
        '#1 pulling image moby/buildkit:buildx-stable-1 0.0s done',
        '#1 ERROR: Error response from daemon: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host',
      ],
      "The current buildx builder could not start BuildKit: let the runner pull the builder's BuildKit image (moby/buildkit unless set otherwise), or select the engine's own builder with 'docker buildx use default'",
    ],
    [
      'a push refused inside the build',
      [
        '#9 pushing layers',
        '#9 ERROR: failed to push r.io/shop/backend:main-1a2b3c4: unexpected status: 401 Unauthorized',
      ],
      `The registry refused the push: the login may not write to this image name. ${HELP}.`,
    ],
  ])('%s gets its own advice', async (_name, tail, advice) => {
    expect(await failWith(tail)).toContain(advice)
  })
})
