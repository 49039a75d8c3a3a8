// Attestations against the real cosign binary (Debian's cosign 2.5, no transparency log) and the
// real distribution registry with basic auth: the provenance and SBOM our library attaches,
// `cosign verify-attestation --key` accepts (as slsaprovenance1 and cyclonedx); and deploy, run
// from the bundle as the GitHub runner runs it with 'require-provenance', sends the image that
// carries our provenance and refuses, before any POST, an image signed by `cosign sign` without
// one, one whose provenance (made by `cosign attest`) names another repository, and one whose
// provenance was made for another digest.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { attachAttestations } from '../../src/core/attestations/attach.js'
import { readLockFile } from '../../src/core/attestations/lock-file.js'
import { cycloneDxSbom } from '../../src/core/attestations/sbom.js'
import { registryImage } from '../../src/core/registry/reference.js'
import { RegistrySession } from '../../src/core/registry/session.js'
import { startDeadline } from '../../src/core/shared/deadline.js'
import { isProblem } from '../../src/core/shared/problem.js'
import { openSigningKey } from '../../src/core/signing/private-key.js'
import { keySigner } from '../../src/core/signing/signer.js'
import { systemClock } from '../../src/tools/clock.js'
import { createHttpClient } from '../../src/tools/http.js'
import { frontendFacts, SECRET_BUILD_ARG, SECRET_INPUT } from '../helpers/attestations.js'
import { BASE_IMAGES, pushImage } from '../helpers/docker-env.js'
import { useDockerSuite } from '../helpers/docker-suite.js'
import type { RunResult } from '../helpers/run-action.js'
import { capture } from '../helpers/run-process.js'
import { keyPairSecrets, pinnedOf, useCosignDeploys } from '../helpers/cosign.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { useCleanup } from '../helpers/suite.js'

const KEY_PASSWORD = `cosign-pw-${randomBytes(8).toString('hex')}`
const WEBHOOK_TOKEN = 'attestations-webhook-token-7c1d'
const THIS_REPOSITORY = 'https://github.com/acme/shop'
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json'
const SRI =
  'sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=='
/** A project's lock file: one package that ships, one for development only. */
const LOCK = JSON.stringify({
  name: 'shop',
  lockfileVersion: 3,
  packages: {
    '': { name: 'shop', version: '1.0.0' },
    'node_modules/@olympeio/runtime-node': { version: '9.8.1', integrity: SRI },
    'node_modules/webpack': { version: '5.99.0', dev: true },
  },
})

const images: Record<string, { reference: string; digest: string }> = {}
const captured: Record<string, string> = {}
const cleanup = useCleanup(60_000)
const suite = useDockerSuite(cleanup)
/** cosign, and the key pair it made that the deploy runs trust (`cosign.pub`). */
const {
  cosign,
  trusted: pair,
  push,
  deploy: deployRun,
} = useCosignDeploys(cleanup, suite, {
  namespace: 'att',
  images,
  trusted: { label: 'attest', password: KEY_PASSWORD },
  webhookToken: WEBHOOK_TOKEN,
  captured,
})

beforeAll(async () => {
  await push('frontend:ours', BASE_IMAGES.frontend)
  await push('frontend:bare', BASE_IMAGES.codeasdata)
  await push('frontend:elsewhere', BASE_IMAGES.backend)
  // Another image than frontend:ours in the same repository: its base with a label of its own.
  await pushLabelled('frontend:moved', BASE_IMAGES.frontend)
  // Every image is signed by the real `cosign sign`: what is checked here is the provenance.
  for (const name of Object.keys(images)) {
    const signed = await cosign.sign(pair, KEY_PASSWORD, pinned(name))
    expect({ name, code: signed.code }).toEqual({ name, code: 0 })
  }
}, 240_000)

/** `docker build` of `FROM <source>` with a label naming it, pushed as `att/<name>`. */
async function pushLabelled(name: string, source: string): Promise<void> {
  const reference = `${suite.registry.host}/att/${name}`
  const context = await cleanup.tempDir('olympe-attest-build-')
  await writeFile(join(context, 'Dockerfile'), `FROM ${source}\nLABEL olympe.test.copy=${name}\n`)
  const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
  const built = await capture('docker', ['build', '--quiet', '-t', reference, context], {
    env,
    timeoutMs: 120_000,
  })
  if (built.code !== 0) throw new Error(`docker build failed: ${built.stderr}`)
  images[name] = { reference, digest: await pushImage(reference, reference, { env }) }
}

/** `cosign verify-attestation --key`, offline, against the loopback registry. */
async function verifyAttestation(
  type: string,
  name: string,
): Promise<{ code: number | null; statements: Array<Record<string, unknown>>; output: string }> {
  const verified = await cosign.verifyAttestation(
    join(pair.folder, 'cosign.pub'),
    type,
    pinned(name),
  )
  captured[`cosign verify-attestation ${type} ${name}`] = verified.output
  return verified
}

const pinned = (name: string): string =>
  pinnedOf(images[name] as { reference: string; digest: string })
const digestOf = (name: string): string => (images[name] as { digest: string }).digest
const referenceOf = (name: string): string => (images[name] as { reference: string }).reference

/** Our library, in this process: the provenance and the SBOM of an image, in one write. */
async function attachOurs(name: string): Promise<void> {
  const key = openSigningKey(pair.key, KEY_PASSWORD)
  if (isProblem(key)) throw new Error(key.problem)
  const target = registryImage(referenceOf(name))
  if (isProblem(target)) throw new Error(target.problem)
  const { user, password } = suite.registry
  const session = new RegistrySession(
    target,
    { username: user, password, source: 'the test registry login' },
    'pull,push',
    startDeadline(systemClock, 60),
    {
      http: createHttpClient('olympe-deploy-actions-test'),
      clock: systemClock,
      registerSecret: () => undefined,
      redact: (text) => text,
    },
  )
  const lockFile = readLockFile('package-lock.json', LOCK)
  if (isProblem(lockFile)) throw new Error(lockFile.problem)
  const base = `${suite.registry.host}/att/frontend:bare`
  const attached = await attachAttestations(
    { reference: referenceOf(name), digest: digestOf(name) },
    frontendFacts({
      lockFile,
      baseImages: [{ reference: base, digest: digestOf('frontend:bare') }],
    }),
    keySigner(key.privateKey, key.publicKey, 'signing-key'),
    { session, cycloneDx: cycloneDxSbom },
  )
  if (isProblem(attached)) throw new Error(attached.problem)
  captured[`attached ${name}`] = JSON.stringify(attached)
}

/** deploy of `name`, requiring its provenance, from this repository on GitHub. */
function deploy(label: string, name: string): Promise<{ run: RunResult; posts: number }> {
  return deployRun(
    label,
    { 'require-provenance': 'true', 'frontend-image': referenceOf(name) },
    { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/shop' },
  )
}

describe('our attestations, checked by cosign verify-attestation --key', () => {
  test('the provenance and the SBOM our library attaches: cosign accepts both types, and they say what was built from what', async () => {
    await attachOurs('frontend:ours')
    const provenance = await verifyAttestation('slsaprovenance1', 'frontend:ours')
    expect({
      code: provenance.code,
      output: provenance.code === 0 ? '' : provenance.output,
    }).toEqual({ code: 0, output: '' })
    expect(provenance.output).toContain(
      'The signatures were verified against the specified public key',
    )
    expect(provenance.statements).toEqual([
      expect.objectContaining({
        _type: 'https://in-toto.io/Statement/v1',
        predicateType: 'https://slsa.dev/provenance/v1',
        subject: [
          {
            name: `${suite.registry.host}/att/frontend`,
            digest: { sha256: digestOf('frontend:ours').slice(7) },
          },
        ],
        predicate: expect.objectContaining({
          buildDefinition: expect.objectContaining({
            externalParameters: expect.objectContaining({ repository: THIS_REPOSITORY }),
            resolvedDependencies: expect.arrayContaining([
              {
                uri: `git+${THIS_REPOSITORY}@refs/heads/main`,
                digest: { gitCommit: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d' },
              },
              {
                name: `${suite.registry.host}/att/frontend:bare`,
                digest: { sha256: digestOf('frontend:bare').slice(7) },
              },
            ]),
          }),
        }),
      }),
    ])

    const sbom = await verifyAttestation('cyclonedx', 'frontend:ours')
    expect({ code: sbom.code, output: sbom.code === 0 ? '' : sbom.output }).toEqual({
      code: 0,
      output: '',
    })
    const bom = sbom.statements[0]?.predicate as { components: Array<{ purl: string }> }
    expect(bom.components.map((each) => each.purl)).toEqual(
      expect.arrayContaining([
        'pkg:npm/%40olympeio/runtime-node@9.8.1',
        'pkg:npm/%40olympeio/draw@2.11.3',
      ]),
    )
    expect(bom.components.map((each) => each.purl)).not.toContain('pkg:npm/webpack@5.99.0')
    // What cosign printed is the whole of both documents: no value of a build argument or input.
    expectNoSecrets({ provenance: provenance.output, sbom: sbom.output }, [
      SECRET_BUILD_ARG,
      SECRET_INPUT,
    ])
  }, 120_000)
})

describe('deploy with require-provenance, against cosign', () => {
  test('the image with our provenance is accepted: one POST, the log names the repository', async () => {
    const { run, posts } = await deploy('accepted', 'frontend:ours')
    expect({ code: run.code, posts, tail: run.code === 0 ? '' : run.stdout.slice(-2000) }).toEqual({
      code: 0,
      posts: 1,
      tail: '',
    })
    expect(run.stdout).toContain(
      `frontend ${referenceOf('frontend:ours')}: found, ${digestOf('frontend:ours')}; signed; provenance from ${THIS_REPOSITORY}`,
    )
  }, 120_000)

  const refusals = [
    {
      name: 'an image signed by cosign sign, without provenance',
      image: 'frontend:bare',
      prepare: (): Promise<void> => Promise.resolve(),
      problem: (key: string): string =>
        `has no provenance (no '${digestOf('frontend:bare').replace(':', '-')}.att' in its repository): 'require-provenance' asks for a SLSA provenance under the key of 'verify-signatures' (${key}), which build-images attaches to each image it builds with 'signing-key' (see its 'attestations' input); an image built without one gets it when build-images builds it again, or from \`cosign attest --key cosign.key --type slsaprovenance1\` (see the provenance guide)`,
      cosignAccepts: false,
    },
    {
      name: 'a provenance made by cosign attest that names another repository',
      image: 'frontend:elsewhere',
      prepare: async (): Promise<void> => {
        const predicate = join(pair.folder, 'elsewhere.json')
        await writeFile(
          predicate,
          JSON.stringify({
            buildDefinition: {
              buildType: 'https://example.com/another-builder',
              externalParameters: { repository: 'https://github.com/mallory/shop' },
            },
            runDetails: { builder: { id: 'https://example.com/builder' } },
          }),
        )
        const attested = await cosign.attest(pair, KEY_PASSWORD, {
          type: 'slsaprovenance1',
          predicate,
          reference: pinned('frontend:elsewhere'),
        })
        captured['cosign attest elsewhere'] = attested.output
        expect(attested.code).toBe(0)
      },
      problem: (key: string): string =>
        `carries a provenance under the key of 'verify-signatures' (${key}) that names the repository 'https://github.com/mallory/shop', and 'require-provenance' accepts only '${THIS_REPOSITORY}'`,
      // cosign checks the key and the digest, not where the image was built from: the policy is ours.
      cosignAccepts: true,
    },
    {
      name: 'a provenance made for another digest',
      image: 'frontend:moved',
      prepare: async (): Promise<void> => {
        // The .att manifest of frontend:ours, put under the tag of frontend:moved's digest.
        const basic = `Basic ${Buffer.from(`${suite.registry.user}:${suite.registry.password}`).toString('base64')}`
        const at = (digest: string): string =>
          `${suite.registry.url}/v2/att/frontend/manifests/${digest.replace(':', '-')}.att`
        const got = await fetch(at(digestOf('frontend:ours')), {
          headers: { Accept: OCI_MANIFEST, Authorization: basic },
        })
        expect(got.status).toBe(200)
        const put = await fetch(at(digestOf('frontend:moved')), {
          method: 'PUT',
          headers: { 'Content-Type': OCI_MANIFEST, Authorization: basic },
          body: await got.text(),
        })
        expect(put.status).toBe(201)
      },
      problem: (key: string): string =>
        `carries a provenance under the key of 'verify-signatures' (${key}) made for another image (${digestOf('frontend:ours')}), not for this digest: a provenance moved from another image proves nothing about this one`,
      cosignAccepts: false,
    },
  ]

  test.each(refusals)(
    '$name is refused before any POST',
    async ({ name, image, prepare, problem, cosignAccepts }) => {
      await prepare()
      const verified = await verifyAttestation('slsaprovenance1', image)
      expect({ cosignAccepts: verified.code === 0 }).toEqual({ cosignAccepts })
      const { run, posts } = await deploy(name, image)
      expect({ code: run.code, posts }).toEqual({ code: 1, posts: 0 })
      const key = /\(ECDSA P-256 key sha256:[0-9a-f]{16}\)/.exec(run.stdout)?.[0] ?? ''
      expect(run.stdout).toContain(
        `The image check failed for 1 of 1 image(s), so the deployment was not requested ('verify-signatures' and 'require-provenance' require every image to be checked, signed and attested):%0A- The frontend image '${referenceOf(image)}' (${digestOf(image)}) ${problem(key.slice(1, -1))}`,
      )
    },
    120_000,
  )
})

// Last: every run above, and what cosign printed.
describe('leaks', () => {
  test('no capture holds the signing key, its password or its PEM body', () => {
    expect(Object.keys(captured).length).toBeGreaterThan(8)
    expectNoSecrets(captured, keyPairSecrets(pair, KEY_PASSWORD))
  })
})
