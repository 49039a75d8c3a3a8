import { describe, expect, test } from '@jest/globals'
import type { ImagePlan } from '../../../../src/core/build-images/plan/plan.js'
import { readStages } from '../../../../src/core/dockerfile/stages.js'
import {
  checkCopiedSize,
  checkSourcesPathDeclared,
  sourcesPathFromText,
  type BaseHistories,
  type SourcesPathFindings,
} from '../../../../src/core/build-images/sources-path.js'
import { fakeDocker, type FakeDockerScript } from '../../../helpers/docker-fake.js'
import { recordingTools } from '../../../helpers/recording.js'
import { memoryFiles } from '../../../helpers/memory-files.js'
import type { RegistryMirror } from '../../../../src/core/registry/mirrors.js'

const TEMPLATE =
  'FROM olympeio/frontend-base:latest\nCOPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html\n'

function plan(buildArgs: [string, string][] = []): ImagePlan {
  return {
    id: 'frontend',
    kind: 'frontend',
    reference: 'r.io/shop/frontend:main-1a2b3c4',
    references: ['r.io/shop/frontend:main-1a2b3c4'],
    dockerfile: 'docker/frontend.Dockerfile',
    sources: 'dist/web',
    command: {
      dockerfile: '/p/docker/frontend.Dockerfile',
      context: '/p',
      sourcesPath: 'dist/web',
      tags: ['r.io/shop/frontend:main-1a2b3c4'],
      buildArgs,
      labels: [],
      cacheFrom: [],
    },
  }
}

/**
 * Both halves, as a run makes them: the check phase judges the text (sourcesPathFromText); the
 * pre-flight asks the engine about the stages left open (checkSourcesPathDeclared).
 */
async function declared(
  dockerfile: string,
  script: FakeDockerScript = {},
  options: { allow?: boolean; buildArgs?: [string, string][]; mirrors?: RegistryMirror[] } = {},
): Promise<SourcesPathFindings & { calls: string[] }> {
  const recorded = recordingTools()
  const docker = fakeDocker(script)
  const allow = options.allow ?? false
  const named = {
    path: 'docker/frontend.Dockerfile',
    sources: 'dist/web',
    stages: readStages(dockerfile, options.buildArgs ?? []),
  }
  const text = sourcesPathFromText(named, allow)
  const findings = await checkSourcesPathDeclared(
    [plan(options.buildArgs)],
    new Map([['frontend', { ...named, askEngine: text.askEngine }]]),
    { allowUnreadable: allow, mirrors: options.mirrors ?? [] },
    {
      builder: docker,
      files: memoryFiles({}),
      logger: recorded.logger,
      redact: (text) => text.replaceAll('s3cret-pass', '***'),
    },
  )
  return {
    problems: [...text.problems, ...findings.problems],
    warnings: [...text.warnings, ...findings.warnings],
    bases: findings.bases,
    calls: docker.calls,
  }
}

const HAZARD =
  "The build would expand $SOURCES_PATH to nothing and copy the whole build context (.git, node_modules, .env files…) into the image, where it expects 'dist/web'."
const FIXES =
  "Fix it either way: add the line 'ARG SOURCES_PATH' after the FROM line, or build FROM a base image that declares it (Olympe's olympeio/* base images do, with ONBUILD ARG SOURCES_PATH)."

describe('checkSourcesPathDeclared', () => {
  test('declared in the Dockerfile: the base image is not even read', async () => {
    const found = await declared('FROM b\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n')
    expect(found).toMatchObject({ problems: [], warnings: [], calls: [] })
    expect(found.bases.get('frontend')).toBe('b')
  })

  test("declared by the base image's ONBUILD ARG: nothing said", async () => {
    const found = await declared(TEMPLATE, {
      onBuild: { 'olympeio/frontend-base:latest': ['ARG SOURCES_PATH'] },
    })
    expect(found).toMatchObject({ problems: [], warnings: [] })
    expect(found.calls).toEqual(['onbuild olympeio/frontend-base:latest'])
  })

  test('declared nowhere: refused, naming the Dockerfile, the base and both fixes', async () => {
    const found = await declared(TEMPLATE, { onBuild: { 'olympeio/frontend-base:latest': [] } })
    expect(found.problems).toEqual([
      `'docker/frontend.Dockerfile' uses $SOURCES_PATH but nothing declares it: it has no 'ARG SOURCES_PATH' line, and its base image 'olympeio/frontend-base:latest' has no 'ONBUILD ARG SOURCES_PATH'. ${HAZARD} ${FIXES}`,
    ])
  })

  test('declared nowhere is refused even with allow-undeclared-sources-path', async () => {
    const found = await declared(TEMPLATE, {}, { allow: true })
    expect(found.problems).toHaveLength(1)
    expect(found.warnings).toEqual([])
  })

  test('a base whose ONBUILD COPY uses it without declaring it is refused too', async () => {
    const found = await declared('FROM b\n', { onBuild: { b: ['COPY $SOURCES_PATH /app'] } })
    expect(found.problems[0]).toContain("its base image 'b' has no 'ONBUILD ARG SOURCES_PATH'")
  })

  test('neither the Dockerfile nor its base uses it: nothing to declare', async () => {
    const found = await declared('FROM b\nCOPY dist/web /app\n')
    expect(found).toMatchObject({ problems: [], warnings: [] })
  })

  test('a base image that cannot be pulled: refused with the same advice and the way out', async () => {
    const found = await declared(TEMPLATE, {
      onBuild: {
        'olympeio/frontend-base:latest': {
          pullFails: ['Error response from daemon: pull access denied for olympeio/frontend-base'],
        },
      },
    })
    expect(found.problems).toEqual([
      `'docker/frontend.Dockerfile' has no 'ARG SOURCES_PATH' line, and whether its base image 'olympeio/frontend-base:latest' declares it (ONBUILD ARG SOURCES_PATH) could not be read (docker pull exited with 1: Error response from daemon: pull access denied for olympeio/frontend-base). If nothing declares it, the build would expand $SOURCES_PATH to nothing and copy the whole build context (.git, node_modules, .env files…) into the image, where it expects 'dist/web'. ${FIXES} If you know that the base image declares it, set 'allow-undeclared-sources-path' to true.`,
    ])
  })

  test('the same with allow-undeclared-sources-path: a warning, and the build goes on', async () => {
    const found = await declared(
      TEMPLATE,
      { onBuild: { 'olympeio/frontend-base:latest': { pullFails: ['denied'] } } },
      { allow: true },
    )
    expect(found.problems).toEqual([])
    expect(found.warnings).toEqual([
      "'docker/frontend.Dockerfile' has no 'ARG SOURCES_PATH' line, and whether its base image 'olympeio/frontend-base:latest' declares it (ONBUILD ARG SOURCES_PATH) could not be read (docker pull exited with 1: denied). Building anyway, as 'allow-undeclared-sources-path' is true; the size check after the build still stops an image whose COPY took far more than 'dist/web'.",
    ])
  })

  test('what the pull said is redacted', async () => {
    const found = await declared(TEMPLATE, {
      onBuild: { 'olympeio/frontend-base:latest': { pullFails: ['login s3cret-pass refused'] } },
    })
    expect(found.problems[0]).toContain('login *** refused')
    expect(found.problems[0]).not.toContain('s3cret-pass')
  })

  test('FROM through a build argument without a value cannot be read', async () => {
    const found = await declared('ARG BASE\nFROM $BASE\nCOPY $SOURCES_PATH /app\n')
    expect(found.problems[0]).toContain(
      "and its line 'FROM $BASE' names the base image through a build argument without a value.",
    )
    expect(found.calls).toEqual([])
  })

  test('FROM through a build-arg input: that image is read', async () => {
    const found = await declared(
      'ARG BASE\nFROM $BASE\nCOPY $SOURCES_PATH /app\n',
      { onBuild: { 'r.io/web:1': ['ARG SOURCES_PATH'] } },
      { buildArgs: [['BASE', 'r.io/web:1']] },
    )
    expect(found).toMatchObject({ problems: [], calls: ['onbuild r.io/web:1'] })
  })

  test('a stage built FROM an earlier stage does not inherit the ARG', async () => {
    const found = await declared(
      'FROM b AS build\nARG SOURCES_PATH\nFROM build\nCOPY $SOURCES_PATH /app\n',
    )
    expect(found.problems[0]).toContain(
      "its stage 'FROM build' has no 'ARG SOURCES_PATH' line, and build arguments do not pass from 'FROM b AS build' to the stages built FROM it.",
    )
    expect(found.bases.get('frontend')).toBe('b')
  })
})

const SOURCES = { '/p/dist/web/main.js': 'x'.repeat(300_000), '/p/dist/web/index.html': '<html>' }

async function copied(
  history: FakeDockerScript['history'],
  base: string | null = 'base:1',
): Promise<{ problem: string | undefined; lines: string[] }> {
  const recorded = recordingTools()
  const problem = await checkCopiedSize(plan(), base ?? undefined, '/p', {
    builder: fakeDocker({ history }),
    files: memoryFiles(SOURCES),
    logger: recorded.logger,
    redact: (text) => text,
  })
  return { problem, lines: recorded.lines }
}

const BASE_LAYERS = [
  { createdBy: 'COPY nginx.conf /etc/nginx/ # buildkit', bytes: 90_000_000 },
  { createdBy: '', bytes: 1_984_285 },
]

/** The history the engine gives: the base's layers, and the built image's (`added` on top). */
const builtOn = (
  ...added: { createdBy: string; bytes: number }[]
): FakeDockerScript['history'] => ({
  'base:1': BASE_LAYERS,
  'r.io/shop/frontend:main-1a2b3c4': [...added, ...BASE_LAYERS],
})

describe('checkCopiedSize', () => {
  test('a COPY of about the sources passes', async () => {
    const { problem } = await copied(
      builtOn(
        {
          createdBy: 'COPY --chown=nginx:root dist/web /usr/share/nginx/html # buildkit',
          bytes: 300_006,
        },
        { createdBy: 'ARG SOURCES_PATH', bytes: 0 },
      ),
    )
    expect(problem).toBeUndefined()
  })

  test('a COPY far larger than the sources stops the push and says what was copied', async () => {
    const { problem } = await copied(
      builtOn({
        createdBy: 'COPY --chown=nginx:root  /usr/share/nginx/html # buildkit',
        bytes: 212_000_000,
      }),
    )
    expect(problem).toBe(
      "The frontend image was built but not pushed: its step 'COPY --chown=nginx:root  /usr/share/nginx/html' added 212.0 MB, while 'dist/web' holds 0.3 MB. It copied more than the build output, most likely the whole build context (.git, node_modules, .env files…). Check the COPY lines of 'docker/frontend.Dockerfile' (COPY $SOURCES_PATH, with SOURCES_PATH declared; not COPY .) and its .dockerignore.",
    )
  })

  test("the legacy builder's history is read the same way", async () => {
    const { problem } = await copied(
      builtOn({
        createdBy: '/bin/sh -c #(nop) COPY dir:08514f54 in /usr/share/nginx/html ',
        bytes: 5_000_000,
      }),
    )
    expect(problem).toContain("its step 'COPY dir:08514f54 in /usr/share/nginx/html' added 5.0 MB")
  })

  test("the base image's own large COPY layers are not counted", async () => {
    const { problem } = await copied(builtOn())
    expect(problem).toBeUndefined()
  })

  test("images on one base: the base's history is read once for the run", async () => {
    const builder = fakeDocker({ history: builtOn() })
    const baseHistories: BaseHistories = new Map()
    const ports = {
      builder,
      files: memoryFiles(SOURCES),
      logger: recordingTools().logger,
      redact: (text: string) => text,
    }
    const other = { ...plan(), id: 'backend', reference: 'r.io/shop/frontend:main-1a2b3c4' }
    await Promise.all([
      checkCopiedSize(plan(), 'base:1', '/p', ports, baseHistories),
      checkCopiedSize(other, 'base:1', '/p', ports, baseHistories),
    ])
    await checkCopiedSize(plan(), 'base:1', '/p', ports, baseHistories)
    expect(builder.calls.filter((call) => call === 'history base:1')).toEqual(['history base:1'])
  })

  test('a base whose history could not be read is read again for the next image', async () => {
    const tooLarge = { createdBy: 'COPY . /usr/share/nginx/html # buildkit', bytes: 9_000_000 }
    const fake = fakeDocker({ history: builtOn(tooLarge) })
    let failures = 1
    const builder = {
      ...fake,
      history: (reference: string) =>
        reference === 'base:1' && failures-- > 0
          ? Promise.reject(new Error('docker image history exited with 1'))
          : fake.history(reference),
    }
    const recorded = recordingTools()
    const ports = {
      builder,
      files: memoryFiles(SOURCES),
      logger: recorded.logger,
      redact: (text: string) => text,
    }
    const baseHistories: BaseHistories = new Map()
    expect(await checkCopiedSize(plan(), 'base:1', '/p', ports, baseHistories)).toBeUndefined()
    expect(recorded.lines).toEqual([
      "[frontend] size of what COPY added not compared: reading the images' history failed (docker image history exited with 1).",
    ])
    expect(await checkCopiedSize(plan(), 'base:1', '/p', ports, baseHistories)).toContain(
      "its step 'COPY . /usr/share/nginx/html' added 9.0 MB",
    )
  })

  test('an unknown base: not compared, and the log says so', async () => {
    const { problem, lines } = await copied({}, null)
    expect(problem).toBeUndefined()
    expect(lines).toEqual([
      '[frontend] size of what COPY added not compared: the base image is not known before the build.',
    ])
  })
})
