import { describe, expect, test } from '@jest/globals'
import { readLockFile } from '../../../../src/core/attestations/lock-file.js'
import { cycloneDxSbom } from '../../../../src/core/attestations/sbom.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import {
  cycloneDxProblems,
  frontendFacts,
  SECRET_BUILD_ARG,
  SECRET_INPUT,
} from '../../../helpers/attestations.js'
import { leakForms } from '../../../helpers/secrets.js'

const SRI =
  'sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=='
const SRI_HEX = Buffer.from(SRI.slice('sha512-'.length), 'base64').toString('hex')
const IMAGE = {
  reference: 'reg.example.com/acme/shop/frontend:main-1a2b3c4',
  digest: `sha256:${'a'.repeat(64)}`,
}

const LOCK = readLockFile(
  'package-lock.json',
  JSON.stringify({
    lockfileVersion: 3,
    packages: {
      '': { name: 'shop' },
      'node_modules/@olympeio/runtime-node': {
        version: '9.8.1',
        integrity: `${SRI} sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA=`,
      },
      'node_modules/express': { version: '4.21.2' },
      'node_modules/@olympeio/draw': { version: '2.11.3', dev: true },
      'node_modules/webpack': { version: '5.99.0', dev: true },
    },
  }),
)
if (isProblem(LOCK)) throw new Error(LOCK.problem)
const LOCK_FILE = LOCK

interface Bom {
  specVersion: string
  metadata: { component: Record<string, unknown>; tools: unknown; timestamp: string }
  components: Array<{
    type: string
    name: string
    group?: string
    version: string
    purl: string
    hashes?: unknown
  }>
}

const sbomOf = (overrides: Parameters<typeof frontendFacts>[0] = {}): string =>
  cycloneDxSbom(IMAGE, frontendFacts({ lockFile: LOCK_FILE, ...overrides }))

describe('the CycloneDX SBOM of an image', () => {
  test('is valid CycloneDX 1.6 JSON, as the schema the CycloneDX library ships checks it', async () => {
    const text = sbomOf()
    expect(await cycloneDxProblems(text)).toBeNull()
    // The validator does refuse what the schema does not allow.
    expect(await cycloneDxProblems(text.replace('"SHA-256"', '"SHA-999"'))).not.toBeNull()
    expect((JSON.parse(text) as Bom).specVersion).toBe('1.6')
  })

  test('its subject is the image by digest; its base images are containers with their digests', () => {
    const bom = JSON.parse(sbomOf()) as Bom
    expect(bom.metadata.component).toMatchObject({
      type: 'container',
      name: 'reg.example.com/acme/shop/frontend',
      version: IMAGE.digest,
      purl: `pkg:oci/frontend@${IMAGE.digest}?repository_url=reg.example.com%2Facme%2Fshop%2Ffrontend&tag=main-1a2b3c4`,
      hashes: [{ alg: 'SHA-256', content: 'a'.repeat(64) }],
    })
    expect(bom.metadata.timestamp).toBe('2026-03-01T10:04:30.000Z')
    expect(bom.components.filter((each) => each.type === 'container')).toEqual([
      expect.objectContaining({
        name: 'docker.io/olympeio/frontend-base',
        version: `sha256:${'b'.repeat(64)}`,
        purl: `pkg:oci/frontend-base@sha256:${'b'.repeat(64)}?repository_url=docker.io%2Folympeio%2Ffrontend-base&tag=stable`,
        hashes: [{ alg: 'SHA-256', content: 'b'.repeat(64) }],
      }),
    ])
  })

  test('the locked packages that may ship (scoped ones first, as CycloneDX sorts them), with npm purls and their integrity as hashes; Draw for the frontend', () => {
    const bom = JSON.parse(sbomOf()) as Bom
    const libraries = bom.components.filter((each) => each.type === 'library')
    expect(libraries).toEqual([
      {
        type: 'library',
        name: 'draw',
        group: '@olympeio',
        version: '2.11.3',
        'bom-ref': 'pkg:npm/%40olympeio/draw@2.11.3',
        purl: 'pkg:npm/%40olympeio/draw@2.11.3',
      },
      {
        type: 'library',
        name: 'runtime-node',
        group: '@olympeio',
        version: '9.8.1',
        'bom-ref': 'pkg:npm/%40olympeio/runtime-node@9.8.1',
        purl: 'pkg:npm/%40olympeio/runtime-node@9.8.1',
        hashes: [
          { alg: 'SHA-1', content: '0'.repeat(40) },
          { alg: 'SHA-512', content: SRI_HEX },
        ],
      },
      {
        type: 'library',
        name: 'express',
        version: '4.21.2',
        'bom-ref': 'pkg:npm/express@4.21.2',
        purl: 'pkg:npm/express@4.21.2',
      },
    ])
  })

  test.each([
    ['code-as-data', 'codeasdata', true],
    ['a backend', 'orders', false],
  ])("Draw's version in the SBOM of %s image ('%s'): %s", (_name, image, listed) => {
    const bom = JSON.parse(sbomOf({ image, lockFile: undefined })) as Bom
    expect(bom.components.some((each) => each.purl === 'pkg:npm/%40olympeio/draw@2.11.3')).toBe(
      listed,
    )
  })

  test('no value of a build argument or of an input', () => {
    const text = sbomOf()
    for (const secret of [SECRET_BUILD_ARG, SECRET_INPUT])
      for (const form of leakForms(secret))
        expect({ form, found: text.includes(form) }).toEqual({ form, found: false })
  })

  test('the same image and run give the same SBOM, serial number included', () => {
    expect(sbomOf()).toBe(sbomOf())
    expect(JSON.parse(sbomOf())).toMatchObject({
      serialNumber: expect.stringMatching(
        /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
    })
  })
})
