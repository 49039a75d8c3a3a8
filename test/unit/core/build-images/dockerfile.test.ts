import { describe, expect, test } from '@jest/globals'
import {
  readBuildInputs,
  readStages,
  triggersOf,
  type Stage,
} from '../../../../src/core/build-images/dockerfile.js'

const only = (dockerfile: string, args: [string, string][] = []): Stage | undefined =>
  readStages(dockerfile, args)[0]

describe('readStages: ARG SOURCES_PATH in a stage', () => {
  test.each([
    ['ARG SOURCES_PATH', true],
    ['  arg SOURCES_PATH=dist/web', true],
    ['ARG A=1 SOURCES_PATH', true],
    ['ARG SOURCES_PATH_2', false],
    ['# ARG SOURCES_PATH', false],
    ['ENV SOURCES_PATH=dist', false],
    ['COPY $SOURCES_PATH /x', false],
    ['ONBUILD ARG SOURCES_PATH', false],
  ])('%j declares it: %s', (line, expected) => {
    expect(only(`FROM x\n${line}\n`)?.declaresSourcesPath).toBe(expected)
  })

  test('an ARG before the first FROM is global: it declares nothing in a stage', () => {
    expect(only('ARG SOURCES_PATH\nFROM x\nCOPY $SOURCES_PATH /app\n')).toMatchObject({
      declaresSourcesPath: false,
      usesSourcesPath: true,
    })
  })
})

describe('readStages: uses of $SOURCES_PATH', () => {
  test.each([
    ['COPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html', true],
    ['COPY ${SOURCES_PATH} /app', true],
    ['COPY ${SOURCES_PATH:-dist} /app', true],
    ['COPY $SOURCES_PATHS /app', false],
    ['COPY dist/web /app', false],
    ['# COPY $SOURCES_PATH /app', false],
  ])('%j uses it: %s', (line, expected) => {
    expect(only(`FROM x\n${line}\n`)?.usesSourcesPath).toBe(expected)
  })

  test('a continued line is one instruction', () => {
    expect(only('FROM x\nCOPY \\\n  $SOURCES_PATH \\\n  /app\n')?.usesSourcesPath).toBe(true)
  })
})

describe('readStages: FROM lines', () => {
  test('the image, without --platform or AS', () => {
    expect(
      only('FROM --platform=linux/amd64 olympeio/frontend-base:latest AS web\n'),
    ).toMatchObject({
      base: 'olympeio/frontend-base:latest',
      parentStage: undefined,
    })
  })

  test('build arguments in the image name: the build-arg given, else the ARG default', () => {
    const dockerfile = 'ARG BASE=olympeio/frontend-base\nARG TAG\nFROM ${BASE}:$TAG\n'
    expect(only(dockerfile, [['TAG', 'stable']])?.base).toBe('olympeio/frontend-base:stable')
    expect(
      only(dockerfile, [
        ['BASE', 'r.io/base'],
        ['TAG', '1'],
      ])?.base,
    ).toBe('r.io/base:1')
  })

  test('a build argument without a value leaves the base unknown', () => {
    expect(only('ARG BASE\nFROM $BASE\n')).toMatchObject({ base: undefined, from: 'FROM $BASE' })
  })

  test('a FROM that names an earlier stage points at it, in any case', () => {
    const stages = readStages('FROM node:24 AS Build\nRUN make\nFROM build\nCOPY x /y\n', [])
    expect(stages).toHaveLength(2)
    expect(stages[1]).toMatchObject({ base: undefined, parentStage: 0 })
  })
})

describe('triggersOf: ONBUILD triggers of a base image', () => {
  test.each([
    [[], { declares: false, uses: false }],
    [['ARG SOURCES_PATH'], { declares: true, uses: false }],
    [['ARG SOURCES_PATH', 'COPY $SOURCES_PATH /app'], { declares: true, uses: true }],
    [['COPY $SOURCES_PATH /app'], { declares: false, uses: true }],
  ])('%j', (triggers, expected) => {
    expect(triggersOf(triggers)).toEqual(expected)
  })
})

describe('readBuildInputs: what a build reads besides its Dockerfile', () => {
  const args: [string, string][] = [['SOURCES_PATH', 'dist/web']]

  test("the template's frontend: its base and $SOURCES_PATH", () => {
    expect(
      readBuildInputs(
        'FROM olympeio/frontend-base:stable\nARG SOURCES_PATH\nCOPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html\n',
        args,
      ),
    ).toEqual({
      images: ['olympeio/frontend-base:stable'],
      sources: ['dist/web'],
      platformImages: [],
    })
  })

  test("SOURCES_PATH declared by the base's ONBUILD ARG, as Olympe's base images do", () => {
    const text = 'FROM olympeio/backend-base:stable\nCOPY $SOURCES_PATH /app\n'
    expect(readBuildInputs(text, args).unknowable).toBe(
      "COPY source '$SOURCES_PATH' uses a variable whose value is not known before the build",
    )
    expect(
      readBuildInputs(text, args, () => ['ARG SOURCES_PATH', 'COPY package.json /app/']),
    ).toEqual({
      images: ['olympeio/backend-base:stable'],
      sources: ['package.json', 'dist/web'],
      platformImages: [],
    })
  })

  test('stages, COPY --from of a stage and of an image, RUN mounts, the syntax frontend', () => {
    const text = [
      '# syntax=docker/dockerfile:1',
      'ARG NODE=node:20',
      'FROM $NODE AS build',
      'ARG SOURCES_PATH',
      'RUN --mount=type=bind,source=package.json,target=/p.json --mount=type=cache,target=/c npm ci',
      'RUN --mount=from=tools:1,target=/t ls',
      'COPY ["dist/a b", "/x"]',
      'FROM scratch',
      'COPY --from=build /app /app',
      'COPY --from=0 /app /app2',
      'COPY --from=busybox:1.36 /bin/busybox /bin/',
      'COPY <<EOF /etc/motd',
      'COPY not-a-source /x',
      'EOF',
      'ONBUILD COPY onbuild.txt /',
    ].join('\n')
    expect(readBuildInputs(text, [...args, ['NODE', 'node:22']])).toEqual({
      images: ['docker/dockerfile:1', 'node:22', 'tools:1', 'busybox:1.36'],
      sources: ['package.json', 'dist/a b', 'onbuild.txt'],
      platformImages: [],
    })
  })

  test('a stage built for a platform of its own: its base, with that platform as written', () => {
    const text = [
      'FROM --platform=$BUILDPLATFORM tools:1 AS build',
      'RUN make',
      'FROM tools:1',
      'COPY --from=build /out /out',
    ].join('\n')
    expect(readBuildInputs(text, [])).toEqual({
      images: ['tools:1'],
      sources: [],
      platformImages: [{ image: 'tools:1', platform: '$BUILDPLATFORM' }],
    })
  })

  test('a stage ARG default expands a path; a build argument overrides it', () => {
    const text = 'FROM x\nARG WHERE=dist/a\nCOPY $WHERE/ /app\n'
    expect(readBuildInputs(text, []).sources).toEqual(['dist/a/'])
    expect(readBuildInputs(text, [['WHERE', 'dist/b']]).sources).toEqual(['dist/b/'])
  })

  test.each([
    [
      'FROM x\nADD https://example.com/a.tgz /a\n',
      "'ADD https://example.com/a.tgz' downloads what only the build knows",
    ],
    [
      'FROM x\nADD git@github.com:a/b.git /b\n',
      "'ADD git@github.com:a/b.git' downloads what only the build knows",
    ],
    [
      'FROM $BASE\n',
      "its line 'FROM $BASE' names the base image through a build argument without a value",
    ],
    [
      'FROM x\nARG WHERE\nCOPY $WHERE /app\n',
      "COPY source '$WHERE' uses a variable whose value is not known before the build",
    ],
    [
      'FROM x\nCOPY ${SOURCES_PATH:-dist} /app\n',
      "COPY source '${SOURCES_PATH:-dist}' uses a variable whose value is not known before the build",
    ],
  ])('%j cannot be known from its text', (text, why) => {
    expect(readBuildInputs(text, args).unknowable).toBe(why)
  })
})
