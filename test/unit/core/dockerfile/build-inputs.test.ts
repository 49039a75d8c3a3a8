import { describe, expect, test } from '@jest/globals'
import {
  baseImagesOf,
  readBuildInputs,
  type BaseFacts,
} from '../../../../src/core/dockerfile/build-inputs.js'

describe('readBuildInputs: what a build reads besides its Dockerfile', () => {
  const args: [string, string][] = [['SOURCES_PATH', 'dist/web']]
  /** Base images known, with no trigger and BuildKit's PATH only. */
  const known = (): BaseFacts => ({ onBuild: [], env: ['PATH=/bin'] })

  test("the template's frontend: its base and $SOURCES_PATH", () => {
    expect(
      readBuildInputs(
        'FROM olympeio/frontend-base:stable\nARG SOURCES_PATH\nCOPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html\n',
        args,
      ),
    ).toEqual({
      images: ['olympeio/frontend-base:stable'],
      sources: ['dist/web'],
      pinned: [],
      platformImages: [],
    })
  })

  test("SOURCES_PATH declared by the base's ONBUILD ARG, as Olympe's base images do", () => {
    const text = 'FROM olympeio/backend-base:stable\nCOPY $SOURCES_PATH /app\n'
    // Until the base image is read, its environment may hold the variable.
    expect(readBuildInputs(text, args).unknowable).toBe(
      "this step cannot read it as BuildKit does: COPY source '$SOURCES_PATH' uses $SOURCES_PATH, which its base image's environment may set",
    )
    expect(
      readBuildInputs(text, args, () => ({
        onBuild: ['ARG SOURCES_PATH', 'COPY package.json /app/'],
        env: [],
      })),
    ).toEqual({
      images: ['olympeio/backend-base:stable'],
      sources: ['package.json', 'dist/web'],
      pinned: [],
      platformImages: [],
    })
  })

  test('stages, COPY --from of a stage and of an image, RUN mounts, heredocs, our own ONBUILD', () => {
    const text = [
      'ARG NODE=node:20',
      'FROM $NODE AS build',
      'ARG SOURCES_PATH',
      'RUN --mount=type=bind,source=package.json,target=/p.json --mount=type=cache,target=/c npm ci',
      'RUN --mount=from=tools:1,target=/t ls',
      'COPY ["dist/a b", "/x"]',
      'ONBUILD COPY onbuild.txt /',
      'FROM scratch',
      'COPY --from=build /app /app',
      'COPY --from=0 /app /app2',
      'COPY --from=busybox:1.36 /bin/busybox /bin/',
      'COPY <<EOF /etc/motd',
      'COPY not-a-source /x',
      'EOF',
      'FROM build',
    ].join('\n')
    expect(readBuildInputs(text, [...args, ['NODE', 'node:22']], known)).toEqual({
      images: ['node:22', 'tools:1', 'busybox:1.36'],
      sources: ['package.json', 'dist/a b', 'onbuild.txt'],
      pinned: [],
      platformImages: [],
    })
  })

  test('a stage ARG default expands a path; a build argument overrides it', () => {
    const text = 'FROM x\nARG WHERE=dist/a\nCOPY $WHERE/ /app\n'
    expect(readBuildInputs(text, []).sources).toEqual(['dist/a'])
    expect(readBuildInputs(text, [['WHERE', 'dist/b']]).sources).toEqual(['dist/b'])
  })

  test('variables expand as BuildKit expands them: unset is empty, ENV, defaults, quotes', () => {
    const read = (text: string): string[] => readBuildInputs(text, args, known).sources
    expect(read('FROM x\nARG WHERE\nCOPY $WHERE /app\n')).toEqual(['.'])
    expect(read('FROM x\nCOPY ${SOURCES_PATH:-dist} /app\n')).toEqual(['dist'])
    expect(read('FROM x\nENV D=dist\nCOPY ${D}/"a" /app\n')).toEqual(['dist/a'])
    // BuildKit splits COPY's words on spaces before it reads quotes: this one it refuses.
    expect(readBuildInputs('FROM x\nCOPY "a b" /app\n', [], known).unknowable).toBe(
      "BuildKit cannot read it (COPY source '\"a': unexpected end of statement while looking for matching double-quote)",
    )
    expect(read('FROM x\nARG A=x\nARG A\nCOPY $A /app\n')).toEqual(['x'])
    expect(read('FROM x\nCOPY ../../etc /app\n')).toEqual(['etc'])
  })

  test('the issue: an argument holding an URL is expanded before ADD judges it remote', () => {
    expect(
      readBuildInputs('FROM x\nARG ASSET=http://127.0.0.1:1/a.js\nADD $ASSET /a.js\n', [], known)
        .unknowable,
    ).toBe(
      "'ADD http://127.0.0.1:1/a.js' downloads what only the build knows (pin it with ADD --checksum=sha256:…)",
    )
  })

  test('ADD --checksum pins what an URL gives: it stands for the content', () => {
    expect(
      readBuildInputs(
        'FROM x\nADD --checksum=sha256:abc https://example.com/a.tgz /a\n',
        [],
        known,
      ),
    ).toEqual({
      images: ['x'],
      sources: [],
      pinned: ['https://example.com/a.tgz sha256:abc'],
      platformImages: [],
    })
  })

  test('the issue: a `<<` inside a word is no heredoc; the COPY after it is read', () => {
    const text = 'FROM x\nLABEL note=shift<<EOF\nCOPY dist/web /app\nEOF=1\n'
    expect(readBuildInputs(text.replace('EOF=1\n', ''), [], known).sources).toEqual(['dist/web'])
  })

  test('the issue: the escape directive makes ` the line continuation, not \\', () => {
    const text = '# escape=`\nFROM x\nRUN echo \\\nCOPY dist/web /app\n'
    expect(readBuildInputs(text, [], known).sources).toEqual(['dist/web'])
  })

  test.each([
    [
      'FROM x\nADD https://example.com/a.tgz /a\n',
      "'ADD https://example.com/a.tgz' downloads what only the build knows (pin it with ADD --checksum=sha256:…)",
    ],
    [
      'FROM x\nADD git@github.com:a/b.git /b\n',
      "'ADD git@github.com:a/b.git' downloads what only the build knows (pin it with ADD --checksum=sha256:…)",
    ],
    [
      'FROM $BASE\n',
      "this step cannot read it as BuildKit does: its line 'FROM $BASE' names the base image through a build argument without a value",
    ],
    [
      '# syntax=docker/dockerfile:1\nFROM x\n',
      "this step cannot read it as BuildKit does: its '# syntax=docker/dockerfile:1' directive runs that frontend instead of BuildKit's own, which may read the file differently",
    ],
    [
      'FROM x\nCOPY --parents a /b\n',
      "this step cannot read it as BuildKit does: its flag '--parents' on COPY is not one this step reads",
    ],
    [
      'FROM x\nCOPY ${A#x} /b\n',
      "this step cannot read it as BuildKit does: COPY source '${A#x}' uses '${A#…}', which this step does not expand",
    ],
    ['FROM x\nFOO bar\n', 'BuildKit cannot read it (unknown instruction: FOO)'],
    ['FROM x\nRUN <<EOF\nls\n', 'BuildKit cannot read it (unterminated heredoc)'],
  ])('%j cannot be known from its text', (text, why) => {
    expect(readBuildInputs(text, args, known).unknowable).toBe(why)
  })

  test("a variable only the base's environment may set: said, and the later stages still read", () => {
    const text = 'FROM a:1\nCOPY $X /x\nFROM b:2\nCOPY --from=c:3 /y /y\n'
    expect(readBuildInputs(text, [])).toEqual({
      images: ['a:1', 'b:2', 'c:3'],
      sources: ['.'],
      pinned: [],
      platformImages: [],
      unknowable:
        "this step cannot read it as BuildKit does: COPY source '$X' uses $X, which its base image's environment may set",
    })
    expect(readBuildInputs(text, [], () => ({ onBuild: [], env: ['X=dist'] })).unknowable).toBe(
      undefined,
    )
  })

  test('BUILDKIT_SYNTAX as a build argument runs another frontend too', () => {
    expect(readBuildInputs('FROM x\n', [['BUILDKIT_SYNTAX', 'y']], known).unknowable).toBe(
      "this step cannot read it as BuildKit does: the build argument BUILDKIT_SYNTAX runs another frontend instead of BuildKit's own, which may read the file differently",
    )
  })
})

describe('a stage built for a platform of its own', () => {
  test('its base is listed with that platform as written, beside the images', () => {
    const text = [
      'FROM --platform=$BUILDPLATFORM tools:1 AS build',
      'RUN make',
      'FROM tools:1',
      'COPY --from=build /out /out',
    ].join('\n')
    expect(readBuildInputs(text, [])).toMatchObject({
      images: ['tools:1'],
      platformImages: [{ image: 'tools:1', platform: '$BUILDPLATFORM' }],
    })
    expect(readBuildInputs('FROM tools:1\n', []).platformImages).toEqual([])
  })
})

describe('baseImagesOf: the images a mirror must serve', () => {
  const text =
    '# syntax=docker/dockerfile:1\nARG NODE=node:24\nFROM $NODE AS build\nCOPY --from=busybox:1 /bin/sh /sh\nFROM nginx:1\n'
  test('a Dockerfile that names another frontend still pulls its bases, which readBuildInputs leaves unread', () => {
    expect(readBuildInputs(text, []).images).toEqual([])
    expect(baseImagesOf(text, [])).toEqual(['node:24', 'busybox:1', 'nginx:1'])
  })
  test('so does one built with the BUILDKIT_SYNTAX argument; the frontend image itself is no base', () => {
    expect(baseImagesOf('FROM alpine:3\n', [['BUILDKIT_SYNTAX', 'docker/dockerfile:1']])).toEqual([
      'alpine:3',
    ])
  })
})
