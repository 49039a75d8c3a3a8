import { describe, expect, test } from '@jest/globals'
import { generateKeyPairSync } from 'node:crypto'
import type { BuiltImage } from '../../../../src/core/build-images/build.js'
import type { ReuseCandidate } from '../../../../src/core/build-images/reuse/proof.js'
import { registryImage } from '../../../../src/core/registry/reference.js'
import { RegistrySession } from '../../../../src/core/registry/session.js'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import { ActionError } from '../../../../src/core/shared/errors.js'
import { signatureTag, simpleSigningPayload } from '../../../../src/core/signing/cosign-layout.js'
import { openSigningKey, type SigningKey } from '../../../../src/core/signing/private-key.js'
import { signatureProof } from '../../../../src/core/signing/reuse-proof.js'
import { signImages } from '../../../../src/core/signing/sign-images.js'
import { keySigner, type Signer } from '../../../../src/core/signing/signer.js'
import { addSignature, readSignatures } from '../../../../src/core/signing/signatures.js'
import { fakeNetwork, memoryRegistry, type MemoryRegistry } from '../../../helpers/fake-registry.js'
import { memoryFiles } from '../../../helpers/memory-files.js'
import { recordingLogger } from '../../../helpers/recording.js'

const ORIGIN = 'https://reg.example.com'
const REPOSITORY = 'acme/shop/frontend'
const FINGERPRINT = 'io.olympe.deploy-actions.fingerprint'

function newKey(): SigningKey {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const key = openSigningKey(pair.privateKey.export({ format: 'pem', type: 'sec1' }).toString(), '')
  if ('problem' in key) throw new Error(key.problem)
  return key
}
const OURS = newKey()
const OTHER = newKey()
const signerOf = (key: SigningKey): Signer =>
  keySigner(key.privateKey, key.publicKey, 'signing-key')

interface World {
  registry: MemoryRegistry
  session: RegistrySession
  ports: Parameters<typeof signImages>[3]
  lines: string[]
}

function world(): World {
  const registry = memoryRegistry(ORIGIN)
  const network = fakeNetwork(registry.script)
  const target = registryImage(`reg.example.com/${REPOSITORY}:main`)
  if ('problem' in target) throw new Error(target.problem)
  const { logger, lines } = recordingLogger()
  const ports = {
    ...network,
    logger,
    registerSecret: () => undefined,
    redact: (text: string) => text,
    files: memoryFiles({}),
    dockerConfigPath: '/nowhere/config.json',
  }
  const deadline = startDeadline(network.clock, 30, 'the test')
  return {
    registry,
    session: new RegistrySession(target, undefined, 'pull,push', deadline, ports, 1),
    ports,
    lines,
  }
}

async function sign(
  w: World,
  digest: string,
  key: SigningKey,
  claimed = digest,
  optional: Record<string, string> = {},
): Promise<void> {
  const before = await readSignatures(w.session, digest, signerOf(key).verifier)
  const payload = simpleSigningPayload(`reg.example.com/${REPOSITORY}`, claimed, optional)
  const annotations = await signerOf(key).sign(Buffer.from(payload))
  expect(
    await addSignature(w.session, digest, before.manifest, payload, annotations),
  ).toBeUndefined()
}

describe('readSignatures: what the registry holds for a digest, judged as cosign verify --key judges', () => {
  test('none, ours, another key’s, one made for another digest', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', { labels: { a: '1' } })
    const other = w.registry.put(REPOSITORY, 'other', { labels: { a: '2' } })
    const verifier = signerOf(OURS).verifier
    expect((await readSignatures(w.session, digest, verifier)).verdict).toEqual({
      kind: 'unsigned',
      detail: `no '${signatureTag(digest)}' in its repository`,
    })
    await sign(w, digest, OTHER)
    expect((await readSignatures(w.session, digest, verifier)).verdict).toEqual({
      kind: 'other-key',
      count: 1,
    })
    await sign(w, digest, OURS, digest, { [FINGERPRINT]: 'sha256:f1' })
    expect((await readSignatures(w.session, digest, verifier)).verdict).toEqual({
      kind: 'signed',
      claims: [{ digest, optional: { [FINGERPRINT]: 'sha256:f1' } }],
    })
    // Both kept: the other key's signature still verifies under its own key.
    expect((await readSignatures(w.session, digest, signerOf(OTHER).verifier)).verdict.kind).toBe(
      'signed',
    )
    await sign(w, other, OURS, digest)
    expect((await readSignatures(w.session, other, verifier)).verdict).toEqual({
      kind: 'other-digest',
      digests: [digest],
    })
  })

  test('a .sig tag that names no image manifest is unusable, and nothing is written over it', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', {})
    w.registry.putIndex(REPOSITORY, signatureTag(digest), { 'linux/amd64': {} })
    const read = await readSignatures(w.session, digest, signerOf(OURS).verifier)
    expect(read.verdict).toEqual({
      kind: 'unusable',
      detail: `'${signatureTag(digest)}' is a 'application/vnd.oci.image.index.v1+json', not a signature manifest`,
    })
  })
})

describe('signImages: the build-images phase', () => {
  const image = (digest: string, fingerprint?: string): BuiltImage => ({
    kind: 'frontend',
    reference: `reg.example.com/${REPOSITORY}:main-1a2b3c4`,
    references: [`reg.example.com/${REPOSITORY}:main-1a2b3c4`],
    digest,
    ...(fingerprint ? { reused: { since: 'main-0f0f0f0', fingerprint } } : {}),
  })

  test('signs with the fingerprint, then finds the image signed already', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', {})
    const options = { signingKey: OURS, push: true }
    const said = await signImages([image(digest, 'sha256:f1')], [], options, w.ports)
    expect(said).toBe(`signed with the key of 'signing-key' (${OURS.publicKey.shown})`)
    expect(w.lines).toContain(
      `frontend: signed ${digest} (${signatureTag(digest)}, fingerprint sha256:f1).`,
    )
    await signImages([image(digest, 'sha256:f1')], [], options, w.ports)
    expect(w.lines).toContain(
      `frontend: ${digest} is signed already under this key (${signatureTag(digest)}).`,
    )
    expect(w.registry.puts).toEqual([`PUT ${REPOSITORY}:${signatureTag(digest)}`])
  })

  test('another fingerprint is signed beside the first, another key’s signature kept', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', {})
    await sign(w, digest, OTHER)
    await signImages([image(digest, 'sha256:f2')], [], { signingKey: OURS, push: true }, w.ports)
    expect(w.lines).toContain(
      `frontend: signed ${digest} (${signatureTag(digest)}, fingerprint sha256:f2; 1 signature(s) under other keys kept).`,
    )
  })

  test('push false: nothing is signed, and the log says why', async () => {
    const w = world()
    const said = await signImages([image('')], [], { signingKey: OURS, push: false }, w.ports)
    expect(said).toBe("nothing signed ('push' is false)")
    expect(w.lines).toEqual([
      "Nothing is signed: 'push' is false, and only an image in a registry can carry a signature.",
    ])
  })

  test('a .sig tag that cannot take a signature fails the step, naming the image', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', {})
    w.registry.putIndex(REPOSITORY, signatureTag(digest), { 'linux/amd64': {} })
    const signing = signImages([image(digest)], [], { signingKey: OURS, push: true }, w.ports)
    await expect(signing).rejects.toThrow(ActionError)
    await expect(signing).rejects.toThrow(
      `Signing failed for 1 of 1 image(s); they are pushed and tagged, but a deploy that checks signatures ('verify-signatures') refuses them. Run the job again once the registry accepts the signatures:\n- frontend 'reg.example.com/${REPOSITORY}:main-1a2b3c4': its signatures could not be read ('${signatureTag(digest)}' is a 'application/vnd.oci.image.index.v1+json', not a signature manifest)`,
    )
  })
})

describe('signatureProof: reuse proof (a)', () => {
  const candidate = (w: World, digest: string, fingerprint: string): ReuseCandidate => ({
    kind: 'frontend',
    digest,
    fingerprint,
    session: w.session,
  })

  test('proven only by a signature under the key with this fingerprint on this digest', async () => {
    const w = world()
    const digest = w.registry.put(REPOSITORY, 'main', {})
    const moved = w.registry.put(REPOSITORY, 'moved', { labels: { b: '1' } })
    const proof = signatureProof(signerOf(OURS).verifier)
    const shown = `the key of 'signing-key' (${OURS.publicKey.shown})`
    expect(proof.name).toBe("a signature under 'signing-key'")
    expect(await proof.verify(candidate(w, digest, 'sha256:f1'))).toEqual({
      proven: false,
      said: `no signature (no '${signatureTag(digest)}' in its repository)`,
    })
    await sign(w, digest, OTHER, digest, { [FINGERPRINT]: 'sha256:f1' })
    expect(await proof.verify(candidate(w, digest, 'sha256:f1'))).toEqual({
      proven: false,
      said: `1 signature(s), none under ${shown}`,
    })
    await sign(w, digest, OURS, digest, { [FINGERPRINT]: 'sha256:f0' })
    expect(await proof.verify(candidate(w, digest, 'sha256:f1'))).toEqual({
      proven: false,
      said: `signed under ${shown}, but for another fingerprint than sha256:f1`,
    })
    await sign(w, digest, OURS, digest, { [FINGERPRINT]: 'sha256:f1' })
    expect(await proof.verify(candidate(w, digest, 'sha256:f1'))).toEqual({
      proven: true,
      said: `signed under ${shown}, fingerprint included`,
    })
    await sign(w, moved, OURS, digest, { [FINGERPRINT]: 'sha256:f1' })
    expect(await proof.verify(candidate(w, moved, 'sha256:f1'))).toEqual({
      proven: false,
      said: `a signature under ${shown} for another digest (${digest}), not ${moved}`,
    })
  })
})
