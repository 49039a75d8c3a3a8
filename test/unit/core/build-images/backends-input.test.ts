import { describe, expect, test } from '@jest/globals'
import { load } from 'js-yaml'
import { withDefaults } from '../../../../src/core/definition.js'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../../../../src/core/build-images/definition.js'
import {
  parseBuildImagesInputs,
  type InputFacts,
} from '../../../../src/core/build-images/inputs.js'
import type { ImageTarget } from '../../../../src/core/build-images/image-kinds.js'
import { MAX_BACKENDS } from '../../../../src/core/build-images/backends-input.js'
import { checkedOutputs } from '../../../../src/core/build-images/report.js'
import { inputErrorOf } from '../../../helpers/input-errors.js'

type Given = Partial<Record<BuildImagesInputName, string>>
const facts: InputFacts = {
  platform: 'github',
  repository: 'Acme/Shop',
  workspace: '/ws',
  parseYaml: (text) => load(text),
}
const parse = (given: Given): ReturnType<typeof parseBuildImagesInputs> =>
  parseBuildImagesInputs(withDefaults(buildImagesDefinition, given), facts)
const messageOf = (given: Given): string => inputErrorOf(() => parse(given)).message

/** Three backends: two on the shared backend.Dockerfile, one with its own. */
const THREE = JSON.stringify([
  { name: 'api', sources: 'dist/api' },
  { name: 'worker', sources: './dist/worker/' },
  { name: 'jobs', sources: 'dist/jobs', dockerfile: 'docker/jobs.Dockerfile' },
])
const THREE_YAML = `
- name: api
  sources: dist/api
- name: worker
  sources: ./dist/worker/
- {name: jobs, sources: dist/jobs, dockerfile: docker/jobs.Dockerfile}
`

const backend = (
  name: string,
  sources: string,
  dockerfile = 'docker/backend.Dockerfile',
): ImageTarget => ({
  id: `backend:${name}`,
  kind: 'backend',
  name,
  imageName: `acme/shop/backend-${name}`,
  sources,
  dockerfile,
})
const FRONTEND: ImageTarget = {
  id: 'frontend',
  kind: 'frontend',
  imageName: 'acme/shop/frontend',
  sources: 'dist/web',
  dockerfile: 'docker/frontend.Dockerfile',
}
const API = backend('api', 'dist/api')
const WORKER = backend('worker', 'dist/worker')
const JOBS = backend('jobs', 'dist/jobs', 'docker/jobs.Dockerfile')

describe('backends: several backends, each an image of its own', () => {
  test.each([
    ['JSON', THREE],
    ['YAML', THREE_YAML],
  ])('in %s: one target per backend, named <backend-image-name>-<name>', (_format, text) => {
    const inputs = parse({ backends: text })
    expect(inputs.images).toEqual(['frontend', 'backend'])
    expect(inputs.targets).toEqual([FRONTEND, API, WORKER, JOBS])
  })

  test("'backend-image-name' is each backend image's stem", () => {
    const inputs = parse({ backends: THREE, 'backend-image-name': 'shop/services' })
    expect(inputs.targets.map((target) => target.imageName)).toEqual([
      'acme/shop/frontend',
      'shop/services-api',
      'shop/services-worker',
      'shop/services-jobs',
    ])
  })

  test("a backend's Dockerfile defaults to 'docker-folder''s backend.Dockerfile", () => {
    const inputs = parse({ backends: THREE, 'docker-folder': 'containers', images: 'backend' })
    expect(inputs.targets.map((target) => target.dockerfile)).toEqual([
      'containers/backend.Dockerfile',
      'containers/backend.Dockerfile',
      'docker/jobs.Dockerfile',
    ])
  })

  test.each<[string, Given, string[]]>([
    [
      'backend: every backend',
      { images: 'backend' },
      ['backend:api', 'backend:worker', 'backend:jobs'],
    ],
    [
      'backend:<name>: that one alone, a matrix leg',
      { images: 'backend:worker' },
      ['backend:worker'],
    ],
    [
      'two by name, in the order of backends',
      { images: 'backend:jobs, backend:api' },
      ['backend:api', 'backend:jobs'],
    ],
    [
      'backend with backend:<name>: every backend',
      { images: 'backend:api\nbackend' },
      ['backend:api', 'backend:worker', 'backend:jobs'],
    ],
    [
      'frontend, a backend and code as data',
      { images: 'frontend,backend:api', codeasdata: 'true' },
      ['frontend', 'backend:api', 'codeasdata'],
    ],
    ['frontend alone', { images: 'frontend' }, ['frontend']],
  ])('images, %s', (_name, given, ids) => {
    const inputs = parse({ backends: THREE, ...given })
    expect(inputs.targets.map((target) => target.id)).toEqual(ids)
    // What a fan-out's planning job gives its matrix: the same, as JSON.
    expect(checkedOutputs(inputs.targets, false)).toEqual({
      matrix: JSON.stringify(ids),
      skipped: 'false',
    })
  })

  test('unset: one unnamed backend from backend-sources, exactly as before', () => {
    expect(parse({ 'backend-sources': 'build/node' }).targets).toEqual([
      FRONTEND,
      {
        id: 'backend',
        kind: 'backend',
        imageName: 'acme/shop/backend',
        sources: 'build/node',
        dockerfile: 'docker/backend.Dockerfile',
      },
    ])
    expect(parse({}).sources.backend).toBe('dist/node')
    expect(checkedOutputs(parse({}).targets, false).matrix).toBe('["frontend","backend"]')
    expect(checkedOutputs(parse({}).targets, true).matrix).toBe('[]')
  })

  test('at most 256 backends, as many legs as a GitHub matrix runs', () => {
    const many = (count: number): string =>
      JSON.stringify(
        Array.from({ length: count }, (_, index) => ({ name: `b${index}`, sources: `d/${index}` })),
      )
    expect(parse({ backends: many(MAX_BACKENDS) }).targets).toHaveLength(MAX_BACKENDS + 1)
    expect(messageOf({ backends: many(MAX_BACKENDS + 1) })).toContain(
      ': lists 257 backends; expected at most 256, as many as a GitHub matrix runs.',
    )
  })

  // Every refusal names the backend, with the input's whole message.
  test.each<[string, Given, string]>([
    [
      'a name the platform cannot hold',
      { backends: '[{"name": "API", "sources": "dist/api"}]' },
      `Invalid input 'backends' '[{"name": "API", "sources": "dist/api"}]': at [0].name: backend 'API' is not a name the platform can hold; expected lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters.`,
    ],
    [
      'a name ending with a dash',
      { backends: '- {name: api-, sources: dist/api}' },
      `Invalid input 'backends' '- {name: api-, sources: dist/api}': at [0].name: backend 'api-' is not a name the platform can hold; expected lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters.`,
    ],
    [
      'a name of 64 characters',
      { backends: `[{"name": "${'a'.repeat(64)}", "sources": "d"}]` },
      `Invalid input 'backends' '[{"name": "${'a'.repeat(64)}", "sources": "d"}]': at [0].name: backend '${'a'.repeat(64)}' is not a name the platform can hold; expected lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters.`,
    ],
    [
      'a name given twice',
      { backends: '[{"name":"api","sources":"dist/a"},{"name":"api","sources":"dist/b"}]' },
      `Invalid input 'backends' '[{"name":"api","sources":"dist/a"},{"name":"api","sources":"dist/b"}]': at [1].name: backend 'api' is listed at [0] already; expected each name once.`,
    ],
    [
      'sources outside the project, and a Dockerfile too',
      {
        backends:
          '[{"name":"api","sources":"../api"},{"name":"w","sources":"w","dockerfile":"/etc/w.Dockerfile"}]',
      },
      `Invalid input 'backends' '[{"name":"api","sources":"../api"},{"name":"w","sources":"w","dockerfile":"/etc/w.Dockerfile"}]': at [0].sources (backend 'api'): is outside 'working-directory', the build context, where docker cannot read it; expected the backend's build output folder inside the project; at [1].dockerfile (backend 'w'): is absolute; expected the backend's Dockerfile relative to 'working-directory', the build context.`,
    ],
    [
      'not a list',
      { backends: 'name: api' },
      `Invalid input 'backends' 'name: api': expected a list of {name, sources, dockerfile} backends, such as '[{"name": "api", "sources": "dist/api"}, {"name": "worker", "sources": "dist/worker", "dockerfile": "docker/worker.Dockerfile"}]'.`,
    ],
    [
      'an empty list',
      { backends: '[]' },
      `Invalid input 'backends' '[]': lists no backend; expected at least one {name, sources}, or leave it empty to build one backend from 'backend-sources'.`,
    ],
    [
      'a key misspelt, sources missing',
      { backends: '[{"name":"api","source":"dist/api"}]' },
      `Invalid input 'backends' '[{"name":"api","source":"dist/api"}]': at [0].sources: is missing: the folder of the backend's build output, relative to 'working-directory'; at [0].source: unknown key "source": expected only "name", "sources", "dockerfile".`,
    ],
    [
      'a name that is a number',
      { backends: '- {name: 7, sources: dist/7}' },
      `Invalid input 'backends' '- {name: 7, sources: dist/7}': at [0].name: expected a string, got 7.`,
    ],
    [
      'neither JSON nor YAML',
      { backends: '- name: api\n  sources: [dist' },
      `Invalid input 'backends' '- name: api\n  sources: [dist': is neither JSON nor YAML (unexpected end of the stream within a flow collection (2:17)).`,
    ],
    [
      'with backend-sources',
      { backends: THREE, 'backend-sources': 'dist/node' },
      `Invalid input 'backends' '${THREE}': is set together with 'backend-sources': each backend of 'backends' names its own 'sources'; remove 'backend-sources'.`,
    ],
    [
      'images names a backend that is not listed',
      { backends: THREE, images: 'frontend, backend:apl' },
      `Invalid input 'images' 'frontend, backend:apl': names 'backend:apl', but 'backends' lists no backend of that name; expected one of 'backend:api', 'backend:worker', 'backend:jobs', or 'backend' for all.`,
    ],
    [
      'images names a backend without backends',
      { images: 'backend:api' },
      `Invalid input 'images' 'backend:api': names 'backend:api', but 'backends' is empty: a backend is named only among several; set 'backends', or name 'backend'.`,
    ],
    [
      'images names a backend the platform cannot hold',
      { backends: THREE, images: 'backend:Api' },
      `Invalid input 'images' 'backend:Api': names 'backend:Api', whose backend name the platform cannot hold; expected lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters, as in 'backends'.`,
    ],
    [
      "a backend's image name too long for a registry",
      { backends: '[{"name":"api","sources":"d"}]', 'backend-image-name': 'x'.repeat(236) },
      `Invalid input 'backends' '[{"name":"api","sources":"d"}]': gives the backend 'api' the image name '${'x'.repeat(236)}-api' ('backend-image-name' followed by '-api'), which is not valid: expected an image name such as 'acme/shop/frontend': lowercase letters, digits and '.', '_', '-' between them, parts separated by '/', without registry or tag.`,
    ],
  ])('refused: %s', (_name, given, message) => {
    expect(messageOf(given)).toBe(message)
  })

  test('unknown images name the new form among those expected', () => {
    expect(messageOf({ images: 'frontend, api' })).toBe(
      "Invalid input 'images' 'frontend, api': names an unknown image 'api'; expected one or more of 'frontend', 'backend', 'codeasdata', or 'backend:<name>' for one backend of 'backends', one per line or comma-separated.",
    )
  })
})
