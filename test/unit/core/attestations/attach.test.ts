import { describe, expect, test } from '@jest/globals'
import { attachAttestations } from '../../../../src/core/attestations/attach.js'
import { IN_TOTO_PAYLOAD_TYPE, seal } from '../../../../src/core/attestations/dsse.js'
import {
  attestationLayer,
  attestationTag,
  CYCLONEDX_BOM,
  SLSA_PROVENANCE_V1,
} from '../../../../src/core/attestations/layout.js'
import { readProvenance } from '../../../../src/core/attestations/provenance-check.js'
import { readAttestations } from '../../../../src/core/attestations/read.js'
import { cycloneDxSbom } from '../../../../src/core/attestations/sbom.js'
import { imageSubject, statementText } from '../../../../src/core/attestations/statement.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { blobOf } from '../../../../src/core/signing/cosign-layout.js'
import { appendToCosignManifest } from '../../../../src/core/signing/cosign-manifest.js'
import type { Signer } from '../../../../src/core/signing/signer.js'
import {
  frontendFacts,
  newSigningKey,
  registryWorld,
  signerOf,
  type RegistryWorld,
} from '../../../helpers/attestations.js'

const ORIGIN = 'https://reg.example.com'
const REPOSITORY = 'acme/shop/frontend'
const OURS = signerOf(newSigningKey())
const OTHER = signerOf(newSigningKey())
const THIS_REPOSITORY = 'https://github.com/acme/shop'

function world(): RegistryWorld & { digest: string; reference: string } {
  const w = registryWorld(ORIGIN, REPOSITORY)
  const digest = w.registry.put(REPOSITORY, 'main', {})
  return { ...w, digest, reference: `reg.example.com/${REPOSITORY}:main` }
}

interface Manifest {
  mediaType: string
  layers: Array<{
    mediaType: string
    digest: string
    size: number
    annotations: Record<string, string>
  }>
}

function attManifest(w: ReturnType<typeof world>): Manifest {
  const digest = w.registry.digestOf(REPOSITORY, attestationTag(w.digest)) ?? ''
  const response = w.registry.script({
    method: 'GET',
    url: new URL(`${ORIGIN}/v2/${REPOSITORY}/manifests/${digest}`),
    headers: {},
    timeoutMs: 1000,
    maxBodyBytes: 1024 * 1024,
  })
  return JSON.parse('body' in response ? response.body : '{}') as Manifest
}

/** A provenance made as another tool would: any statement, any subject, sealed by `signer`. */
async function attest(
  w: ReturnType<typeof world>,
  predicate: Record<string, unknown>,
  options: { signer?: Signer; subjectDigest?: string; type?: string } = {},
): Promise<void> {
  const type = options.type ?? SLSA_PROVENANCE_V1
  const statement = statementText(
    imageSubject(`reg.example.com/${REPOSITORY}`, options.subjectDigest ?? w.digest),
    type,
    predicate,
  )
  const sealed = await seal(statement, IN_TOTO_PAYLOAD_TYPE, options.signer ?? OURS)
  const blob = blobOf(sealed.text)
  const existing = attManifest(w) as unknown as Record<string, unknown>
  const problem = await appendToCosignManifest(
    w.session,
    attestationTag(w.digest),
    'layers' in existing ? existing : undefined,
    [{ blob, layer: attestationLayer(blob, type, sealed.annotations) }],
    { blob: 'envelope', manifest: 'attestation' },
  )
  expect(problem).toBeUndefined()
}

/** The frontend's attestations (`kinds`, or all) attached to the world's image under OURS. */
function attachOurs(
  w: ReturnType<typeof world>,
  ports: Omit<Parameters<typeof attachAttestations>[3], 'session'> = {},
  kinds?: Parameters<typeof attachAttestations>[4],
): ReturnType<typeof attachAttestations> {
  const image = { reference: w.reference, digest: w.digest }
  return attachAttestations(image, frontendFacts(), OURS, { session: w.session, ...ports }, kinds)
}

const provenanceOf = (repository: string): Record<string, unknown> => ({
  buildDefinition: { buildType: 'https://example.com/b', externalParameters: { repository } },
  runDetails: { builder: { id: 'https://example.com/builder' } },
})

describe('attachAttestations: provenance and SBOM, as cosign attest stores them, in one write', () => {
  test('one .att manifest, one DSSE layer per attestation annotated with its type, read back under the key', async () => {
    const w = world()
    const attached = await attachOurs(w, { cycloneDx: cycloneDxSbom })
    if (isProblem(attached)) throw new Error(attached.problem)
    expect(attached.tag).toBe(`${w.digest.replace(':', '-')}.att`)
    expect(attached.kept).toBe(0)
    expect(w.registry.puts).toEqual([`PUT ${REPOSITORY}:${attached.tag}`])
    const manifest = attManifest(w)
    expect(manifest.mediaType).toBe('application/vnd.oci.image.manifest.v1+json')
    expect(manifest.layers.map((layer) => [layer.mediaType, layer.annotations])).toEqual([
      [
        'application/vnd.dsse.envelope.v1+json',
        { 'dev.cosignproject.cosign/signature': '', predicateType: SLSA_PROVENANCE_V1 },
      ],
      [
        'application/vnd.dsse.envelope.v1+json',
        { 'dev.cosignproject.cosign/signature': '', predicateType: CYCLONEDX_BOM },
      ],
    ])
    for (const type of [SLSA_PROVENANCE_V1, CYCLONEDX_BOM]) {
      const read = await readAttestations(w.session, w.digest, type, OURS.verifier)
      expect(read).toMatchObject({ kind: 'read', otherDigests: [], otherKey: 0 })
      expect(read.kind === 'read' && read.statements[0]?.subject).toEqual([
        { name: `reg.example.com/${REPOSITORY}`, digest: { sha256: w.digest.slice(7) } },
      ])
    }
    expect(JSON.parse(attached.documents.provenance ?? '')).toMatchObject({
      buildDefinition: { externalParameters: { repository: THIS_REPOSITORY } },
    })
    expect(JSON.parse(attached.documents.sbom ?? '')).toMatchObject({ bomFormat: 'CycloneDX' })
  })

  test('appended to the attestations already there, which are kept', async () => {
    const w = world()
    await attest(w, provenanceOf('https://github.com/acme/other'), { signer: OTHER })
    const attached = await attachOurs(w, {}, ['provenance'])
    expect(attached).toMatchObject({ kept: 1, documents: { provenance: expect.any(String) } })
    expect(attManifest(w).layers).toHaveLength(2)
  })

  test('an SBOM asked for without the writer that makes it: refused before anything is written', async () => {
    const w = world()
    const attached = await attachOurs(w)
    expect(attached).toEqual({ problem: 'no SBOM writer was given to make the SBOM' })
    expect(w.registry.puts).toEqual([])
  })
})

describe('readProvenance: what deploy requires of an image', () => {
  test('ours, for this digest, naming this repository: proven', async () => {
    const w = world()
    await attest(w, provenanceOf(THIS_REPOSITORY))
    expect(await readProvenance(w.session, w.digest, OURS.verifier, [THIS_REPOSITORY])).toEqual({
      kind: 'proven',
      repository: THIS_REPOSITORY,
    })
    // Written another way, it is the same repository.
    expect(
      await readProvenance(w.session, w.digest, OURS.verifier, [
        'https://GitHub.com/Acme/Shop.git/',
      ]),
    ).toMatchObject({ kind: 'proven' })
  })

  test('no .att at all, or only an SBOM: none', async () => {
    const w = world()
    expect(await readProvenance(w.session, w.digest, OURS.verifier, [THIS_REPOSITORY])).toEqual({
      kind: 'none',
      detail: `no '${attestationTag(w.digest)}' in its repository`,
    })
    await attest(w, { bomFormat: 'CycloneDX' }, { type: CYCLONEDX_BOM })
    expect(await readProvenance(w.session, w.digest, OURS.verifier, [THIS_REPOSITORY])).toEqual({
      kind: 'none',
      detail: `'${attestationTag(w.digest)}' holds no attestation of type ${SLSA_PROVENANCE_V1}`,
    })
  })

  test('under another key only: other-key', async () => {
    const w = world()
    await attest(w, provenanceOf(THIS_REPOSITORY), { signer: OTHER })
    expect(await readProvenance(w.session, w.digest, OURS.verifier, [THIS_REPOSITORY])).toEqual({
      kind: 'other-key',
      count: 1,
    })
  })

  test('ours, made for another digest: other-digest', async () => {
    const w = world()
    const elsewhere = `sha256:${'e'.repeat(64)}`
    await attest(w, provenanceOf(THIS_REPOSITORY), { subjectDigest: elsewhere })
    expect(await readProvenance(w.session, w.digest, OURS.verifier, [THIS_REPOSITORY])).toEqual({
      kind: 'other-digest',
      digests: [elsewhere],
    })
  })

  test('ours, naming another repository or none: other-repository, which wins over the rest', async () => {
    const w = world()
    await attest(w, provenanceOf(THIS_REPOSITORY), { signer: OTHER })
    await attest(w, provenanceOf('https://github.com/acme/shop-fork'))
    await attest(w, { buildDefinition: {} })
    expect(await readProvenance(w.session, w.digest, OURS.verifier, [THIS_REPOSITORY])).toEqual({
      kind: 'other-repository',
      repositories: ['https://github.com/acme/shop-fork', undefined],
    })
    // One of a list given: proven.
    expect(
      await readProvenance(w.session, w.digest, OURS.verifier, [
        THIS_REPOSITORY,
        'https://github.com/acme/shop-fork',
      ]),
    ).toEqual({ kind: 'proven', repository: 'https://github.com/acme/shop-fork' })
  })
})
