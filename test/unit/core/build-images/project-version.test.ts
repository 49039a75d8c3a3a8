import { describe, expect, test } from '@jest/globals'
import { resolveProjectVersion } from '../../../../src/core/build-images/project-version.js'
import { memoryFiles } from '../../../helpers/memory-files.js'

const project = { root: '/p', frontendSources: 'dist/web' }

describe('project version', () => {
  test("the frontend's version.json first, as the template's webpack build writes it", async () => {
    const files = memoryFiles({
      '/p/dist/web/version.json': '{"version":"2.15.0"}',
      '/p/package.json': '{"version":"1.0.0"}',
    })
    expect(await resolveProjectVersion(project, files)).toEqual({
      value: '2.15.0',
      source: 'dist/web/version.json',
    })
  })

  test('package.json when version.json is missing or has no usable version', async () => {
    for (const versionJson of [undefined, '{"drawVersion":"2.15.3"}', '{"version":"a b"}', '{']) {
      const files = memoryFiles({
        ...(versionJson === undefined ? {} : { '/p/dist/web/version.json': versionJson }),
        '/p/package.json': '{"name":"shop","version":"1.4.0"}',
      })
      expect(await resolveProjectVersion(project, files)).toEqual({
        value: '1.4.0',
        source: 'package.json',
      })
    }
  })

  test('none found: no label', async () => {
    const files = memoryFiles({ '/p/package.json': '{"name":"shop"}' })
    expect(await resolveProjectVersion(project, files)).toBeUndefined()
  })
})
