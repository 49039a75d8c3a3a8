import { describe, expect, test } from '@jest/globals'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../../../../src/core/build-images/definition.js'
import type {
  parseBuildImagesInputs,
  InputFacts,
} from '../../../../src/core/build-images/inputs.js'
import type { ImageKind } from '../../../../src/core/shared/project-images.js'
import { looksSecret } from '../../../../src/core/build-images/input-parsers.js'
import { secretsIn } from '../../../../src/core/shared/input-secrets.js'
import type { InputError } from '../../../../src/core/shared/errors.js'
import { GITLAB_REGISTRY_PASSWORD } from '../../../../src/platform/context.js'
import { openSigningKey } from '../../../../src/core/signing/private-key.js'
import { generateKeyPairSync } from 'node:crypto'
import { inputErrorOf } from '../../../helpers/input-errors.js'
import { eachAnswer } from '../../../helpers/unit-tables.js'
import {
  GITHUB_FACTS as github,
  parseGiven as parse,
  type BuildImagesGiven as Given,
} from '../../../helpers/build-images-inputs.js'

const PASSWORD = 'pw-7d1e9c3b5a'

const problemOf = (given: Given, facts: InputFacts = github): InputError =>
  inputErrorOf(() => parse(given, facts))

describe('build-images inputs', () => {
  test('defaults: ghcr.io on GitHub, names from the repository, spec folders', () => {
    expect(parse({})).toEqual({
      allowUndeclaredSourcesPath: false,
      checkOnly: false,
      registry: { host: 'ghcr.io', prefix: 'ghcr.io' },
      registryMirrors: [],
      reuseUnchanged: true,
      registryLogin: undefined,
      imageNames: {
        frontend: 'acme/shop/frontend',
        backend: 'acme/shop/backend',
        codeasdata: 'acme/shop/codeasdata',
      },
      tagTemplate: '{branch}-{short-sha}',
      extraTags: [],
      images: ['frontend', 'backend'],
      targets: [
        {
          id: 'frontend',
          kind: 'frontend',
          imageName: 'acme/shop/frontend',
          sources: 'dist/web',
          dockerfile: 'docker/frontend.Dockerfile',
        },
        {
          id: 'backend',
          kind: 'backend',
          imageName: 'acme/shop/backend',
          sources: 'dist/node',
          dockerfile: 'docker/backend.Dockerfile',
        },
      ],
      push: true,
      branches: undefined,
      dockerFolder: 'docker',
      sources: { frontend: 'dist/web', backend: 'dist/node', codeasdata: 'dist/codeAsData' },
      drawVersion: undefined,
      buildArgs: [],
      buildSecrets: [],
      builder: 'auto',
      platform: undefined,
      cacheFrom: [],
      workingDirectory: '/ws',
      attestations: [],
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
        registryLogin: { registry: 'ghcr.io', username: 'ci', password: PASSWORD },
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

  test('build-secrets: one ID=value per line, values kept whole, blank lines skipped', () => {
    expect(
      parse({ 'build-secrets': 'NPM_TOKEN=npm_abc=def\r\n\n  other.id-2 = x y \n' }).buildSecrets,
    ).toEqual([
      { id: 'NPM_TOKEN', value: 'npm_abc=def' },
      { id: 'other.id-2', value: 'x y' },
    ])
    expect(parse({}).buildSecrets).toEqual([])
  })

  test.each<[string, string]>([
    [
      'a line without =',
      'line 2 is not ID=value (the line is not shown: it may be a secret); expected one secret per line, such as NPM_TOKEN=<value>',
    ],
    [
      'an id with a comma',
      "line 1 names the id 'A,B'; expected letters, digits, '_', '.' and '-', not starting with '.' or '-', at most 128 characters, as in RUN --mount=type=secret,id=NPM_TOKEN",
    ],
    [
      'an empty value',
      "line 1 has nothing after '=' (an unset CI/CD variable or secret gives an empty value); set it, or remove the line",
    ],
    ['a repeated id', "gives the id 'NPM_TOKEN' twice (lines 1 and 3); expected each id once"],
  ])('build-secrets: %s is refused without showing a value', (name, problem) => {
    const given: Record<string, string> = {
      'a line without =': `NPM_TOKEN=${PASSWORD}\n${PASSWORD}`,
      'an id with a comma': `A,B=${PASSWORD}`,
      'an empty value': 'NPM_TOKEN=',
      'a repeated id': `NPM_TOKEN=${PASSWORD}\nX=1\nNPM_TOKEN=${PASSWORD}`,
    }
    const error = problemOf({ 'build-secrets': given[name] })
    expect(error.message).toBe(`Invalid input 'build-secrets' (value hidden: secret): ${problem}.`)
    expect(error.message).not.toContain(PASSWORD)
  })

  test('build-secrets with DOCKER_BUILDKIT=0: refused, as the legacy builder cannot mount them', () => {
    const error = problemOf(
      { 'build-secrets': 'NPM_TOKEN=x' },
      { ...github, buildkitDisabled: true },
    )
    expect(error.message).toBe(
      "Invalid input 'build-secrets' (value hidden: secret): is set, but DOCKER_BUILDKIT is false, which makes docker build with the legacy builder: it cannot mount secrets (RUN --mount=type=secret). Unset DOCKER_BUILDKIT (BuildKit is Docker's builder since version 23), or leave 'build-secrets' empty.",
    )
    expect(parse({}, { ...github, buildkitDisabled: true }).buildSecrets).toEqual([])
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

  test("a user name without its password, with Buildah on GitLab: the CI/CD variable and Buildah's login are named", () => {
    const error = problemOf(
      {
        registry: 'registry.example.com',
        'registry-username': 'gitlab-ci-token',
        builder: 'buildah',
      },
      {
        platform: 'gitlab',
        workspace: '/ws',
        repository: 'g/p',
        registryPasswordFrom: GITLAB_REGISTRY_PASSWORD,
      },
    )
    expect(error.input).toBe('registry-password')
    expect(error.message).toBe(
      "Invalid input 'registry-password' (value hidden: secret): is empty while 'registry-username' is set; on GitLab the templates give it the CI/CD variable CI_REGISTRY_PASSWORD (GitLab's job token, beside CI_REGISTRY_USER), or, for another registry or account, the masked CI/CD variable INPUT_REGISTRY_PASSWORD: define the one that goes with that user name; or leave 'registry-username' empty to use Buildah's login from earlier in the job (buildah login).",
    )
  })

  test('problems across inputs are named together: a lone password and a missing registry', () => {
    const error = problemOf(
      { 'registry-password': PASSWORD },
      { platform: 'gitlab', workspace: '/ws', repository: 'g/p' },
    )
    expect(error.input).toBe('registry-username')
    expect(error.message.split('\n')).toEqual([
      "Invalid input 'registry-username' '': is empty while 'registry-password' is set; give both, or neither to use the job's existing login (docker login, or buildah login).",
      "Invalid input 'registry' '': is required outside GitHub; set it to your registry host (on GitLab, '$CI_REGISTRY').",
    ])
    expect(error.message).not.toContain(PASSWORD)
  })
})

describe('what is masked and warned about', () => {
  eachAnswer('%s looks secret: %s', looksSecret, [
    ['NPM_TOKEN', true],
    ['api_key', true],
    ['PASSWORD', true],
    ['DB_PASSWD', true],
    ['SECRET_VALUE', true],
    ['GITHUB_AUTH', true],
    ['PUBLIC_KEY', false],
    ['TOKEN_FILE', false],
    ['KEYBOARD', false],
    ['NODE_ENV', false],
    ['TOKENIZER', false],
  ])

  test('the secrets of build-secrets and build-args, from their parse, or their lines when it fails', () => {
    const { inputs } = buildImagesDefinition
    const secretsOf = (name: 'build-secrets' | 'build-args', text: string): string[] =>
      secretsIn(inputs[name], text, {})
    // Parsed: the whole text, and each value.
    expect(secretsOf('build-secrets', 'A=one\nB=two=2\n')).toEqual([
      'A=one\nB=two=2\n',
      'one',
      'two=2',
    ])
    // Refused (line 2 is no ID=value): the same, and the line pasted alone.
    expect(secretsOf('build-secrets', 'A=one\n  pasted-alone  \nB=two=2\n')).toEqual([
      'A=one\n  pasted-alone  \nB=two=2\n',
      'one',
      'pasted-alone',
      'two=2',
    ])
    expect(secretsOf('build-args', 'NODE_ENV=production\nNPM_TOKEN=npm_x\nPUBLIC_KEY=k')).toEqual([
      'npm_x',
    ])
    // Refused (SOURCES_PATH is set per image): the secret-looking value all the same.
    expect(secretsOf('build-args', 'SOURCES_PATH=x\nAPI_KEY=k-123456')).toEqual(['k-123456'])
  })
})

describe('attestations: what each image built carries, signed with signing-key', () => {
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ format: 'pem', type: 'sec1' })
    .toString()
  const withKey: InputFacts = { ...github, openSigningKey }

  test.each<[string, Given, string[]]>([
    ['no key: none', {}, []],
    ['a key: both, by default', { 'signing-key': key }, ['provenance', 'sbom']],
    ['a key, provenance only', { 'signing-key': key, attestations: 'provenance' }, ['provenance']],
    [
      'a key, both in any order and case',
      { 'signing-key': key, attestations: 'SBOM,\nprovenance' },
      ['provenance', 'sbom'],
    ],
    ['a key, none', { 'signing-key': key, attestations: 'none' }, []],
    ['no key, none', { attestations: 'none' }, []],
  ])('%s', (_name, given, expected) => {
    expect(parse(given, withKey).attestations).toEqual(expected)
  })

  test.each<[Given, string]>([
    [
      { attestations: 'provenance,sbom' },
      "Invalid input 'attestations' 'provenance,sbom': asks for attestations, but 'signing-key' is empty: each attestation is signed with that key, as `cosign attest --key` signs one; set 'signing-key', or set 'attestations' to 'none' (its default without a key).",
    ],
    [
      { 'signing-key': key, attestations: 'none, sbom' },
      "Invalid input 'attestations' 'none, sbom': names 'none' with other attestations; expected 'provenance' and/or 'sbom' (one per line or comma-separated), or 'none'.",
    ],
    [
      { 'signing-key': key, attestations: 'slsa, sbom, spdx' },
      "Invalid input 'attestations' 'slsa, sbom, spdx': names unknown attestations 'slsa', 'spdx'; expected 'provenance' and/or 'sbom' (one per line or comma-separated), or 'none'.",
    ],
  ])('%j is refused, in full', (given, message) => {
    const error = problemOf(given, withKey)
    expect({ input: error.input, message: error.message }).toEqual({
      input: 'attestations',
      message,
    })
  })
})
