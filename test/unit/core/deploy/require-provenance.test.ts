import { describe, expect, test } from '@jest/globals'
import { IN_TOTO_PAYLOAD_TYPE, seal } from '../../../../src/core/attestations/dsse.js'
import {
  attestationLayer,
  attestationTag,
  SLSA_PROVENANCE_V1,
} from '../../../../src/core/attestations/layout.js'
import { readProvenance } from '../../../../src/core/attestations/provenance-check.js'
import { imageSubject, statementText } from '../../../../src/core/attestations/statement.js'
import { withDefaults } from '../../../../src/core/definition.js'
import { deployDefinition } from '../../../../src/core/deploy/definition.js'
import { parseDeployInputs } from '../../../../src/core/deploy/inputs.js'
import { verifyImages } from '../../../../src/core/deploy/verify-images.js'
import type { RegistrySession } from '../../../../src/core/registry/session.js'
import { startDeadline } from '../../../../src/core/shared/deadline.js'
import { ActionError, InputError } from '../../../../src/core/shared/errors.js'
import { blobOf, simpleSigningPayload } from '../../../../src/core/signing/cosign-layout.js'
import { appendToCosignManifest } from '../../../../src/core/signing/cosign-manifest.js'
import type { Signer } from '../../../../src/core/signing/signer.js'
import { addSignature, readSignatures } from '../../../../src/core/signing/signatures.js'
import { newSigningKey, registryWorld, signerOf } from '../../../helpers/attestations.js'
import { recordingLogger } from '../../../helpers/recording.js'

const KEY = newSigningKey()
const OURS = signerOf(KEY)
const OTHER = signerOf(newSigningKey())
const VERIFIER = { ...OURS.verifier, shown: "the key of 'verify-signatures' (k)" }
const PUBLIC_PEM = KEY.publicKey.key.export({ format: 'pem', type: 'spki' }).toString()
const REPOSITORY = 'shop/frontend'
const IMAGE = `reg.example.com/${REPOSITORY}:main`
const THIS = 'https://github.com/acme/shop'

const parse = (
  inputs: Record<string, string>,
  repositoryUrl?: string,
): ReturnType<typeof parseDeployInputs> =>
  parseDeployInputs(
    withDefaults(deployDefinition, {
      'webhook-url': 'https://hooks.example.com/deploy',
      'webhook-token': 'token-123456',
      'verify-signatures': PUBLIC_PEM,
      ...inputs,
    }),
    undefined,
    { platform: 'github', ...(repositoryUrl ? { repositoryUrl } : {}) },
  )

describe("'require-provenance': the repositories whose provenance deploy accepts", () => {
  test.each([
    ['false', undefined],
    ['', undefined],
    ['true', [THIS]],
    ['TRUE', [THIS]],
    [
      'https://github.com/acme/shop, https://gitlab.example.com/group/shop\nhttp://git.internal:8080/a/b',
      [
        'https://github.com/acme/shop',
        'https://gitlab.example.com/group/shop',
        'http://git.internal:8080/a/b',
      ],
    ],
  ])('%j: %j', (raw, repositories) => {
    expect(parse({ 'require-provenance': raw }, THIS).provenanceRepositories).toEqual(repositories)
  })

  const EXPECTED =
    "expected 'false', 'true' (the provenance must name this repository), or the addresses of the repositories whose provenance is accepted, one per line or comma-separated; each the address of a repository's web page, such as 'https://github.com/acme/shop' or 'https://gitlab.example.com/group/project' (no credentials, query or fragment)"

  test.each([
    ['yes', "'yes' is not an absolute URL"],
    [
      'ssh://git@github.com/acme/shop',
      "'ssh://git@github.com/acme/shop' is not an http(s) address",
    ],
    ['https://github.com', "'https://github.com' names a host and no repository"],
    [
      'https://bot:tok@github.com/acme/shop',
      "'github.com…' carries credentials, a query or a fragment",
    ],
  ])('%j: refused, saying why and what is expected', (raw, problem) => {
    expect(() => parse({ 'require-provenance': raw }, THIS)).toThrow(
      new InputError(
        'require-provenance',
        `Invalid input 'require-provenance' '${raw}': ${problem}; ${EXPECTED}.`,
      ),
    )
  })

  test("without 'verify-signatures': refused in the check phase", () => {
    expect(() => parse({ 'require-provenance': 'true', 'verify-signatures': '' }, THIS)).toThrow(
      new InputError(
        'require-provenance',
        "Invalid input 'require-provenance' 'true': is set, but 'verify-signatures' is empty: a provenance proves where an image was built only under the key that signed it; give 'verify-signatures' the public key (cosign.pub) whose private key attests the images, or set 'require-provenance' to false.",
      ),
    )
  })

  test('true where the run does not know its repository: refused, saying what to give', () => {
    expect(() => parse({ 'require-provenance': 'true' })).toThrow(
      new InputError(
        'require-provenance',
        "Invalid input 'require-provenance' 'true': is true, but this run's repository is unknown (GITHUB_SERVER_URL and GITHUB_REPOSITORY are not set); give the addresses of the repositories whose provenance is accepted instead, such as 'https://github.com/acme/shop'.",
      ),
    )
  })
})

/** The image, signed under our key, and whatever `prepare` attests. */
async function check(
  prepare: (session: RegistrySession, digest: string) => Promise<void>,
  repositories = [THIS],
): Promise<{ error?: unknown; lines: string[]; digest: string }> {
  const w = registryWorld('https://reg.example.com', REPOSITORY)
  const digest = w.registry.put(REPOSITORY, 'main', {})
  const payload = simpleSigningPayload(`reg.example.com/${REPOSITORY}`, digest)
  const signature = await OURS.sign(Buffer.from(payload))
  expect(await addSignature(w.session, digest, undefined, payload, signature)).toBeUndefined()
  await prepare(w.session, digest)
  const { logger, lines } = recordingLogger()
  try {
    await verifyImages(
      { frontend: { image: IMAGE } },
      {
        verifyImages: 'auto',
        deadline: startDeadline(w.ports.clock, 60),
        signatures: VERIFIER,
        provenance: { repositories, read: readProvenance },
      },
      {
        ...w.ports,
        logger,
        reporter: { setOutput: () => undefined, summary: () => Promise.resolve() },
        redact: (text) => text,
        readSignatures,
      },
    )
    return { lines, digest }
  } catch (error) {
    return { error, lines, digest }
  }
}

async function attest(
  session: RegistrySession,
  digest: string,
  repository: string,
  options: { signer?: Signer; subject?: string } = {},
): Promise<void> {
  const statement = statementText(
    imageSubject(`reg.example.com/${REPOSITORY}`, options.subject ?? digest),
    SLSA_PROVENANCE_V1,
    {
      buildDefinition: { externalParameters: { repository } },
    },
  )
  const sealed = await seal(statement, IN_TOTO_PAYLOAD_TYPE, options.signer ?? OURS)
  const blob = blobOf(sealed.text)
  const layer = attestationLayer(blob, SLSA_PROVENANCE_V1, sealed.annotations)
  expect(
    await appendToCosignManifest(session, attestationTag(digest), undefined, [{ blob, layer }], {
      blob: 'envelope',
      manifest: 'attestation',
    }),
  ).toBeUndefined()
}

const HEADING =
  "The image check failed for 1 of 1 image(s), so the deployment was not requested ('verify-signatures' and 'require-provenance' require every image to be checked, signed and attested):"

describe('the image check with require-provenance', () => {
  test('a provenance under the key, for the digest, of this repository: passes, and the log says so', async () => {
    const { error, lines, digest } = await check((session, digest) => attest(session, digest, THIS))
    expect(error).toBeUndefined()
    expect(lines).toContain(`frontend ${IMAGE}: found, ${digest}; signed; provenance from ${THIS}`)
  })

  test.each([
    [
      'no provenance',
      (): Promise<void> => Promise.resolve(),
      (digest: string) =>
        `has no provenance (no '${attestationTag(digest)}' in its repository): 'require-provenance' asks for a SLSA provenance under ${VERIFIER.shown}, such as \`cosign attest --key cosign.key --type slsaprovenance1\` attaches (see the provenance guide)`,
    ],
    [
      'a provenance under another key',
      (session: RegistrySession, digest: string) =>
        attest(session, digest, THIS, { signer: OTHER }),
      () =>
        `carries 1 provenance(s), none under ${VERIFIER.shown}: it was attested with another key`,
    ],
    [
      'a provenance of another repository',
      (session: RegistrySession, digest: string) =>
        attest(session, digest, 'https://github.com/mallory/shop'),
      () =>
        `carries a provenance under ${VERIFIER.shown} that names the repository 'https://github.com/mallory/shop', and 'require-provenance' accepts only '${THIS}'`,
    ],
    [
      'a provenance made for another digest',
      (session: RegistrySession, digest: string) =>
        attest(session, digest, THIS, { subject: `sha256:${'e'.repeat(64)}` }),
      () =>
        `carries a provenance under ${VERIFIER.shown} made for another image (sha256:${'e'.repeat(64)}), not for this digest: a provenance moved from another image proves nothing about this one`,
    ],
  ])(
    '%s: refused before the webhook, naming the image and why',
    async (_name, prepare, problem) => {
      const { error, digest } = await check(prepare)
      expect(error).toBeInstanceOf(ActionError)
      expect((error as Error).message).toBe(
        `${HEADING}\n- The frontend image '${IMAGE}' (${digest}) ${problem(digest)}`,
      )
    },
  )
})
