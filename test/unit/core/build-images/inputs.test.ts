import { describe, expect, test } from '@jest/globals'
import { withDefaults } from '../../../../src/core/definition.js'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../../../../src/core/build-images/definition.js'
import {
  parseBuildImagesInputs,
  type InputFacts,
} from '../../../../src/core/build-images/inputs.js'
import type { ImageKind } from '../../../../src/core/build-images/image-kinds.js'
import { InputError } from '../../../../src/core/shared/errors.js'

type Given = Partial<Record<BuildImagesInputName, string>>
const PASSWORD = 'pw-7d1e9c3b5a'
const github: InputFacts = { platform: 'github', repository: 'Acme/Shop', workspace: '/ws' }

const parse = (
  given: Given,
  facts: InputFacts = github,
): ReturnType<typeof parseBuildImagesInputs> =>
  parseBuildImagesInputs(withDefaults(buildImagesDefinition, given), facts)

function problemOf(given: Given, facts: InputFacts = github): InputError {
  try {
    parse(given, facts)
  } catch (error) {
    if (error instanceof InputError) return error
    throw error
  }
  throw new Error('expected an InputError')
}

describe('build-images inputs', () => {
  test('defaults: ghcr.io on GitHub, names from the repository, spec folders', () => {
    expect(parse({})).toEqual({
      allowUndeclaredSourcesPath: false,
      checkOnly: false,
      registry: { host: 'ghcr.io', prefix: 'ghcr.io' },
      reuseUnchanged: true,
      credentials: undefined,
      imageNames: {
        frontend: 'acme/shop/frontend',
        backend: 'acme/shop/backend',
        codeasdata: 'acme/shop/codeasdata',
      },
      tagTemplate: '{branch}-{short-sha}',
      extraTags: [],
      images: ['frontend', 'backend'],
      push: true,
      branches: undefined,
      dockerFolder: 'docker',
      sources: { frontend: 'dist/web', backend: 'dist/node', codeasdata: 'dist/codeAsData' },
      drawVersion: undefined,
      buildArgs: [],
      platform: undefined,
      cacheFrom: [],
      workingDirectory: '/ws',
    })
  })

  test.each<[string, Given, InputFacts, Partial<ReturnType<typeof parseBuildImagesInputs>>]>([
    [
      'registry with a namespace',
      { registry: 'ghcr.io/acme/' },
      github,
      { registry: { host: 'ghcr.io', prefix: 'ghcr.io/acme' } },
    ],
    [
      'loopback registry with a port',
      { registry: '127.0.0.1:5000' },
      { platform: 'gitlab', workspace: '/ws', repository: 'group/sub/project' },
      {
        registry: { host: '127.0.0.1:5000', prefix: '127.0.0.1:5000' },
        imageNames: {
          frontend: 'group/sub/project/frontend',
          backend: 'group/sub/project/backend',
          codeasdata: 'group/sub/project/codeasdata',
        },
      },
    ],
    [
      'no repository: the project folder name',
      { registry: 'r.io', 'working-directory': 'apps/My_Shop' },
      { platform: 'local', workspace: '/ws' },
      {
        workingDirectory: '/ws/apps/My_Shop',
        imageNames: {
          frontend: 'my_shop/frontend',
          backend: 'my_shop/backend',
          codeasdata: 'my_shop/codeasdata',
        },
      },
    ],
    [
      'credentials, lists and options',
      {
        'registry-username': 'ci',
        'registry-password': PASSWORD,
        'extra-tags': 'latest, {date}',
        branches: 'main\nrelease/*',
        'build-args': 'NODE_ENV=production\nURLS=a,b\n',
        'cache-from': 'type=registry,ref=r.io/x:cache\nr.io/x:main',
        platform: 'linux/arm64/v8',
        codeasdata: 'TRUE',
        push: 'false',
        'frontend-sources': './build/web/',
      },
      github,
      {
        credentials: { username: 'ci', password: PASSWORD },
        extraTags: ['latest', '{date}'],
        branches: ['main', 'release/*'],
        buildArgs: [
          ['NODE_ENV', 'production'],
          ['URLS', 'a,b'],
        ],
        cacheFrom: ['type=registry,ref=r.io/x:cache', 'r.io/x:main'],
        platform: 'linux/arm64/v8',
        images: ['frontend', 'backend', 'codeasdata'],
        push: false,
        sources: { frontend: 'build/web', backend: 'dist/node', codeasdata: 'dist/codeAsData' },
      },
    ],
  ])('%s', (_name, given, facts, expected) => {
    expect(parse(given, facts)).toMatchObject(expected)
  })

  test.each<[Given, BuildImagesInputName, string]>([
    [{ registry: 'https://ghcr.io' }, 'registry', 'has a scheme'],
    [{ registry: 'acme' }, 'registry', 'is not a registry host'],
    [{ registry: 'ghcr.io:port' }, 'registry', 'is not a registry host'],
    [{ 'frontend-image-name': 'Shop/Frontend' }, 'frontend-image-name', 'expected an image name'],
    [{ 'backend-image-name': 'shop/backend:1' }, 'backend-image-name', 'has a tag or digest'],
    [{ 'codeasdata-image-name': 'shop//cad' }, 'codeasdata-image-name', 'expected an image name'],
    [{ 'tag-template': '{commit}' }, 'tag-template', "unknown placeholder '{commit}'"],
    [{ 'tag-template': '-{branch}' }, 'tag-template', 'does not give a valid tag'],
    [{ 'extra-tags': 'latest, bad tag' }, 'extra-tags', "tag 'bad tag'"],
    [{ codeasdata: 'yes' }, 'codeasdata', "expected 'true' or 'false'"],
    [
      { images: 'frontend,db' },
      'images',
      "names an unknown image 'db'; expected one or more of 'frontend', 'backend', 'codeasdata'",
    ],
    [{ images: 'Frontend\nweb, web' }, 'images', "names unknown images 'Frontend', 'web'"],
    [{ images: ',' }, 'images', 'names no image; expected one or more of'],
    [{ images: ',\n,', codeasdata: 'true' }, 'images', 'names no image'],
    [{ push: '1' }, 'push', "expected 'true' or 'false'"],
    [{ branches: 'main, my branch' }, 'branches', 'contains a space'],
    [
      { branches: 'main, main..dev' },
      'branches',
      "can never match: git branch names cannot hold '..'",
    ],
    [{ branches: 'release/*.lock' }, 'branches', "cannot end with '.lock'"],
    [{ branches: '-main' }, 'branches', "cannot start with '-'"],
    [{ registry: 'ghcr.io:65536' }, 'registry', 'has port 65536, which is not from 1 to 65535'],
    [
      { 'registry-username': 'ci:admin', 'registry-password': PASSWORD },
      'registry-username',
      'holds a colon or a control character',
    ],
    [{ 'docker-folder': '/etc' }, 'docker-folder', 'is absolute'],
    [{ 'frontend-sources': '../other/dist' }, 'frontend-sources', "outside 'working-directory'"],
    [{ 'backend-sources': 'dist/../..' }, 'backend-sources', "outside 'working-directory'"],
    [{ 'codeasdata-sources': '/abs' }, 'codeasdata-sources', 'is absolute'],
    [{ 'draw-version': '2.0 beta' }, 'draw-version', 'expected a version'],
    [{ 'build-args': 'NODE_ENV production' }, 'build-args', 'is not NAME=value'],
    [{ 'build-args': 'SOURCES_PATH=x' }, 'build-args', "set per image from 'frontend-sources'"],
    [{ platform: 'linux/amd64,linux/arm64' }, 'platform', 'names several platforms'],
    [{ platform: 'amd64' }, 'platform', 'expected os/architecture'],
    [{ 'registry-username': 'ci' }, 'registry-password', "while 'registry-username' is set"],
    [{ 'registry-password': PASSWORD }, 'registry-username', "while 'registry-password' is set"],
  ])('%j is refused, naming %s', (given, input, problem) => {
    const error = problemOf(given)
    expect(error.input).toBe(input)
    expect(error.message).toContain(`Invalid input '${input}'`)
    expect(error.message).toContain(problem)
    const value = given[input]
    if (value && input !== 'registry-password') expect(error.message).toContain(`'${value}'`)
    expect(error.message).not.toContain(PASSWORD)
  })

  // `codeasdata: true` keeps its meaning whatever `images` says: it adds the third image.
  test.each<[string, Given, ImageKind[]]>([
    ['default: frontend and backend', {}, ['frontend', 'backend']],
    [
      'codeasdata true adds code as data',
      { codeasdata: 'true' },
      ['frontend', 'backend', 'codeasdata'],
    ],
    ['code as data only', { images: 'codeasdata' }, ['codeasdata']],
    [
      'code as data only, codeasdata true too',
      { images: 'codeasdata', codeasdata: 'true' },
      ['codeasdata'],
    ],
    ['backend only', { images: 'backend' }, ['backend']],
    [
      'backend, plus codeasdata true',
      { images: 'backend', codeasdata: 'True' },
      ['backend', 'codeasdata'],
    ],
    [
      'all three by name',
      { images: 'frontend,backend,codeasdata' },
      ['frontend', 'backend', 'codeasdata'],
    ],
    [
      'lines, spaces, repeats and any order: reported in the usual order',
      { images: ' codeasdata\nfrontend , frontend,\n' },
      ['frontend', 'codeasdata'],
    ],
  ])('images: %s', (_name, given, expected) => {
    expect(parse(given).images).toEqual(expected)
  })

  test('outside GitHub the registry is required', () => {
    const error = problemOf({}, { platform: 'gitlab', workspace: '/ws', repository: 'g/p' })
    expect(error.input).toBe('registry')
    expect(error.message).toContain('$CI_REGISTRY')
  })

  test('a repository name that cannot be an image name asks for the input', () => {
    const error = problemOf({}, { platform: 'github', workspace: '/ws', repository: 'acme/a..b' })
    expect(error.input).toBe('frontend-image-name')
    expect(error.message).toContain("derived from the repository name 'acme/a..b'")
  })

  test('every problem is reported at once, one line per input', () => {
    const error = problemOf({ push: 'maybe', platform: 'x', 'tag-template': '{nope}' })
    expect(error.message.split('\n')).toHaveLength(3)
  })
})
