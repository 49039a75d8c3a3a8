import { describe, expect, test } from '@jest/globals'
import { generateKeyPairSync } from 'node:crypto'
import { checkBuildImages } from '../../../../../src/core/build-images/check.js'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../../../../../src/core/build-images/definition.js'
import { withDefaults } from '../../../../../src/core/definition.js'
import type { CiContext } from '../../../../../src/core/shared/context.js'
import type { Files } from '../../../../../src/core/shared/ports.js'
import { openSigningKey } from '../../../../../src/core/signing/private-key.js'
import { RUNTIME_INTEGRITY, shopLockFile } from '../../../../helpers/attestations.js'
import { inputErrorOfAsync } from '../../../../helpers/input-errors.js'
import { frozenClock, memoryFiles } from '../../../../helpers/memory-files.js'
import { recordingLogger } from '../../../../helpers/recording.js'
import { PUSH_TO_MAIN } from '../../../../helpers/unit-fakes.js'

const KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ format: 'pem', type: 'sec1' })
  .toString()
const LOCK = shopLockFile()
const DOCKERFILE = 'FROM r.io/base:1\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n'
const PROJECT: Record<string, string> = {
  '/p/docker/frontend.Dockerfile': DOCKERFILE,
  '/p/docker/backend.Dockerfile': DOCKERFILE,
  '/p/package-lock.json': LOCK,
}
/** A push to main on GitHub that knows what a provenance names. */
const GITHUB: CiContext = {
  ...PUSH_TO_MAIN,
  repositoryUrl: 'https://github.com/acme/shop',
  builderId: 'https://github.com/acme/shop/.github/workflows/images.yml@refs/heads/main',
}

async function check(
  given: Partial<Record<BuildImagesInputName, string>>,
  options: { context?: CiContext; files?: Files; tree?: Record<string, string> } = {},
): Promise<Awaited<ReturnType<typeof checkBuildImages>>> {
  const raw = withDefaults(buildImagesDefinition, { registry: 'r.io', ...given })
  const ports = {
    logger: recordingLogger().logger,
    clock: frozenClock('2026-11-22T10:00:00Z'),
    registerSecret: () => undefined,
    files: options.files ?? memoryFiles(options.tree ?? PROJECT),
  }
  return checkBuildImages(raw, options.context ?? GITHUB, ports, { openSigningKey })
}

const planOf = async (
  ...args: Parameters<typeof check>
): Promise<
  NonNullable<Extract<Awaited<ReturnType<typeof check>>, { tags: string[] }>['attest']> | undefined
> => {
  const checked = await check(...args)
  return 'attest' in checked ? checked.attest : undefined
}

describe('the check phase of attestations', () => {
  test('no key: nothing is attested', async () => {
    expect(await planOf({})).toBeUndefined()
  })

  test('a key: both, the lock file read whole, the inputs set to other than their default named', async () => {
    const plan = await planOf({
      'signing-key': KEY,
      'build-args': 'NODE_ENV=production',
      'build-secrets': 'NPM_TOKEN=npm_secret_3f9a1c',
      'docker-folder': 'docker',
      'frontend-sources': 'build/web',
      'tag-template': '{sha}',
    })
    expect(plan).toEqual({
      kinds: ['provenance', 'sbom'],
      lockFile: {
        path: 'package-lock.json',
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        packages: [
          { name: '@olympeio/runtime-node', version: '9.8.1', integrity: RUNTIME_INTEGRITY },
        ],
      },
      // The values are kept as given (only the names are ever written); the default
      // docker-folder, the tags and the key are not inputs that shape an image.
      inputs: {
        'frontend-sources': 'build/web',
        'build-args': 'NODE_ENV=production',
        'build-secrets': 'NPM_TOKEN=npm_secret_3f9a1c',
      },
    })
  })

  test('a provenance alone: the lock file by its digest only, whatever its version', async () => {
    const v1 = JSON.stringify({ lockfileVersion: 1, dependencies: {} })
    const plan = await planOf(
      { 'signing-key': KEY, attestations: 'provenance' },
      { tree: { ...PROJECT, '/p/package-lock.json': v1 } },
    )
    expect(plan?.lockFile).toEqual({
      path: 'package-lock.json',
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      packages: [],
    })
  })

  test('a shrinkwrap wins over package-lock.json, as npm installs from it; none: no lock file', async () => {
    const shrinkwrap = await planOf(
      { 'signing-key': KEY },
      {
        tree: {
          ...PROJECT,
          '/p/npm-shrinkwrap.json': JSON.stringify({ lockfileVersion: 2, packages: {} }),
        },
      },
    )
    expect(shrinkwrap?.lockFile?.path).toBe('npm-shrinkwrap.json')
    const without = Object.fromEntries(
      Object.entries(PROJECT).filter(([path]) => path !== '/p/package-lock.json'),
    )
    const none = await planOf({ 'signing-key': KEY }, { tree: without })
    expect(none).toEqual({ kinds: ['provenance', 'sbom'], inputs: {} })
  })

  test.each<
    [
      string,
      Partial<Record<BuildImagesInputName, string>>,
      { context?: CiContext; tree?: Record<string, string>; files?: Files },
      string,
    ]
  >([
    [
      'a local run, by default with a key',
      { 'signing-key': KEY },
      { context: { ...PUSH_TO_MAIN, platform: 'local' } },
      "Invalid input 'attestations' '': is empty, which with 'signing-key' asks for 'provenance,sbom'; an attestation names the repository and the run that built the image, and this run does not know the repository (a local run has no CI to name it); run the step in a CI job, or set 'attestations' to 'none'.",
    ],
    [
      'a GitLab job that does not know its job page',
      { 'signing-key': KEY, attestations: 'sbom' },
      {
        context: {
          ...PUSH_TO_MAIN,
          platform: 'gitlab',
          repositoryUrl: 'https://gitlab.example.com/acme/shop',
        },
      },
      "Invalid input 'attestations' 'sbom': an attestation names the repository and the run that built the image, and this run does not know the builder (CI_JOB_URL is not set); run the step in a CI job, or set 'attestations' to 'none'.",
    ],
    [
      'an SBOM from a lock file of version 1',
      { 'signing-key': KEY },
      { tree: { ...PROJECT, '/p/package-lock.json': '{"lockfileVersion":1}' } },
      "Invalid input 'attestations' '': is empty, which with 'signing-key' asks for 'provenance,sbom'; asks for an SBOM, which lists the npm packages of the project's lock file, and 'package-lock.json' has lockfileVersion 1, and only versions 2 and 3 list their packages ('packages'); write it again with npm 7 or newer (`npm install --package-lock-only`); or leave 'sbom' out of 'attestations'.",
    ],
    [
      'an SBOM, and the SBOMs folder is a file',
      { 'signing-key': KEY, attestations: 'sbom' },
      { tree: { ...PROJECT, '/p/olympe-sbom': 'not a folder' } },
      "Invalid input 'attestations' 'sbom': asks for an SBOM, which the step writes to '/p/olympe-sbom', and that path is not a folder: remove it, or leave 'sbom' out of 'attestations'.",
    ],
    [
      'an SBOM, and the SBOMs folder is a symbolic link',
      { 'signing-key': KEY, attestations: 'provenance\nsbom' },
      {
        files: {
          ...memoryFiles(PROJECT),
          linkTarget: (path) => Promise.resolve(path === '/p/olympe-sbom' ? '/etc' : undefined),
        },
      },
      "Invalid input 'attestations' 'provenance\nsbom': asks for an SBOM, which the step writes to '/p/olympe-sbom', and that path is a symbolic link (to '/etc'): remove it, or leave 'sbom' out of 'attestations'.",
    ],
  ])('%s: refused before any build, in full', async (_name, given, options, message) => {
    const error = await inputErrorOfAsync(() => check(given, options))
    expect({ input: error.input, message: error.message }).toEqual({
      input: 'attestations',
      message,
    })
  })

  test('a provenance alone does not need the SBOMs folder', async () => {
    const plan = await planOf(
      { 'signing-key': KEY, attestations: 'provenance' },
      { tree: { ...PROJECT, '/p/olympe-sbom': 'a file of the project' } },
    )
    expect(plan?.kinds).toEqual(['provenance'])
  })
})
