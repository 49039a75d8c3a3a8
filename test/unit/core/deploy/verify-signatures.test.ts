import { describe, expect, test } from '@jest/globals'
import { generateKeyPairSync } from 'node:crypto'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseDeployInputs } from '../../../../src/core/deploy/inputs.js'
import { signatureVerifier } from '../../../../src/core/deploy/signature-key.js'
import { verifyImages } from '../../../../src/core/deploy/verify-images.js'
import { withDefaults } from '../../../../src/core/definition.js'
import { deployDefinition } from '../../../../src/core/deploy/definition.js'
import { registryImage } from '../../../../src/core/registry/reference.js'
import { RegistrySession } from '../../../../src/core/registry/session.js'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import { ActionError, InputError } from '../../../../src/core/shared/errors.js'
import type { Logger } from '../../../../src/core/shared/ports.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { signatureTag, simpleSigningPayload } from '../../../../src/core/signing/cosign-layout.js'
import { openSigningKey } from '../../../../src/core/signing/private-key.js'
import { parsePublicKey } from '../../../../src/core/signing/public-key.js'
import { keySigner, keyVerifier } from '../../../../src/core/signing/signer.js'
import { addSignature, readSignatures } from '../../../../src/core/signing/signatures.js'
import { nodeFiles } from '../../../../src/tools/files.js'
import { withCleanup } from '../../../helpers/cleanup.js'
import { fakeNetwork, memoryRegistry, type FakeNetwork } from '../../../helpers/fake-registry.js'
import { memoryFiles } from '../../../helpers/memory-files.js'
import { recordingLogger } from '../../../helpers/recording.js'

const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const PUBLIC_PEM = pair.publicKey.export({ format: 'pem', type: 'spki' }).toString()
const opened = openSigningKey(
  pair.privateKey.export({ format: 'pem', type: 'sec1' }).toString(),
  '',
)
if (isProblem(opened)) throw new Error(opened.problem)
const SIGNING_KEY = opened
const publicKey = parsePublicKey(PUBLIC_PEM)
if (isProblem(publicKey)) throw new Error(publicKey.problem)
const VERIFIER = keyVerifier(publicKey, 'verify-signatures')
const REPOSITORY = 'shop/frontend'
const IMAGE = `reg.example.com/${REPOSITORY}:main`

/** The image check's ports: the fake network, nothing reported, no Docker config, the reader. */
function checkPorts(network: FakeNetwork, logger: Logger): Parameters<typeof verifyImages>[2] {
  return {
    ...network,
    logger,
    reporter: { setOutput: () => undefined, summary: () => Promise.resolve() },
    redact: (text: string) => text,
    registerSecret: () => undefined,
    files: memoryFiles({}),
    dockerConfigPath: '/nowhere/config.json',
    readSignatures,
  }
}

async function check(
  prepare: (registry: ReturnType<typeof memoryRegistry>, session: RegistrySession) => Promise<void>,
  verifyMode: 'auto' | 'true' = 'auto',
): Promise<{ error?: unknown; infos: string[] }> {
  const registry = memoryRegistry('https://reg.example.com')
  const network = fakeNetwork(registry.script)
  const { logger, lines: infos } = recordingLogger()
  const ports = checkPorts(network, logger)
  const target = registryImage(IMAGE)
  if (isProblem(target)) throw new Error(target.problem)
  const deadline = startDeadline(network.clock, 60)
  await prepare(registry, new RegistrySession(target, undefined, 'pull,push', deadline, ports, 1))
  try {
    await verifyImages(
      { frontend: { image: IMAGE } },
      {
        verifyImages: verifyMode,
        deadline,
        signatures: VERIFIER,
      },
      ports,
    )
    return { infos }
  } catch (error) {
    return { error, infos }
  }
}

async function signAs(
  session: RegistrySession,
  digest: string,
  claimed: string,
  key = SIGNING_KEY,
): Promise<void> {
  const payload = simpleSigningPayload(`reg.example.com/${REPOSITORY}`, claimed)
  const annotations = await keySigner(key.privateKey, key.publicKey, 'k').sign(Buffer.from(payload))
  expect(await addSignature(session, digest, undefined, payload, annotations)).toBeUndefined()
}

const HEADING =
  "The image check failed for 1 of 1 image(s), so the deployment was not requested ('verify-signatures' requires every image to be checked and signed):"

describe('the image check with verify-signatures', () => {
  test('a signed image passes, and the log says it is signed', async () => {
    let digest = ''
    const { error, infos } = await check(async (registry, session) => {
      digest = registry.put(REPOSITORY, 'main', {})
      await signAs(session, digest, digest)
    })
    expect(error).toBeUndefined()
    expect(infos).toContain(`frontend ${IMAGE}: found, ${digest}; signed`)
  })

  test('an unsigned image fails, naming it and what was found', async () => {
    let digest = ''
    const { error } = await check((registry) => {
      digest = registry.put(REPOSITORY, 'main', {})
      return Promise.resolve()
    })
    expect(error).toBeInstanceOf(ActionError)
    expect((error as Error).message).toBe(
      `${HEADING}\n- The frontend image '${IMAGE}' (${digest}) has no signature under ${VERIFIER.shown} (no '${signatureTag(digest)}' in its repository): sign it with the matching private key (build-images' 'signing-key', or \`cosign sign --key\`)`,
    )
  })

  test('a signature under another key fails', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const otherKey = openSigningKey(
      other.privateKey.export({ format: 'pem', type: 'sec1' }).toString(),
      '',
    )
    if (isProblem(otherKey)) throw new Error(otherKey.problem)
    let digest = ''
    const { error } = await check(async (registry, session) => {
      digest = registry.put(REPOSITORY, 'main', {})
      await signAs(session, digest, digest, otherKey)
    })
    expect((error as Error).message).toBe(
      `${HEADING}\n- The frontend image '${IMAGE}' (${digest}) carries 1 signature(s), none under ${VERIFIER.shown}: it was signed with another key; check that 'verify-signatures' holds the public key of build-images' 'signing-key'`,
    )
  })

  test('a signature made for another digest fails', async () => {
    let digest = ''
    const elsewhere = `sha256:${'e'.repeat(64)}`
    const { error } = await check(async (registry, session) => {
      digest = registry.put(REPOSITORY, 'main', {})
      await signAs(session, digest, elsewhere)
    })
    expect((error as Error).message).toBe(
      `${HEADING}\n- The frontend image '${IMAGE}' (${digest}) carries a signature under ${VERIFIER.shown} made for another image (${elsewhere}), not for this digest: a signature moved from another image proves nothing about this one`,
    )
  })

  test("a registry that cannot be asked fails under 'auto' too: nothing unchecked is deployed", async () => {
    const registry = memoryRegistry('https://other.example.com')
    const network = fakeNetwork(registry.script)
    const ports = checkPorts(network, recordingLogger().logger)
    const checking = verifyImages(
      { frontend: { image: IMAGE } },
      {
        verifyImages: 'auto',
        deadline: startDeadline(network.clock, 60),
        signatures: VERIFIER,
      },
      ports,
    )
    await expect(checking).rejects.toThrow(
      `${HEADING}\n- The frontend image '${IMAGE}' could not be checked in registry 'reg.example.com': the host name could not be resolved (ENOTFOUND) (3 attempts)`,
    )
  })
})

describe("'verify-signatures': its text, or a file in the workspace", () => {
  const parse = (inputs: Record<string, string>): ReturnType<typeof parseDeployInputs> =>
    parseDeployInputs(
      withDefaults(deployDefinition, {
        'webhook-url': 'https://hooks.example.com/deploy',
        'webhook-token': 'token-123456',
        ...inputs,
      }),
    )

  test('PEM text is read with the inputs; a path is kept for the run', () => {
    expect(parse({ 'verify-signatures': PUBLIC_PEM }).verifySignatures).toEqual({
      key: { key: expect.anything(), shown: publicKey.shown },
    })
    expect(parse({ 'verify-signatures': 'keys/cosign.pub' }).verifySignatures).toEqual({
      path: 'keys/cosign.pub',
    })
  })

  test("with 'verify-images: false', refused", () => {
    expect(() => parse({ 'verify-signatures': PUBLIC_PEM, 'verify-images': 'false' })).toThrow(
      new InputError(
        'verify-images',
        "Invalid input 'verify-images' 'false': is false, but 'verify-signatures' is set, and the signatures are checked during the image check; set 'verify-images' to 'true' (or 'auto', which then acts as 'true'), or leave 'verify-signatures' empty.",
      ),
    )
  })

  test('a file in the workspace is read; a link leading outside it is refused', async () => {
    await withCleanup(async (cleanup) => {
      const root = await cleanup.tempDir('olympe-verify-key-')
      const workspace = join(root, 'workspace')
      await mkdir(join(workspace, 'keys'), { recursive: true })
      await writeFile(join(workspace, 'keys/cosign.pub'), PUBLIC_PEM)
      await writeFile(join(root, 'outside.pub'), PUBLIC_PEM)
      await symlink('../../outside.pub', join(workspace, 'keys/link.pub'))
      const verifier = await signatureVerifier({ path: 'keys/cosign.pub' }, workspace, nodeFiles)
      expect(verifier.shown).toBe(VERIFIER.shown)
      await expect(
        signatureVerifier({ path: 'keys/link.pub' }, workspace, nodeFiles),
      ).rejects.toThrow(
        new InputError(
          'verify-signatures',
          `Invalid input 'verify-signatures' 'keys/link.pub': it resolves to '${join(root, 'outside.pub')}', outside the workspace '${workspace}'; keep the public key in the repository, or give its PEM text.`,
        ),
      )
      await expect(
        signatureVerifier({ path: '../outside.pub' }, workspace, nodeFiles),
      ).rejects.toThrow('it resolves to')
      await expect(signatureVerifier({ path: 'keys' }, workspace, nodeFiles)).rejects.toThrow(
        "Invalid input 'verify-signatures' 'keys': it is not a regular file; give the path of the public key (cosign.pub).",
      )
    })
  })
})
