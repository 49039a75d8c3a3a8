// A signing key, and a registry in memory with a session on one repository, for the tests of
// the signing library and of build-images' use of it (its signing, its reuse proof).
import { expect } from '@jest/globals'
import { generateKeyPairSync } from 'node:crypto'
import type { RegistrySession } from '../../src/core/registry/session.js'
import { isProblem } from '../../src/core/shared/problem.js'
import { simpleSigningPayload } from '../../src/core/signing/cosign-layout.js'
import { openSigningKey, type SigningKey } from '../../src/core/signing/private-key.js'
import type { SignPorts } from '../../src/core/signing/sign-images.js'
import { keySigner, type Signer } from '../../src/core/signing/signer.js'
import { addSignature, readSignatures } from '../../src/core/signing/signatures.js'
import { registryWorld } from './attestations.js'
import type { MemoryRegistry } from './fake-registry.js'
import { recordingLogger } from './recording.js'

const ORIGIN = 'https://reg.example.com'
export const REPOSITORY = 'acme/shop/frontend'
/** The fingerprint label, spelt out: what a signature's payload carries. */
export const FINGERPRINT = 'io.olympe.deploy-actions.fingerprint'

export function newKey(): SigningKey {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const key = openSigningKey(pair.privateKey.export({ format: 'pem', type: 'sec1' }).toString(), '')
  if (isProblem(key)) throw new Error(key.problem)
  return key
}
export const OURS = newKey()
export const OTHER = newKey()
export const signerOf = (key: SigningKey): Signer =>
  keySigner(key.privateKey, key.publicKey, 'signing-key')

export interface World {
  registry: MemoryRegistry
  session: RegistrySession
  ports: SignPorts
  lines: string[]
}

export function world(): World {
  const { registry, session, ports } = registryWorld(ORIGIN, REPOSITORY, 30)
  const { logger, lines } = recordingLogger()
  return { registry, session, ports: { ...ports, logger }, lines }
}

export async function sign(
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
