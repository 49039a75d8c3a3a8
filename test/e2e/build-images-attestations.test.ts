// build-images attests what it builds, end to end: the bundle as the GitHub runner runs it and
// the GitLab template's job under gitlab-ci-local, Docker building the sample project on bases in
// a registry with basic auth, signed with a key `cosign generate-key-pair` made (encrypted, with
// its password). The real cosign 2.5 then accepts both attestations, offline, with
// `verify-attestation --key --insecure-ignore-tlog=true --type slsaprovenance1` and `--type
// cyclonedx`; deploy with 'require-provenance' accepts the image; the SBOMs written for a later
// step (GitHub's folder, GitLab's CycloneDX report) pass CycloneDX 1.6's schema. The runs build
// on one another, in order. The Buildah builder's turn is in build-images-buildah.test.ts.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { createHash, randomBytes } from 'node:crypto'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { cycloneDxProblems, shopLockFile } from '../helpers/attestations.js'
import {
  keyPairSecrets,
  pinnedOf,
  startCosign,
  type Cosign,
  type KeyPair,
} from '../helpers/cosign.js'
import { BASE_IMAGES, dockerLogin, removeImages } from '../helpers/docker-env.js'
import { startDockerSuite } from '../helpers/docker-suite.js'
import {
  ciFile,
  component,
  createGitlabProject,
  pipelineRecord,
  previewPipeline,
} from '../helpers/gitlab-ci-local.js'
import { runAsGithub, runOutcome, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { useCleanup, useServers } from '../helpers/suite.js'
import { startProjectRegistry } from '../helpers/verdaccio.js'
import { answer, startWebhookServer } from '../helpers/webhook-server.js'

const KEY_PASSWORD = `cosign-pw-${randomBytes(8).toString('hex')}`
const WEBHOOK_TOKEN = 'attested-webhook-token-2b7e'
const NPM_TOKEN = `npm_${randomBytes(10).toString('hex')}`
const RUN_MS = 300_000
const KINDS = ['frontend', 'backend'] as const
const PROVENANCE = 'https://slsa.dev/provenance/v1'
/** The project's lock file: a package that ships, Draw, and one for development only. */
const LOCK = shopLockFile({ 'node_modules/@olympeio/draw': { version: '2.11.3' } })

let cosign: Cosign
let pair: KeyPair
let publicKey = ''
let project = ''
let repository = ''
let runs = 0
/** Each image as the first run pushed it, and its attestations' manifest then. */
const first: Record<string, { reference: string; digest: string; att: string }> = {}
/** Everything the runs printed or wrote, scanned for the key at the end. */
const captured: Record<string, string> = {}
const cleanup = useCleanup(120_000)
const { suite, npmRegistry, webhook } = useServers(
  {
    suite: startDockerSuite,
    npmRegistry: startProjectRegistry,
    webhook: () => startWebhookServer(answer(200)),
  },
  cleanup,
  120_000,
)

beforeAll(async () => {
  cosign = await startCosign(cleanup, suite.dockerConfig)
  pair = await cosign.generateKeyPair('attested', KEY_PASSWORD)
  publicKey = join(pair.folder, 'cosign.pub')
  const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
  await dockerLogin(suite.registry, { env })
  project = await suite.copyProjectOnRegistryBases(KINDS)
  await writeFile(join(project, 'package-lock.json'), LOCK)
  repository = suite.uniqueRepository('attested')
}, 240_000)

/** build-images on GitHub's runner, Docker building, a commit of its own each run. */
async function buildImages(
  label: string,
  inputs: Record<string, string> = {},
  repo = repository,
): Promise<{ result: RunResult; sha: string }> {
  runs++
  const sha = createHash('sha1').update(`attested commit ${runs}`).digest('hex')
  const result = await suite.buildOnFreshEngine(project, {
    inputs: {
      builder: 'docker',
      'signing-key': pair.key,
      'signing-key-password': KEY_PASSWORD,
      'build-secrets': `NPM_TOKEN=${NPM_TOKEN}`,
      ...inputs,
    },
    env: { GITHUB_SHA: sha, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: String(runs) },
    timeoutMs: RUN_MS,
  })
  captured[`build-images ${label}`] = Object.values(await suite.seenIn(result)).join('\n')
  expect(runOutcome(result)).toEqual({ code: 0, tail: '' })
  return { result, sha }
}

/** The `.att` manifest of a digest, as the registry holds it (basic auth). */
async function attestationsManifest(name: string, digest: string): Promise<string> {
  const { user, password } = suite.registry
  const response = await fetch(
    `${suite.registry.url}/v2/${name}/manifests/${digest.replace(':', '-')}.att`,
    {
      headers: {
        Accept: 'application/vnd.oci.image.manifest.v1+json',
        Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
      },
    },
  )
  return response.status === 200 ? response.text() : `HTTP ${response.status}`
}

/** cosign verify-attestation of both types on an image: their statements, each accepted. */
async function verifiedBoth(
  image: { reference: string; digest: string },
  label: string,
): Promise<{ provenance: Record<string, unknown>; sbom: Record<string, unknown> }> {
  const found: Record<string, Record<string, unknown>> = {}
  for (const type of ['slsaprovenance1', 'cyclonedx']) {
    const verified = await cosign.verifyAttestation(publicKey, type, pinnedOf(image))
    captured[`cosign ${type} ${label}`] = verified.output
    expect({
      label,
      type,
      code: verified.code,
      output: verified.code === 0 ? '' : verified.output,
    }).toEqual({
      label,
      type,
      code: 0,
      output: '',
    })
    expect(verified.output).toContain(
      'The signatures were verified against the specified public key',
    )
    expect(verified.statements).toHaveLength(1)
    found[type] = verified.statements[0] as Record<string, unknown>
  }
  return { provenance: found.slsaprovenance1 ?? {}, sbom: found.cyclonedx ?? {} }
}

describe('on GitHub, built by Docker', () => {
  test(
    "with 'signing-key': each image carries a provenance and an SBOM that cosign verify-attestation accepts; they name the commit, the repository and the base's digest, and list the locked packages",
    async () => {
      const { result, sha } = await buildImages('first')
      for (const kind of KINDS) {
        const reference = result.outputs[`${kind}-image`] ?? ''
        const digest = result.outputs[`${kind}-digest`] ?? ''
        const { provenance, sbom } = await verifiedBoth({ reference, digest }, `${kind} first`)
        first[kind] = {
          reference,
          digest,
          att: await attestationsManifest(`${repository}/${kind}`, digest),
        }
        expect(provenance).toMatchObject({
          predicateType: PROVENANCE,
          subject: [
            {
              name: `${suite.registry.host}/${repository}/${kind}`,
              digest: { sha256: digest.slice(7) },
            },
          ],
        })
        const base = `${suite.registry.host}/${BASE_IMAGES[kind]}`
        const baseDigest = (
          await suite.registry.manifest(BASE_IMAGES[kind].split(':')[0] ?? '', 'stable')
        ).digest
        const predicate = provenance.predicate as {
          buildDefinition: {
            externalParameters: Record<string, unknown>
            resolvedDependencies: unknown[]
          }
          runDetails: { builder: { id: string } }
        }
        expect(predicate.buildDefinition.externalParameters).toEqual({
          repository: `https://github.com/${repository}`,
          ref: 'refs/heads/main',
          workflow: `${repository}/.github/workflows/build.yml@refs/heads/main`,
          image: kind,
          buildArgs: ['SOURCES_PATH'],
          inputs: ['build-secrets', 'builder'],
        })
        expect(predicate.buildDefinition.resolvedDependencies).toEqual([
          {
            uri: `git+https://github.com/${repository}@refs/heads/main`,
            digest: { gitCommit: sha },
          },
          { name: base, digest: { sha256: baseDigest.slice(7) } },
          {
            name: 'package-lock.json',
            digest: { sha256: createHash('sha256').update(LOCK).digest('hex') },
          },
        ])
        expect(predicate.runDetails.builder.id).toBe(
          `https://github.com/${repository}/.github/workflows/build.yml@refs/heads/main`,
        )
        const bom = sbom.predicate as { components: Array<{ purl: string }> }
        const purls = bom.components.map((each) => each.purl)
        expect(purls).toEqual(
          expect.arrayContaining([
            'pkg:npm/%40olympeio/runtime-node@9.8.1',
            'pkg:npm/%40olympeio/draw@2.11.3',
            expect.stringMatching(
              new RegExp(`^pkg:oci/${kind}-base@${baseDigest.replace(':', '(:|%3A)')}\\?`),
            ),
          ]),
        )
        expect(purls).not.toContain('pkg:npm/webpack@5.99.0')
        // The SBOM the folder holds is the one attested, and CycloneDX 1.6's schema accepts it.
        const file = await readFile(join(project, `olympe-sbom/gl-sbom-${kind}.cdx.json`), 'utf8')
        expect(JSON.parse(file)).toEqual(bom)
        expect(await cycloneDxProblems(file)).toBeNull()
      }
      expect(result.outputs['sbom-folder']).toBe('olympe-sbom')
      expect(result.stdout).toMatch(/^::group::Image attestations$/m)
      expect(result.summary).toMatch(
        /\| Attestations \| frontend \(`sha256-[0-9a-f]{64}\.att`\), backend \(`sha256-[0-9a-f]{64}\.att`\): SLSA provenance and CycloneDX SBOM attached under the key of 'signing-key' \(ECDSA P-256 key sha256:[0-9a-f]{16}\); SBOMs: `olympe-sbom\/gl-sbom-frontend\.cdx\.json`, `olympe-sbom\/gl-sbom-backend\.cdx\.json` \|/,
      )
      // No build secret's value, nor the key's, in either document.
      expectNoSecrets(
        Object.fromEntries(Object.entries(captured).filter(([name]) => name.startsWith('cosign'))),
        [NPM_TOKEN, KEY_PASSWORD, pair.key],
      )
    },
    RUN_MS,
  )

  test(
    "deploy with 'require-provenance' accepts what build-images built: one POST",
    async () => {
      const before = webhook.requests.length
      const run = await runAsGithub('deploy', {
        cwd: project,
        inputs: {
          'webhook-url': webhook.url,
          'webhook-token': WEBHOOK_TOKEN,
          'registry-username': suite.registry.user,
          'registry-password': suite.registry.password,
          'verify-signatures': pair.publicKey,
          'require-provenance': 'true',
          'frontend-image': first.frontend?.reference ?? '',
          'backend-images': first.backend?.reference ?? '',
        },
        env: {
          DOCKER_CONFIG: await cleanup.tempDir('olympe-docker-config-empty-'),
          GITHUB_REPOSITORY: repository,
        },
      })
      captured['deploy'] = [run.stdout, run.stderr, ...Object.values(run.files)].join('\n')
      expect({ ...runOutcome(run), posts: webhook.requests.length - before }).toEqual({
        code: 0,
        tail: '',
        posts: 1,
      })
      for (const kind of KINDS)
        expect(run.stdout).toContain(
          `${kind} ${first[kind]?.reference ?? ''}: found, ${first[kind]?.digest ?? ''}; signed; provenance from https://github.com/${repository}`,
        )
    },
    RUN_MS,
  )

  test(
    'nothing changed: both reused, no attestation added, their SBOMs written again from the registry',
    async () => {
      const { result } = await buildImages('unchanged')
      expect(JSON.parse(result.outputs.reused ?? '')).toEqual(['frontend', 'backend'])
      for (const kind of KINDS) {
        expect(result.outputs[`${kind}-digest`]).toBe(first[kind]?.digest)
        expect(await attestationsManifest(`${repository}/${kind}`, first[kind]?.digest ?? '')).toBe(
          first[kind]?.att,
        )
        expect(result.stdout).toContain(
          `${kind}: unchanged, it keeps the attestations of the run that built it (provenance, sbom).`,
        )
        const file = await readFile(join(project, `olympe-sbom/gl-sbom-${kind}.cdx.json`), 'utf8')
        expect(await cycloneDxProblems(file)).toBeNull()
      }
      expect(result.outputs['sbom-folder']).toBe('olympe-sbom')
    },
    RUN_MS,
  )

  test(
    'a signed candidate built before the attestations existed is built again, said in one line, and then carries them',
    async () => {
      const other = suite.uniqueRepository('unattested')
      await buildImages('signed only', { images: 'frontend', attestations: 'none' }, other)
      const { result } = await buildImages('attested again', { images: 'frontend' }, other)
      expect(result.stdout).toMatch(
        /^frontend: built: 'main' \(built as main-[0-9a-f]{7}\) has the same fingerprint, and signed under the key of 'signing-key' \(ECDSA P-256 key sha256:[0-9a-f]{16}\), fingerprint included, but it lacks the attestations 'attestations' asks for \(no SLSA provenance: no 'sha256-[0-9a-f]{64}\.att' in its repository; no CycloneDX SBOM: no 'sha256-[0-9a-f]{64}\.att' in its repository\), so it is built again\.$/m,
      )
      const reference = result.outputs['frontend-image'] ?? ''
      await verifiedBoth({ reference, digest: result.outputs['frontend-digest'] ?? '' }, 'rebuilt')
    },
    RUN_MS,
  )
})

describe('on GitLab, the build-images job under gitlab-ci-local', () => {
  const JOB = 'olympe-build-images'
  const pipelines = pipelineRecord()

  test(
    'each SBOM is a CycloneDX report file (olympe-sbom/gl-sbom-<image>.cdx.json) that the job declares and CycloneDX 1.6 accepts; cosign accepts the attestations',
    async () => {
      const name = `${suite.uniqueRepository('gitlab')}/frontend`
      const base = `${suite.registry.host}/${BASE_IMAGES.frontend}`
      const inputs = {
        registry: suite.registry.host,
        'npm-registry': npmRegistry.url,
        images: 'frontend',
        'frontend-image-name': name,
      }
      const gitlab = cleanup.track(
        'gitlab project',
        await createGitlabProject({
          '.gitlab-ci.yml': ciFile(['build'], [{ component: component('build-images'), inputs }]),
          'package.json': '{"name":"shop","version":"1.4.0","private":true}\n',
          'package-lock.json': LOCK,
          'docker/frontend.Dockerfile': `FROM ${base}\nARG SOURCES_PATH\nCOPY --chown=nginx:root $SOURCES_PATH /usr/share/nginx/html\n`,
          'dist/web/index.html': '<html>shop</html>\n',
          'dist/web/version.json': '{"version":"1.4.0"}\n',
        }),
      )
      const preview = await previewPipeline(gitlab)
      expect((preview[JOB] as { artifacts: unknown }).artifacts).toEqual({
        reports: { dotenv: 'olympe-build-images.env', cyclonedx: 'olympe-sbom/gl-sbom-*.cdx.json' },
      })
      await removeImages(`${suite.registry.host}/`)
      const dir = join(gitlab.dir, '.gitlab-ci-local/builds', JOB)
      const run = await pipelines.passing(gitlab, {
        isolated: true,
        variables: {
          CI_REGISTRY: suite.registry.host,
          CI_REGISTRY_USER: suite.registry.user,
          CI_REGISTRY_PASSWORD: suite.registry.password,
          CI_COMMIT_REF_PROTECTED: 'true',
          CI_PROJECT_DIR: dir,
          SIGNING_KEY: pair.key,
          SIGNING_KEY_PASSWORD: KEY_PASSWORD,
        },
        env: { ...suite.env, npm_config_cache: await cleanup.tempDir('olympe-npm-cache-') },
        timeoutMs: RUN_MS,
      })
      const log = run.jobLogs[JOB] ?? ''
      expect(log).toMatch(
        /frontend: attested sha256:[0-9a-f]{64} \(sha256-[0-9a-f]{64}\.att\): SLSA provenance \(commit [0-9a-f]{40}, 1 base image\(s\)\), CycloneDX SBOM \(1 base image\(s\), 2 npm package\(s\)\)\./,
      )
      expect(await readdir(join(dir, 'olympe-sbom'))).toEqual(['gl-sbom-frontend.cdx.json'])
      const report = await readFile(join(dir, 'olympe-sbom/gl-sbom-frontend.cdx.json'), 'utf8')
      expect(await cycloneDxProblems(report)).toBeNull()
      const dotenv = Object.values(run.dotenvReports).join('\n')
      expect(dotenv).toContain('OLYMPE_BUILD_IMAGES_SBOM_FOLDER=olympe-sbom')
      const digest = /^OLYMPE_BUILD_IMAGES_FRONTEND_DIGEST=(\S+)$/m.exec(dotenv)?.[1] ?? ''
      const reference = `${suite.registry.host}/${name}:main`
      const { provenance, sbom } = await verifiedBoth({ reference, digest }, 'gitlab')
      expect(JSON.parse(report)).toEqual(sbom.predicate)
      expect(
        (
          provenance.predicate as {
            buildDefinition: { externalParameters: { repository: string } }
          }
        ).buildDefinition.externalParameters.repository,
      ).toBe('https://gitlab.example.com/acme/shop')
      Object.assign(captured, pipelines.logs())
    },
    RUN_MS,
  )
})

// Last: every run above, what cosign printed, and the pipelines' logs.
describe('leaks', () => {
  test('no capture holds the signing key, its password, its PEM body, the build secret, the registry password or the webhook token', () => {
    expect(Object.keys(captured).length).toBeGreaterThan(8)
    expectNoSecrets(captured, [
      ...keyPairSecrets(pair, KEY_PASSWORD),
      NPM_TOKEN,
      suite.registry.password,
      WEBHOOK_TOKEN,
    ])
  })
})
