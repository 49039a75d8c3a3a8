import { describe, expect, test } from '@jest/globals'
import { resolveDrawVersion } from '../../../../src/core/build-images/draw-version.js'
import { memoryFiles } from '../../../helpers/memory-files.js'

const WEB = '/p/dist/web/version.json'
const CAD = '/p/dist/codeAsData/version.json'
const PKG = '/p/node_modules/@olympeio/draw/package.json'

const project = { root: '/p', frontendSources: 'dist/web', codeasdataSources: 'dist/codeAsData' }

describe('draw_version resolution', () => {
  test.each<[string, string | undefined, Record<string, string>, string | undefined, string]>([
    [
      'the input wins over every file',
      '3.0.0',
      { [WEB]: '{"version":"2.11.3"}' },
      '3.0.0',
      "input 'draw-version'",
    ],
    [
      'dist/web/version.json',
      undefined,
      { [WEB]: '{"version":"2.11.3"}', [CAD]: '{"drawVersion":"1.0.0"}' },
      '2.11.3',
      'dist/web/version.json',
    ],
    [
      'code-as-data version.json when the web one is missing',
      undefined,
      { [CAD]: '{"drawVersion":"2.10.1","runtimeVersion":"9.12.1"}', [PKG]: '{"version":"1"}' },
      '2.10.1',
      'dist/codeAsData/version.json',
    ],
    [
      'the installed package last',
      undefined,
      { [PKG]: '{"name":"@olympeio/draw","version":"2.9.0"}' },
      '2.9.0',
      'node_modules/@olympeio/draw/package.json',
    ],
    [
      'a web version.json without version falls through',
      undefined,
      { [WEB]: '{"build":"x"}', [CAD]: '{"drawVersion":"2.10.1"}' },
      '2.10.1',
      'dist/codeAsData/version.json',
    ],
    [
      'code-as-data version.json is read for drawVersion, not version',
      undefined,
      { [CAD]: '{"version":"9.9.9"}', [PKG]: '{"version":"2.9.0"}' },
      '2.9.0',
      'node_modules/@olympeio/draw/package.json',
    ],
    ['nothing found', undefined, {}, undefined, ''],
  ])('%s', async (_name, explicit, contents, value, source) => {
    const lookup = await resolveDrawVersion(explicit, project, memoryFiles(contents))
    expect(lookup.found?.value).toBe(value)
    expect(lookup.found?.source ?? '').toBe(source)
  })

  test('the sources inputs move the version files with them', async () => {
    const files = memoryFiles({ '/p/build/front/version.json': '{"version":"4.0.0"}' })
    const lookup = await resolveDrawVersion(
      undefined,
      { ...project, frontendSources: 'build/front' },
      files,
    )
    expect(lookup.found).toEqual({ value: '4.0.0', source: 'build/front/version.json' })
  })

  test.each([
    ['broken JSON', '{"version":', 'is not valid JSON'],
    ['a number', '{"version": 2}', "has no 'version' string"],
    ['a multi-line value', '{"version": "2.0\\nLABEL evil=1"}', 'is not a version'],
  ])('%s is noted and skipped', async (_name, text, note) => {
    const lookup = await resolveDrawVersion(undefined, project, memoryFiles({ [WEB]: text }))
    expect(lookup.found).toBeUndefined()
    expect(lookup.notes).toEqual([expect.stringContaining(note)])
  })

  test('"none found" lists every place looked at', async () => {
    const lookup = await resolveDrawVersion(undefined, project, memoryFiles({}))
    expect(lookup.looked).toEqual([
      'dist/web/version.json (version)',
      'dist/codeAsData/version.json (drawVersion)',
      'node_modules/@olympeio/draw/package.json (version)',
    ])
  })
})
