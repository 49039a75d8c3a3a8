import { describe, expect, test } from '@jest/globals'
import type { ReadingFacts } from '../../../../../src/core/build-images/builders/descriptor.js'
import { builderReading } from '../../../../../src/core/build-images/builders/known-builders.js'

const PLAIN: ReadingFacts = {
  dockerfile: 'FROM ghcr.io/acme/base:1\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n',
  images: ['ghcr.io/acme/base:1'],
  ownIgnoreFile: false,
}
const BUILDAH = { name: 'buildah', version: '1.28.2' } as const

describe('builderReading: where Buildah reads a Dockerfile otherwise than BuildKit', () => {
  test('Docker is the reference: nothing recorded', () => {
    const heredoc = { ...PLAIN, dockerfile: `${PLAIN.dockerfile}RUN <<EOF\necho hi\nEOF\n` }
    expect(builderReading({ name: 'docker' }, heredoc)).toBeUndefined()
  })

  test('a Dockerfile both read alike: nothing recorded, so images are shared', () => {
    expect(builderReading(BUILDAH, PLAIN)).toBeUndefined()
  })

  test.each<[string, Partial<ReadingFacts>, string]>([
    [
      'here-documents',
      { dockerfile: `${PLAIN.dockerfile}RUN <<EOF\necho hi\nEOF\n` },
      'buildah 1.28: here-documents',
    ],
    [
      'a # syntax directive',
      { dockerfile: `# syntax=ghcr.io/acme/frontend:1\n${PLAIN.dockerfile}` },
      'buildah 1.28: a # syntax directive',
    ],
    ['a .containerignore', { containerignore: 'abc123' }, 'buildah 1.28: .containerignore abc123'],
    [
      'a name without a registry',
      { images: ['olympeio/frontend-base:latest', 'ghcr.io/acme/x:1'] },
      'buildah 1.28: names without a registry (olympeio/frontend-base:latest)',
    ],
  ])('%s: recorded with the version', (_name, facts, reading) => {
    expect(builderReading(BUILDAH, { ...PLAIN, ...facts })).toBe(reading)
  })

  test("a Dockerfile's own ignore file wins over .containerignore for both", () => {
    expect(
      builderReading(BUILDAH, { ...PLAIN, containerignore: 'abc123', ownIgnoreFile: true }),
    ).toBeUndefined()
  })

  test.each([
    ['on a continued line', `${PLAIN.dockerfile}RUN \\\n  cat <<EOF\necho hi\nEOF\n`],
    ['under ONBUILD', `${PLAIN.dockerfile}ONBUILD RUN <<EOF\necho hi\nEOF\n`],
  ])('here-documents %s: recorded', (_name, dockerfile) => {
    expect(builderReading(BUILDAH, { ...PLAIN, dockerfile })).toBe('buildah 1.28: here-documents')
  })

  test('a # syntax line after a comment line is no directive for BuildKit: nothing recorded', () => {
    const late = { ...PLAIN, dockerfile: `# hello\n# syntax=x/y:1\n${PLAIN.dockerfile}` }
    expect(builderReading(BUILDAH, late)).toBeUndefined()
  })

  test('a Dockerfile BuildKit refuses: recorded, so its images are never shared', () => {
    const broken = { ...PLAIN, dockerfile: `${PLAIN.dockerfile}RUN <<EOF\necho hi\n` }
    expect(builderReading(BUILDAH, broken)).toBe(
      'buildah 1.28: a Dockerfile this step cannot read as BuildKit does',
    )
  })

  test('a # syntax line after the first instruction is a comment for both', () => {
    const late = { ...PLAIN, dockerfile: `${PLAIN.dockerfile}# syntax=x/y:1\n` }
    expect(builderReading(BUILDAH, late)).toBeUndefined()
  })
})
