import { describe, expect, test } from '@jest/globals'
import { readStages, triggersOf, type Stage } from '../../../../src/core/dockerfile/stages.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'

const only = (dockerfile: string, args: [string, string][] = []): Stage | undefined =>
  readStages(dockerfile, args)[0]

describe('readStages: ARG SOURCES_PATH in a stage', () => {
  eachAnswer(
    '%j declares it: %s',
    (line: string) => only(`FROM x\n${line}\n`)?.declaresSourcesPath,
    [
      ['ARG SOURCES_PATH', true],
      ['  arg SOURCES_PATH=dist/web', true],
      ['ARG A=1 SOURCES_PATH', true],
      ['ARG SOURCES_PATH_2', false],
      ['# ARG SOURCES_PATH', false],
      ['ENV SOURCES_PATH=dist', false],
      ['COPY $SOURCES_PATH /x', false],
      ['ONBUILD ARG SOURCES_PATH', false],
    ],
  )

  test('an ARG before the first FROM is global: it declares nothing in a stage', () => {
    expect(only('ARG SOURCES_PATH\nFROM x\nCOPY $SOURCES_PATH /app\n')).toMatchObject({
      declaresSourcesPath: false,
      usesSourcesPath: true,
    })
  })
})

describe('readStages: uses of $SOURCES_PATH', () => {
  eachAnswer('%j uses it: %s', (line: string) => only(`FROM x\n${line}\n`)?.usesSourcesPath, [
    ['COPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html', true],
    ['COPY ${SOURCES_PATH} /app', true],
    ['COPY ${SOURCES_PATH:-dist} /app', true],
    ['COPY $SOURCES_PATHS /app', false],
    ['COPY dist/web /app', false],
    ['# COPY $SOURCES_PATH /app', false],
  ])

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
