import { describe, expect, test } from '@jest/globals'
import {
  drawVersionMessage,
  resolveAppVersion,
  resolveDrawVersion,
} from '../../../../../src/core/build-images/plan/draw-version.js'
import { memoryFiles } from '../../../../helpers/memory-files.js'

const WEB = '/p/dist/web/version.json'
const CAD = '/p/dist/codeAsData/version.json'
const PKG = '/p/node_modules/@olympeio/draw/package.json'

const project = { root: '/p', frontendSources: 'dist/web', codeasdataSources: 'dist/codeAsData' }

// What the official template leaves after `npm install`, `build:draw` and `buildCodeAsData` for an
// app at 1.4.0 on Draw 2.15.3: its webpack config copies Draw's version.json into dist/web and
// overwrites "version" with the app's own.
const TEMPLATE_BUILD = {
  [PKG]: '{"name":"@olympeio/draw","version":"2.15.3"}',
  [CAD]: '{"drawVersion":"2.15.3","runtimeVersion":"9.15.3"}',
  [WEB]: '{\n    "version": "1.4.0",\n    "olympe-framework": "9.15.3"\n}',
}

describe('draw_version resolution', () => {
  test.each<[string, string | undefined, Record<string, string>, string | undefined, string]>([
    ['the input wins over every file', '3.0.0', TEMPLATE_BUILD, '3.0.0', "input 'draw-version'"],
    [
      "a template build: Draw's own package, not the app's version in dist/web",
      undefined,
      TEMPLATE_BUILD,
      '2.15.3',
      'node_modules/@olympeio/draw/package.json',
    ],
    [
      'without node_modules (a job that only received dist/): the code-as-data version.json',
      undefined,
      { [CAD]: '{"drawVersion":"2.15.3","runtimeVersion":"9.15.3"}', [WEB]: '{"version":"1.4.0"}' },
      '2.15.3',
      'dist/codeAsData/version.json',
    ],
    [
      'dist/web/version.json only when nothing else is there',
      undefined,
      { [WEB]: '{"version":"2.11.3"}' },
      '2.11.3',
      'dist/web/version.json',
    ],
    [
      'a package.json without version falls through',
      undefined,
      { [PKG]: '{"name":"@olympeio/draw"}', [CAD]: '{"drawVersion":"2.10.1"}' },
      '2.10.1',
      'dist/codeAsData/version.json',
    ],
    [
      'code-as-data version.json is read for drawVersion, not version',
      undefined,
      { [CAD]: '{"version":"9.9.9"}', [WEB]: '{"version":"2.9.0"}' },
      '2.9.0',
      'dist/web/version.json',
    ],
    ['nothing found', undefined, {}, undefined, ''],
  ])('%s', async (_name, explicit, contents, value, source) => {
    const lookup = await resolveDrawVersion(explicit, project, memoryFiles(contents))
    expect(lookup.found?.value).toBe(value)
    expect(lookup.found?.source ?? '').toBe(source)
  })

  const LOCK = '/p/package-lock.json'
  const SHRINKWRAP = '/p/npm-shrinkwrap.json'
  const lock = (
    version: string | undefined,
    format: 'packages' | 'dependencies' = 'packages',
  ): string =>
    JSON.stringify({
      name: 'shop',
      lockfileVersion: format === 'packages' ? 3 : 1,
      [format]:
        version === undefined
          ? {}
          : {
              [format === 'packages' ? 'node_modules/@olympeio/draw' : '@olympeio/draw']: {
                version,
              },
            },
    })
  const ENTRY = 'packages["node_modules/@olympeio/draw"].version'

  test.each<[string, Record<string, string>, string | undefined, string, string[]]>([
    [
      'a job with the artifacts only: the lock file, not the app version in dist/web',
      { [LOCK]: lock('2.15.3'), [WEB]: '{"version":"1.4.0"}' },
      '2.15.3',
      'package-lock.json',
      [],
    ],
    [
      'an old lock file (lockfileVersion 1): its dependencies entry',
      { [LOCK]: lock('2.14.0', 'dependencies') },
      '2.14.0',
      'package-lock.json',
      [],
    ],
    [
      'the installed package wins over the lock file',
      { [PKG]: '{"version":"2.15.4"}', [LOCK]: lock('2.15.3') },
      '2.15.4',
      'node_modules/@olympeio/draw/package.json',
      [],
    ],
    [
      'a shrinkwrap wins over package-lock.json, as in npm',
      { [SHRINKWRAP]: lock('2.16.0'), [LOCK]: lock('2.15.3') },
      '2.16.0',
      'npm-shrinkwrap.json',
      [],
    ],
    [
      'a shrinkwrap without Draw: package-lock.json, which npm ignored, is not read either',
      { [SHRINKWRAP]: lock(undefined), [LOCK]: lock('2.15.3'), [CAD]: '{"drawVersion":"2.15.1"}' },
      '2.15.1',
      'dist/codeAsData/version.json',
      [`npm-shrinkwrap.json has no '${ENTRY}' string`],
    ],
    [
      'a lock file without Draw: said, then the next place',
      { [LOCK]: lock(undefined), [CAD]: '{"drawVersion":"2.15.1"}' },
      '2.15.1',
      'dist/codeAsData/version.json',
      [`package-lock.json has no '${ENTRY}' string`],
    ],
  ])('%s', async (_name, contents, value, source, notes) => {
    const lookup = await resolveDrawVersion(undefined, project, memoryFiles(contents))
    expect(lookup.found?.value).toBe(value)
    expect(lookup.found?.source).toBe(source)
    expect(lookup.notes).toEqual(notes)
  })

  test('the log line names the lock file and its entry', async () => {
    const lookup = await resolveDrawVersion(
      undefined,
      project,
      memoryFiles({ [LOCK]: lock('2.15.3') }),
    )
    expect(drawVersionMessage(lookup.found ?? { value: '', source: '' })).toBe(
      `draw_version 2.15.3 (from '${ENTRY}' in package-lock.json)`,
    )
  })

  test('the sources inputs move the version files with them', async () => {
    const files = memoryFiles({
      '/p/build/cad/version.json': '{"drawVersion":"4.1.0"}',
      '/p/build/front/version.json': '{"version":"4.0.0"}',
    })
    const moved = { ...project, frontendSources: 'build/front', codeasdataSources: 'build/cad' }
    expect((await resolveDrawVersion(undefined, moved, files)).found).toEqual({
      value: '4.1.0',
      source: 'build/cad/version.json',
      field: 'drawVersion',
    })
  })

  test.each([
    ['broken JSON', '{"version":', 'is not valid JSON: it ends too early (after line 1)'],
    ['a number', '{"version": 2}', "has no 'version' string"],
    [
      'a multi-line value',
      '{"version": "2.0\\nLABEL evil=1"}',
      'has a \'version\' that is not a version: "2.0\\nLABEL evil=1"',
    ],
  ])('%s is noted and skipped', async (_name, text, problem) => {
    const lookup = await resolveDrawVersion(undefined, project, memoryFiles({ [PKG]: text }))
    expect(lookup.found).toBeUndefined()
    expect(lookup.notes).toEqual([`node_modules/@olympeio/draw/package.json ${problem}`])
  })

  test('a package.json with a byte order mark is read', async () => {
    const files = memoryFiles({ [PKG]: '\uFEFF{"version":"2.9.1"}' })
    expect((await resolveDrawVersion(undefined, project, files)).found?.value).toBe('2.9.1')
  })

  test('"none found" lists every place looked at, in order', async () => {
    const lookup = await resolveDrawVersion(undefined, project, memoryFiles({}))
    expect(lookup.looked).toEqual([
      'node_modules/@olympeio/draw/package.json (version)',
      'npm-shrinkwrap.json (packages["node_modules/@olympeio/draw"].version)',
      'package-lock.json (packages["node_modules/@olympeio/draw"].version)',
      'dist/codeAsData/version.json (drawVersion)',
      'dist/web/version.json (version)',
    ])
  })
})

describe('the draw_version log line', () => {
  test('names the file and the field that gave the version', async () => {
    const lookup = await resolveDrawVersion(undefined, project, memoryFiles(TEMPLATE_BUILD))
    expect(lookup.found && drawVersionMessage(lookup.found)).toBe(
      "draw_version 2.15.3 (from 'version' in node_modules/@olympeio/draw/package.json)",
    )
  })

  test('names the input when the input gave it', async () => {
    const lookup = await resolveDrawVersion('3.0.0', project, memoryFiles({}))
    expect(lookup.found && drawVersionMessage(lookup.found)).toBe(
      "draw_version 3.0.0 (from input 'draw-version')",
    )
  })

  test("says why dist/web/version.json may hold the app's version", async () => {
    const lookup = await resolveDrawVersion(
      undefined,
      project,
      memoryFiles({ [WEB]: '{"version":"1.4.0"}' }),
    )
    expect(lookup.found?.doubtful).toBe(true)
    expect(lookup.found && drawVersionMessage(lookup.found)).toBe(
      "draw_version 1.4.0 (from 'version' in dist/web/version.json): neither " +
        'node_modules/@olympeio/draw/package.json, a lock file, nor the code-as-data version.json was found, ' +
        "and the official template rewrites this file's version with the project's own; set " +
        "'draw-version' if 1.4.0 is not the Draw version",
    )
  })
})

describe('the version label: the project version the app serves', () => {
  test.each<[string, Record<string, string>, string | undefined, string | undefined, string[]]>([
    [
      "a template build: dist/web/version.json's version, the one the app serves",
      { ...TEMPLATE_BUILD, '/p/package.json': '{"version":"1.3.9"}' },
      '1.4.0',
      'dist/web/version.json',
      [],
    ],
    [
      "without a version.json: package.json's",
      { '/p/package.json': '{"name":"shop","version":"1.4.0"}' },
      '1.4.0',
      'package.json',
      [],
    ],
    [
      'a broken version.json is noted and package.json used',
      { [WEB]: '{"version": ', '/p/package.json': '{"version":"1.4.0"}' },
      '1.4.0',
      'package.json',
      ['dist/web/version.json is not valid JSON: it ends too early (after line 1)'],
    ],
    ['neither: no label', {}, undefined, undefined, []],
  ])('%s', async (_name, contents, value, source, notes) => {
    const lookup = await resolveAppVersion(
      { root: '/p', frontendSources: 'dist/web' },
      memoryFiles(contents),
    )
    expect(lookup).toEqual({ ...(value ? { found: { value, source } } : {}), notes })
  })
})
