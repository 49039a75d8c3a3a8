// `registry-mirrors` on the official template, whose Dockerfiles build `FROM olympeio/...`, images
// of Docker Hub, which this machine cannot reach, as an on-premise runner cannot: an open loopback
// registry holds them under a path (`dockerhub/`), as an instance's own mirror does. Each builder
// gets its bases from it (Docker as named build contexts, Buildah through its registries
// configuration), the reuse look-up reads them there, so that a second run reuses every image,
// and deploy's image check asks the mirror for an image of Docker Hub. The runs are GitLab jobs of
// the build-images template, whose `cache:` keeps the record of what the default branch built
// (OLYMPE_REUSE_RECORDS), which reuse needs.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { createHash } from 'node:crypto'
import { chmod } from 'node:fs/promises'
import { dirname } from 'node:path'
import { useCleanup, useServers } from '../helpers/suite.js'
import { pushImage, startRegistry } from '../helpers/docker-env.js'
import { startDockerSuite } from '../helpers/docker-suite.js'
import { buildahStore, giveTo, rootlessUser, type RootlessUser } from '../helpers/rootless.js'
import {
  runAsGithub,
  runCli,
  runOutcome,
  type RunOptions,
  type RunResult,
} from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { ensureTemplateBaseImages, TEMPLATE_BASE_IMAGES } from '../helpers/template-base-images.js'
import {
  createTemplateProject,
  installAndBuild,
  outcomes,
  startTemplateRegistry,
  type TemplateProject,
} from '../helpers/template-project.js'
import { IMAGE_KINDS, type ImageKind } from '../../src/core/shared/project-images.js'

const RUN_MS = 600_000

let user: RootlessUser
let project: TemplateProject
let store: Record<string, string>
const cleanup = useCleanup(120_000)
const { npm, suite, mirror } = useServers(
  {
    npm: startTemplateRegistry,
    suite: startDockerSuite,
    // Open for pulls, as many instances' mirrors of Docker Hub are.
    mirror: () => startRegistry({ user: 'unused', password: 'unused-password', anonymous: true }),
  },
  cleanup,
  120_000,
)
let runs = 0

beforeAll(async () => {
  user = await rootlessUser(cleanup)
  await ensureTemplateBaseImages()
  for (const base of Object.values(TEMPLATE_BASE_IMAGES))
    await pushImage(base, `${mirror.host}/dockerhub/${base}`)
  project = cleanup.track(
    'template project',
    await createTemplateProject({ appVersion: '1.4.0', files: { '.npmrc': npm.npmrc('env') } }),
  )
  expect(outcomes(await installAndBuild(project, npm.token)).map(({ code }) => code)).toEqual([
    0, 0, 0, 0,
  ])
  store = await buildahStore(user, await cleanup.tempDir('olympe-mirrors-store-'))
  await chmod(dirname(project.dir), 0o755)
  await giveTo(user, project.dir)
}, 300_000)

const MIRRORS = (): string => `docker.io=${mirror.host}/dockerhub`

/** A run of build-images on the template as a GitLab job runs it, each with a commit of its own. */
async function build(
  repository: string,
  options: { builder: 'docker' | 'buildah'; mirrors?: string },
): Promise<{ result: RunResult; tag: string }> {
  runs++
  const sha = createHash('sha1').update(`mirrors ${runs}`).digest('hex')
  const common: RunOptions = {
    cwd: project.dir,
    inputs: {
      ...suite.pushInputs,
      codeasdata: 'true',
      builder: options.builder,
      ...(options.mirrors === undefined ? {} : { 'registry-mirrors': options.mirrors }),
    },
    timeoutMs: RUN_MS,
    env: {
      GITLAB_CI: 'true',
      CI_PIPELINE_SOURCE: 'push',
      CI_COMMIT_BRANCH: 'main',
      CI_DEFAULT_BRANCH: 'main',
      CI_COMMIT_SHA: sha,
      CI_PROJECT_PATH: repository,
      CI_PROJECT_DIR: project.dir,
      // The template's job cache, trusted on a protected ref only. Its key holds the job's
      // name: each builder's job has its own, apart here as in two jobs' checkouts.
      CI_COMMIT_REF_PROTECTED: 'true',
      OLYMPE_REUSE_RECORDS: `.olympe-reuse-${options.builder}`,
      ...(options.builder === 'docker' ? suite.env : store),
    },
    ...(options.builder === 'buildah' ? { user } : {}),
  }
  await suite.spy.reset()
  const result = await runCli('build-images', common)
  expectNoSecrets(await suite.seenIn(result), [suite.registry.password])
  const tail = `${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`
  expect({ code: result.code, tail: result.code === 0 ? '' : tail }).toEqual({
    code: 0,
    tail: '',
  })
  return { result, tag: `main-${sha.slice(0, 7)}` }
}

const reused = (result: RunResult): ImageKind[] =>
  JSON.parse(result.outputs.reused ?? '') as ImageKind[]

describe.each<'docker' | 'buildah'>(['docker', 'buildah'])(
  "the template's FROM olympeio/... through a loopback mirror, with %s",
  (builder) => {
    const repository = `acme/mirrors-${builder}-${process.pid}`

    test(
      'a first run reads the bases at the mirror and builds the three images on them',
      async () => {
        const { result } = await build(repository, { builder, mirrors: MIRRORS() })
        expect(reused(result)).toEqual([])
        for (const kind of IMAGE_KINDS) {
          const base = TEMPLATE_BASE_IMAGES[kind]
          // The look-up found the base at the mirror: nothing keeps the next run from reusing.
          expect(result.stdout).toMatch(
            new RegExp(
              `^${kind}: fingerprint sha256:[0-9a-f]{64} \\(.*built from: ${base.replace(/[.]/g, '\\.')}\\)$`,
              'm',
            ),
          )
          expect(result.stdout).toContain(`${kind}: built: no image 'main' in the registry yet.`)
          expect(result.stdout).toMatch(
            new RegExp(
              `^Recorded in the GitLab job cache \\('\\.olympe-reuse-${builder}'\\): the default branch built \\S+/${kind}:main-[0-9a-f]{7} as sha256:[0-9a-f]{64}`,
              'm',
            ),
          )
        }
        if (builder === 'docker') {
          const commands = await suite.spy.commands()
          for (const kind of IMAGE_KINDS) {
            const key = TEMPLATE_BASE_IMAGES[kind].replace(/:latest$/, '')
            expect(commands.find((line) => line.includes(`${kind}.Dockerfile`))).toContain(
              `--build-context ${key}=docker-image://${mirror.host}/dockerhub/${TEMPLATE_BASE_IMAGES[kind]}`,
            )
          }
        } else {
          expect(result.stdout).toContain('Building with Buildah')
          expect(result.stdout).toMatch(
            /^\[frontend\] STEP 1\/\d+: FROM olympeio\/frontend-base:latest$/m,
          )
        }
      },
      RUN_MS,
    )

    test(
      'a second run with nothing changed reuses all three',
      async () => {
        const { result, tag } = await build(repository, { builder, mirrors: MIRRORS() })
        expect(reused(result)).toEqual(IMAGE_KINDS)
        expect(result.stdout).toContain(
          'Nothing to build: no image changed since it was last pushed.',
        )
        for (const kind of IMAGE_KINDS)
          expect(result.outputs[`${kind}-digest`]).toBe(
            (await suite.registry.manifest(`${repository}/${kind}`, tag)).digest,
          )
      },
      RUN_MS,
    )
  },
)

describe('without the mirror', () => {
  test(
    "the bases cannot be looked up on Docker Hub: every image is built, and the log names 'registry-mirrors'",
    async () => {
      const { result } = await build(`acme/mirrors-none-${process.pid}`, { builder: 'docker' })
      expect(reused(result)).toEqual([])
      expect(result.stdout).toMatch(
        /^frontend: built, not looked up: the image 'olympeio\/frontend-base:latest' it builds from could not be resolved in its registry \(.+\); if the runner cannot reach 'docker\.io', give a registry it can reach that serves its images in 'registry-mirrors' \(such as 'docker\.io=registry\.internal\/dockerhub'\) to have unchanged images reused\.$/m,
      )
    },
    RUN_MS,
  )
})

describe("deploy's image check through the mirror", () => {
  test('an image of Docker Hub is checked at the mirror, and its digest is the output', async () => {
    const image = TEMPLATE_BASE_IMAGES.frontend
    const result = await runAsGithub('deploy', {
      inputs: {
        'webhook-url': 'http://127.0.0.1:9/hooks/unused',
        'webhook-token': 'mirror-check-token',
        'frontend-image': image,
        'registry-mirrors': MIRRORS(),
        'verify-images': 'true',
        'dry-run': 'true',
      },
    })
    expect(runOutcome(result)).toEqual({ code: 0, tail: '' })
    const digest = (await mirror.manifest('dockerhub/olympeio/frontend-base', 'latest')).digest
    expect(JSON.parse(result.outputs.digests ?? '')).toEqual({ [image]: digest })
    expect(result.stdout).toContain(
      `frontend ${image} (asked at its mirror '${mirror.host}'): found, ${digest}`,
    )
  }, 120_000)
})
