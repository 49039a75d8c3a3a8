// The attestation phase of build-images, over the fake builder and a registry held in memory:
import { createHash } from 'node:crypto'
// what each image built is attested with, what a reused image keeps, and when a candidate is built
// again; the documents read back as `cosign verify-attestation --key` reads them.
import { describe, expect, test } from '@jest/globals'
import { attachAttestations } from '../../../../../src/core/attestations/attach.js'
import { readLockFile } from '../../../../../src/core/attestations/lock-file.js'
import { readAttestations } from '../../../../../src/core/attestations/read.js'
import { SLSA_PROVENANCE_V1 } from '../../../../../src/core/attestations/layout.js'
import { cycloneDxSbom } from '../../../../../src/core/attestations/sbom.js'
import { checkBuildImages } from '../../../../../src/core/build-images/check.js'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../../../../../src/core/build-images/definition.js'
import { runBuildImages } from '../../../../../src/core/build-images/run.js'
import { signImages } from '../../../../../src/core/build-images/sign.js'
import { withDefaults } from '../../../../../src/core/definition.js'
import { inputsLogin } from '../../../../../src/core/registry/logins.js'
import { registryImage } from '../../../../../src/core/registry/reference.js'
import { RegistrySession } from '../../../../../src/core/registry/session.js'
import type { CiContext } from '../../../../../src/core/shared/context.js'
import { startDeadline } from '../../../../../src/core/shared/deadline.js'
import { FINGERPRINT_LABEL } from '../../../../../src/core/shared/image-labels.js'
import { isProblem } from '../../../../../src/core/shared/problem.js'
import { keyVerifier } from '../../../../../src/core/signing/signer.js'
import { newSigningKey, shopLockFile, signerOf } from '../../../../helpers/attestations.js'
import { fakeDocker, type FakeDocker } from '../../../../helpers/docker-fake.js'
import {
  fakeNetwork,
  memoryRegistry,
  respond,
  type MemoryRegistry,
  type RegistryScript,
} from '../../../../helpers/fake-registry.js'
import { writableMemoryFiles } from '../../../../helpers/memory-files.js'
import { buildImagesPorts, PUSH_TO_MAIN } from '../../../../helpers/unit-fakes.js'
import { expectNoSecrets } from '../../../../helpers/secrets.js'

const KEY = newSigningKey()
const PEM = KEY.privateKey.export({ format: 'pem', type: 'sec1' }).toString()
const PASSWORD = 'pw-123456'
const BASIC = `Basic ${Buffer.from(`ci:${PASSWORD}`).toString('base64')}`
const SECRET_ARG = 'npm_arg_value_5c2e'
const SECRET = 'npm_secret_value_8d4f'
const SHA1 = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'
const SHA2 = '5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80'
const LOCK = shopLockFile()
const dockerfile = (base: string): string =>
  `FROM r.io/${base}:stable\nARG SOURCES_PATH\nCOPY $SOURCES_PATH /app\n`
const PROJECT: Record<string, string> = {
  '/p/docker/frontend.Dockerfile': dockerfile('frontend-base'),
  '/p/docker/backend.Dockerfile': dockerfile('backend-base'),
  '/p/dist/web/index.html': '<html>',
  '/p/dist/web/version.json': '{"version":"1.4.0"}',
  '/p/dist/node/main.js': 'console.log(1)',
  '/p/dist/api/main.js': 'console.log("api")',
  '/p/dist/jobs/main.js': 'console.log("jobs")',
  '/p/package.json': '{"version":"1.4.0"}',
  '/p/package-lock.json': LOCK,
  '/p/node_modules/@olympeio/draw/package.json': '{"version":"2.11.3"}',
}
const REPOSITORY = 'https://github.com/acme/shop'
const CONTEXT: CiContext = {
  ...PUSH_TO_MAIN,
  ref: 'refs/heads/main',
  repositoryUrl: REPOSITORY,
  workflow: 'acme/shop/.github/workflows/images.yml@refs/heads/main',
  builderId: `${REPOSITORY}/.github/workflows/images.yml@refs/heads/main`,
  runUrl: `${REPOSITORY}/actions/runs/7/attempts/1`,
}
const LOGIN = { 'registry-username': 'ci', 'registry-password': PASSWORD }
const GIVEN: Partial<Record<BuildImagesInputName, string>> = {
  registry: 'r.io',
  ...LOGIN,
  'signing-key': PEM,
  'build-args': `NPM_CONFIG_TOKEN=${SECRET_ARG}`,
  'build-secrets': `NPM_TOKEN=${SECRET}`,
}

/** A registry at https://r.io that holds the base images and needs the login. */
function registryWithBases(): MemoryRegistry {
  const registry = memoryRegistry('https://r.io', BASIC)
  registry.put('frontend-base', 'stable', {})
  registry.put('backend-base', 'stable', {})
  return registry
}

interface Ran {
  docker: FakeDocker
  lines: string[]
  outputs: Record<string, string>
  rows: Array<[string, string]>
  written: Record<string, string>
  sbomWriters: number
  error?: unknown
}

async function run(
  registry: { script: RegistryScript },
  options: { given?: Partial<Record<BuildImagesInputName, string>>; sha?: string } = {},
): Promise<Ran> {
  const docker = fakeDocker({ server: '26.1.5' })
  const files = writableMemoryFiles(PROJECT)
  const ports = buildImagesPorts(docker, files, { network: fakeNetwork(registry.script) })
  let sbomWriters = 0
  const counted = {
    ...ports,
    cycloneDx: () => {
      sbomWriters++
      return ports.cycloneDx()
    },
  }
  const context = { ...CONTEXT, sha: options.sha ?? SHA1 }
  const raw = withDefaults(buildImagesDefinition, { ...GIVEN, ...options.given })
  const ran = (error?: unknown): Ran => ({
    docker,
    lines: ports.lines,
    outputs: ports.outputs,
    rows: ports.summaries[0]?.rows ?? [],
    written: files.written,
    sbomWriters,
    ...(error === undefined ? {} : { error }),
  })
  try {
    await runBuildImages(
      await checkBuildImages(raw, context, counted, {
        openSigningKey: (await import('../../../../../src/core/signing/private-key.js'))
          .openSigningKey,
      }),
      context,
      counted,
    )
    return ran()
  } catch (error) {
    return ran(error)
  }
}

/** A session on `r.io/<repository>` with the login, as a verifier or the earlier run has it. */
function sessionOn(registry: MemoryRegistry, repository: string): RegistrySession {
  const network = fakeNetwork(registry.script)
  const target = registryImage(`r.io/${repository}:main`)
  if (isProblem(target)) throw new Error(target.problem)
  return new RegistrySession(
    target,
    { username: 'ci', password: PASSWORD, source: 'the test' },
    'pull,push',
    startDeadline(network.clock, 60),
    { ...network, registerSecret: () => undefined, redact: (text) => text },
  )
}

/** The statements of a type that verify under the key, for the digest, as cosign reads them. */
async function statementsOf(
  registry: MemoryRegistry,
  kind: string,
  digest: string,
  type: string,
): Promise<Array<Record<string, unknown>>> {
  const read = await readAttestations(
    sessionOn(registry, `acme/shop/${kind}`),
    digest,
    type,
    keyVerifier(KEY.publicKey, 'signing-key'),
  )
  return read.kind === 'read' ? read.statements.map((statement) => ({ ...statement })) : []
}

const attestationPuts = (registry: MemoryRegistry): string[] =>
  registry.puts.filter((put) => put.endsWith('.att'))

describe('build-images attests each image it builds', () => {
  test('with a key, by default: a provenance and an SBOM per image, after the signatures; the SBOMs in olympe-sbom', async () => {
    const registry = registryWithBases()
    const ran = await run(registry)
    expect(ran.error).toBeUndefined()
    const groups = ran.lines.filter((line) => line.startsWith('group: '))
    expect(groups.slice(-2)).toEqual(['group: Image signatures', 'group: Image attestations'])
    const digest = ran.outputs['frontend-digest'] ?? ''
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    const phase = ran.lines.slice(ran.lines.indexOf('group: Image attestations') + 1)
    expect(phase).toEqual([
      `From the lock file 'package-lock.json' (sha256:${createHashOf(LOCK)}): 1 npm package(s) that are not development-only.`,
      expect.stringMatching(
        /^Attesting with the key of 'signing-key' \(ECDSA P-256 key sha256:[0-9a-f]{16}\): SLSA provenance and CycloneDX SBOM of each image built\.$/,
      ),
      "Registry 'r.io': asked with the login from 'registry-username' and 'registry-password'.",
      `frontend: attested ${digest} (${digest.replace(':', '-')}.att): SLSA provenance (commit ${SHA1}, 1 base image(s)), CycloneDX SBOM (1 base image(s), 1 npm package(s)).`,
      `backend: attested ${ran.outputs['backend-digest'] ?? ''} (${(ran.outputs['backend-digest'] ?? '').replace(':', '-')}.att): SLSA provenance (commit ${SHA1}, 1 base image(s)), CycloneDX SBOM (1 base image(s), 1 npm package(s)).`,
      'SBOMs written: olympe-sbom/gl-sbom-frontend.cdx.json, olympe-sbom/gl-sbom-backend.cdx.json.',
    ])
    expect(attestationPuts(registry)).toEqual([
      `PUT acme/shop/frontend:${digest.replace(':', '-')}.att`,
      `PUT acme/shop/backend:${(ran.outputs['backend-digest'] ?? '').replace(':', '-')}.att`,
    ])
    expect(ran.outputs['sbom-folder']).toBe('olympe-sbom')
    expect(ran.rows.find(([name]) => name === 'Attestations')).toEqual([
      'Attestations',
      expect.stringMatching(
        /^frontend \(`sha256-[0-9a-f]{64}\.att`\), backend \(`sha256-[0-9a-f]{64}\.att`\): SLSA provenance and CycloneDX SBOM attached under the key of 'signing-key' \(ECDSA P-256 key sha256:[0-9a-f]{16}\); SBOMs: `olympe-sbom\/gl-sbom-frontend\.cdx\.json`, `olympe-sbom\/gl-sbom-backend\.cdx\.json`$/,
      ),
    ])
    // The provenance, read back: the repository, the commit, the base by the digest the
    // registry gives, the lock file; the names of the build arguments and inputs, no value.
    const [provenance] = await statementsOf(registry, 'frontend', digest, SLSA_PROVENANCE_V1)
    expect(provenance?.predicate).toEqual({
      buildDefinition: {
        buildType: 'https://www.npmjs.com/package/olympe-deploy-actions#provenance-build-images-v1',
        externalParameters: {
          repository: REPOSITORY,
          ref: 'refs/heads/main',
          workflow: CONTEXT.workflow,
          image: 'frontend',
          buildArgs: ['NPM_CONFIG_TOKEN', 'SOURCES_PATH'],
          inputs: ['build-args', 'build-secrets'],
        },
        resolvedDependencies: [
          { uri: `git+${REPOSITORY}@refs/heads/main`, digest: { gitCommit: SHA1 } },
          {
            name: 'r.io/frontend-base:stable',
            digest: { sha256: (registry.digestOf('frontend-base', 'stable') ?? '').slice(7) },
          },
          { name: 'package-lock.json', digest: { sha256: createHashOf(LOCK) } },
        ],
      },
      runDetails: {
        builder: { id: CONTEXT.builderId },
        metadata: {
          invocationId: CONTEXT.runUrl,
          startedOn: '2026-11-22T10:00:00.000Z',
          finishedOn: '2026-11-22T10:00:00.000Z',
        },
      },
    })
    // The SBOM file is the SBOM attested: the locked package, Draw, the base.
    const file = ran.written['/p/olympe-sbom/gl-sbom-frontend.cdx.json'] ?? ''
    const bom = JSON.parse(file) as { bomFormat: string; components: Array<{ purl: string }> }
    expect(bom.bomFormat).toBe('CycloneDX')
    expect(bom.components.map((each) => each.purl).sort()).toEqual([
      'pkg:npm/%40olympeio/draw@2.11.3',
      'pkg:npm/%40olympeio/runtime-node@9.8.1',
      `pkg:oci/frontend-base@${registry.digestOf('frontend-base', 'stable') ?? ''}?repository_url=r.io%2Ffrontend-base&tag=stable`,
    ])
    const [sbom] = await statementsOf(registry, 'frontend', digest, 'https://cyclonedx.org/bom')
    expect(JSON.stringify(sbom?.predicate)).toBe(file.trimEnd())
    expectNoSecrets(
      { lines: ran.lines.join('\n'), ...ran.written, provenance: JSON.stringify(provenance) },
      [SECRET_ARG, SECRET, PEM],
    )
  })

  test('several backends: each attested on its own, under its id, with an SBOM file of its own', async () => {
    const registry = registryWithBases()
    const ran = await run(registry, {
      given: {
        images: 'backend',
        backends:
          '[{"name": "api", "sources": "dist/api"}, {"name": "jobs", "sources": "dist/jobs"}]',
      },
    })
    expect(ran.error).toBeUndefined()
    const listed = JSON.parse(ran.outputs.images ?? '') as Array<{ name: string; digest: string }>
    expect(listed.map(({ name }) => name)).toEqual(['api', 'jobs'])
    const [api, jobs] = listed.map(({ digest }) => digest)
    expect(attestationPuts(registry)).toEqual([
      `PUT acme/shop/backend-api:${(api ?? '').replace(':', '-')}.att`,
      `PUT acme/shop/backend-jobs:${(jobs ?? '').replace(':', '-')}.att`,
    ])
    expect(ran.lines).toContain(
      'SBOMs written: olympe-sbom/gl-sbom-backend-api.cdx.json, olympe-sbom/gl-sbom-backend-jobs.cdx.json.',
    )
    expect(
      ran.lines.flatMap((line) => /^(backend:\w+): attested sha256:/.exec(line)?.[1] ?? []),
    ).toEqual(['backend:api', 'backend:jobs'])
    const [provenance] = await statementsOf(
      registry,
      'backend-jobs',
      jobs ?? '',
      SLSA_PROVENANCE_V1,
    )
    expect(provenance?.predicate).toMatchObject({
      buildDefinition: {
        externalParameters: {
          image: 'backend:jobs',
          buildArgs: ['NPM_CONFIG_TOKEN', 'SOURCES_PATH'],
          inputs: ['backends', 'build-args', 'build-secrets'],
        },
      },
    })
  })

  test("'attestations: provenance': no SBOM, so the CycloneDX library is never loaded and no file written", async () => {
    const registry = registryWithBases()
    const ran = await run(registry, { given: { attestations: 'provenance' } })
    expect(ran.error).toBeUndefined()
    expect(ran.sbomWriters).toBe(0)
    expect(ran.written).toEqual({})
    expect(ran.outputs['sbom-folder']).toBe('')
    const digest = ran.outputs['frontend-digest'] ?? ''
    expect(await statementsOf(registry, 'frontend', digest, 'https://cyclonedx.org/bom')).toEqual(
      [],
    )
    expect(await statementsOf(registry, 'frontend', digest, SLSA_PROVENANCE_V1)).toHaveLength(1)
  })

  test("'attestations: none' with a key: signed, not attested; 'push: false': nothing attested, said so", async () => {
    const none = await run(registryWithBases(), { given: { attestations: 'none' } })
    expect(none.error).toBeUndefined()
    expect(none.lines).not.toContain('group: Image attestations')
    expect(none.rows.map(([name]) => name)).not.toContain('Attestations')
    const local = await run(registryWithBases(), { given: { push: 'false' } })
    expect(local.error).toBeUndefined()
    expect(local.lines).toContain(
      "Nothing is attested: 'push' is false, and only an image in a registry can carry an attestation.",
    )
    expect(local.rows).toContainEqual(['Attestations', "nothing attested ('push' is false)"])
  })

  test('the registry refuses the attestations: the step fails, naming each image and what to do', async () => {
    const registry = registryWithBases()
    const refusing: RegistryScript = (request) =>
      request.method === 'PUT' && request.url.pathname.endsWith('.att')
        ? respond(403, {}, JSON.stringify({ errors: [{ code: 'DENIED', message: 'no' }] }))
        : registry.script(request)
    const ran = await run({ script: refusing }, { given: { images: 'frontend' } })
    expect(ran.error).toBeInstanceOf(Error)
    expect((ran.error as Error).message).toMatch(
      /^Attesting failed for 1 of 1 image\(s\); they are pushed, tagged and signed, but carry no SLSA provenance and CycloneDX SBOM: a deploy with 'require-provenance' refuses them, and the next run builds them again\. Run the job again once the registry accepts the attestations:\n- frontend 'r\.io\/acme\/shop\/frontend:main-1a2b3c4': .+$/,
    )
  })
})

/**
 * What the run that built the images left in the registry: each image pushed under its tags,
 * signed with its fingerprint, and attested with `kinds`, as the attestation phase attests.
 */
async function earlierRun(
  registry: MemoryRegistry,
  kinds: ReadonlyArray<'provenance' | 'sbom'>,
): Promise<Record<string, string>> {
  const first = await run(registry, { given: { attestations: 'none' } })
  expect(first.error).toBeUndefined()
  const digests: Record<string, string> = {}
  for (const command of first.docker.builds) {
    const labels = Object.fromEntries(command.labels)
    const kind = /([a-z]+)\.Dockerfile$/.exec(command.dockerfile)?.[1] ?? ''
    for (const reference of command.tags) {
      const [repository = '', tag = ''] = reference.slice('r.io/'.length).split(':')
      digests[kind] = registry.put(repository, tag, { labels })
    }
    const network = fakeNetwork(registry.script)
    const reference = `r.io/acme/shop/${kind}:main`
    await signImages(
      [
        {
          id: kind,
          kind: kind as 'frontend',
          reference,
          references: [reference],
          digest: digests[kind],
          reused: { since: 'main-1a2b3c4', fingerprint: labels[FINGERPRINT_LABEL] ?? '' },
        },
      ],
      [],
      {
        signingKey: KEY,
        push: true,
        login: inputsLogin({ registry: 'r.io', username: 'ci', password: PASSWORD }, []),
      },
      {
        ...buildImagesPorts(first.docker, writableMemoryFiles({}), { network }),
        dockerConfigPath: '/nowhere/config.json',
      },
    )
    const lockFile = readLockFile('package-lock.json', LOCK)
    if (isProblem(lockFile)) throw new Error(lockFile.problem)
    const attached = await attachAttestations(
      { reference, digest: digests[kind] ?? '' },
      {
        source: { repository: REPOSITORY, commit: SHA1 },
        run: {
          builderId: CONTEXT.builderId ?? '',
          startedOn: new Date(0),
          finishedOn: new Date(0),
        },
        image: { image: kind, buildArgs: [], inputs: {}, baseImages: [], lockFile },
        tool: { name: 'olympe-deploy-actions', version: '1.0.0' },
      },
      signerOf(KEY),
      { session: sessionOn(registry, `acme/shop/${kind}`), cycloneDx: cycloneDxSbom },
      kinds,
    )
    if (isProblem(attached)) throw new Error(attached.problem)
  }
  return digests
}

describe('reuse and attestations', () => {
  test('an unchanged image that carries both keeps them: none added, its SBOM written from the registry', async () => {
    const registry = registryWithBases()
    const digests = await earlierRun(registry, ['provenance', 'sbom'])
    const before = attestationPuts(registry).length
    const ran = await run(registry, { sha: SHA2 })
    expect(ran.error).toBeUndefined()
    expect(ran.docker.builds).toEqual([])
    expect(JSON.parse(ran.outputs.reused ?? '')).toEqual(['frontend', 'backend'])
    expect(attestationPuts(registry)).toHaveLength(before)
    const phase = ran.lines.slice(ran.lines.indexOf('group: Image attestations') + 1)
    expect(phase).toEqual([
      `From the lock file 'package-lock.json' (sha256:${createHashOf(LOCK)}): 1 npm package(s) that are not development-only.`,
      'frontend: unchanged, it keeps the attestations of the run that built it (provenance, sbom).',
      'backend: unchanged, it keeps the attestations of the run that built it (provenance, sbom).',
      'SBOMs written: olympe-sbom/gl-sbom-frontend.cdx.json, olympe-sbom/gl-sbom-backend.cdx.json.',
    ])
    expect(ran.sbomWriters).toBe(0)
    const [sbom] = await statementsOf(
      registry,
      'frontend',
      digests.frontend ?? '',
      'https://cyclonedx.org/bom',
    )
    expect(ran.written['/p/olympe-sbom/gl-sbom-frontend.cdx.json']).toBe(
      `${JSON.stringify(sbom?.predicate)}\n`,
    )
    expect(ran.rows).toContainEqual([
      'Attestations',
      'frontend, backend: unchanged, with those of the run that built them; SBOMs: `olympe-sbom/gl-sbom-frontend.cdx.json`, `olympe-sbom/gl-sbom-backend.cdx.json`',
    ])
  })

  test('a signed candidate without the attestations asked for is built again, said in one line', async () => {
    const registry = registryWithBases()
    await earlierRun(registry, ['provenance'])
    const ran = await run(registry, { sha: SHA2, given: { images: 'frontend' } })
    expect(ran.error).toBeUndefined()
    expect(ran.docker.builds).toHaveLength(1)
    expect(ran.lines).toContainEqual(
      expect.stringMatching(
        /^frontend: built: 'main' \(built as main-1a2b3c4\) has the same fingerprint, and signed under the key of 'signing-key' \(ECDSA P-256 key sha256:[0-9a-f]{16}\), fingerprint included, but it lacks the attestations 'attestations' asks for \(no CycloneDX SBOM: 'sha256-[0-9a-f]{64}\.att' holds no attestation of type https:\/\/cyclonedx\.org\/bom\), so it is built again\.$/,
      ),
    )
    // Asked for a provenance only, the same candidate is reused.
    const provenance = await run(registry, {
      sha: SHA2,
      given: { images: 'frontend', attestations: 'provenance' },
    })
    expect(provenance.docker.builds).toEqual([])
  })
})

function createHashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
