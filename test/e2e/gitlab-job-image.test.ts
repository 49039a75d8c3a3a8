// The GitLab components' job image, end to end, on an instance whose runners reach nothing but the
// instance's own registry and git server: .ci/catalog-layout.mjs lays out the catalog project,
// pushed to its default branch; gitlab-ci-local runs its release pipeline with the Docker
// executor, where the job-image job builds the job image with Buildah from the bases the
// instance's registry mirrors and pushes it there, the deploy component runs in it as a dry run,
// and the templates are pinned to the digest pushed and tagged with the version on the git server.
// A project then includes the released pipeline component by version, and its jobs run in that
// image, pulled by digest from the registry, with npm on a closed port and no name resolution: the
// check, the project build, the images (on the Docker engine through its socket, as a runner that
// mounts it) and the deploy to a loopback webhook. On a runner without a Docker socket, the image
// jobs build with the image's Buildah, as the image's environment sets it up (STORAGE_DRIVER,
// BUILDAH_ISOLATION), the bases from the instance's mirror of Docker Hub. A job image pushed to the
// release's tag afterwards changes nothing that a released component runs.
import { describe, expect, test } from '@jest/globals'
import { BASE_IMAGES, docker as dockerCli, pushImage } from '../helpers/docker-env.js'
import { git } from '../helpers/git-server.js'
import {
  ciFile,
  GitlabProject,
  logsOf,
  outcome,
  sampleOlympeProject,
  type PipelineRun,
} from '../helpers/gitlab-ci-local.js'
import {
  CATALOG_PATH,
  catalogJobImage,
  COMPONENT_VERSION,
  PACKAGE_VERSION,
  releasedFile,
  runConsumerPipeline,
  useCatalogInstance,
} from '../helpers/job-image.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { answer } from '../helpers/webhook-server.js'
import { expectToSay } from '../helpers/assertions.js'

// The catalog pipeline builds a 550 MB image with Buildah's vfs driver; on two shared cores it
// took about two minutes. The consumer's pipeline pulls that image, then runs four jobs.
const RELEASE_MS = 900_000
const CONSUMER_MS = 600_000

const instance = useCatalogInstance({
  name: 'jobimage',
  projectPath: CATALOG_PATH,
  layoutPath: CATALOG_PATH,
  timeoutMs: RELEASE_MS,
})
const { cleanup, docker, gitServer, webhook } = instance
const runs: PipelineRun[] = []
/** A consumer's pipeline on the instance's runners (`executor`): it must succeed. */
async function consumerPipeline(
  project: GitlabProject,
  executor: { dockerSocket?: boolean; privileged?: boolean },
): Promise<PipelineRun> {
  webhook.respondWith(answer(200))
  const result = await runConsumerPipeline(instance, project, {
    executor,
    timeoutMs: CONSUMER_MS,
  })
  runs.push(result)
  expect(outcome(result)).toEqual({ code: 0, tail: '' })
  return result
}

const releasedComponent = (name: string): string =>
  `${instance.release.componentHost}/${CATALOG_PATH}/${name}@${COMPONENT_VERSION}`

/** The digest the release pipeline pushed the job image with, once it ran. */
let released = ''
const pinnedImage = (): string =>
  `${catalogJobImage(docker.registry, CATALOG_PATH, PACKAGE_VERSION)}@${released}`

describe("the catalog project's release pipeline", () => {
  let run: PipelineRun

  test(
    'builds the job image with Buildah from the mirrored bases, pushes it, dry-runs the deploy component in it, and tags the templates pinned to its digest',
    async () => {
      run = await instance.release.run({ DOCKER_CONFIG: docker.dockerConfig })
      runs.push(run)
      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      const image = catalogJobImage(docker.registry, CATALOG_PATH, PACKAGE_VERSION)
      expect(run.output).toContain(`job-image starting ${instance.mirrored.debian} (build)`)
      const { digest, config } = await docker.registry.manifest(
        `${CATALOG_PATH}/olympe-deploy`,
        PACKAGE_VERSION,
      )
      released = digest
      expect(run.jobLogs['job-image']).toContain(`Pushed the job image ${image}@${digest}.`)
      // The release tag holds the templates with the image named by that digest.
      expect(run.jobLogs['pin-templates']).toContain(
        `Tagged ${PACKAGE_VERSION}, whose components run in ${image}@${digest}.`,
      )
      for (const name of ['build-images', 'deploy', 'pipeline', 'snapshot']) {
        const template = await releasedFile(
          gitServer,
          CATALOG_PATH,
          `templates/${name}/template.yml`,
        )
        expect({
          name,
          pinned: template.includes(`/olympe-deploy:${PACKAGE_VERSION}@${digest}\n`),
        }).toEqual({ name, pinned: true })
        expect(template).not.toContain('$[[ component.version ]]')
      }
      expect(config.Labels).toMatchObject({
        'org.opencontainers.image.title': 'olympe-deploy',
        'org.opencontainers.image.version': PACKAGE_VERSION,
        'org.opencontainers.image.source': `https://gitlab.example.com/${CATALOG_PATH}`,
      })
      const dryRun = run.jobLogs['catalog-deploy-dry-run'] ?? ''
      expect(run.output).toContain(`catalog-deploy-dry-run starting ${image} (test)`)
      expectToSay(
        dryRun,
        `olympe-deploy ${PACKAGE_VERSION} runs as: olympe-deploy\n`,
        '"image": "registry.example.com/catalog-check/frontend:1.0.0"',
      )
      expect(run.jobLogs['create-release']).toContain(
        `Releasing ${CATALOG_PATH} ${PACKAGE_VERSION} to the CI/CD catalog`,
      )
    },
    RELEASE_MS,
  )

  test(
    'no release without the image: a version that is not the package version stops the pipeline in the image build',
    async () => {
      const version = PACKAGE_VERSION.replace(/\d+$/, (patch) => String(Number(patch) + 1))
      const failed = await instance.release.run(
        { DOCKER_CONFIG: docker.dockerConfig },
        { CATALOG_VERSION: version },
      )
      runs.push(failed)
      expect(failed.code).not.toBe(0)
      expect(failed.jobLogs['job-image']).toContain(
        `package/ holds olympe-deploy-actions '${PACKAGE_VERSION}', not the image's version '${version}'.`,
      )
      expect(failed.jobLogs['catalog-deploy-dry-run']).toBeUndefined()
      expect(failed.jobLogs['pin-templates']).toBeUndefined()
      expect(failed.jobLogs['create-release']).toBeUndefined()
      expect(await docker.registry.tags(`${CATALOG_PATH}/olympe-deploy`)).toEqual([PACKAGE_VERSION])
      await expect(
        releasedFile(gitServer, CATALOG_PATH, '.gitlab-ci.yml', version),
      ).rejects.toThrow()
    },
    RELEASE_MS,
  )

  test(
    'a released version is never built again: a second run of its pipeline stops before the build',
    async () => {
      const again = await instance.release.run({ DOCKER_CONFIG: docker.dockerConfig })
      runs.push(again)
      expect(again.code).not.toBe(0)
      const image = catalogJobImage(docker.registry, CATALOG_PATH, PACKAGE_VERSION)
      expect(again.jobLogs['job-image']).toContain(
        `${image} is in the registry already: version ${PACKAGE_VERSION} was built, and its image is never built again.`,
      )
      expect(again.jobLogs['pin-templates']).toBeUndefined()
      const { digest } = await docker.registry.manifest(
        `${CATALOG_PATH}/olympe-deploy`,
        PACKAGE_VERSION,
      )
      expect(digest).toBe(released)
    },
    RELEASE_MS,
  )

  test('the image holds Node.js 24, the package, the Docker CLI with buildx, and Buildah', async () => {
    expect(run).toBeDefined()
    const image = catalogJobImage(docker.registry, CATALOG_PATH, PACKAGE_VERSION)
    const printed = await dockerCli(
      [
        'run',
        '--rm',
        image,
        'sh',
        '-c',
        'node --version; olympe-deploy --version; npm --version >/dev/null && echo npm; ' +
          'docker --version; docker buildx version; buildah --version; git --version',
      ],
      { env: { ...process.env, DOCKER_CONFIG: docker.dockerConfig } },
    )
    const lines = printed.trim().split('\n')
    expect(lines[0]).toMatch(/^v24\./)
    expect(lines.slice(1, 3)).toEqual([PACKAGE_VERSION, 'npm'])
    expect(lines[3]).toMatch(/^Docker version 26\./)
    expect(lines[4]).toMatch(/^github\.com\/docker\/buildx 0\.13\./)
    expect(lines[5]).toMatch(/^buildah version 1\.28\./)
    expect(lines[6]).toMatch(/^git version 2\./)
  })
})

describe('a project that includes the released pipeline component', () => {
  test(
    'runs check, build, images and deploy in the job image, with npm and name resolution unreachable',
    async () => {
      const image = catalogJobImage(docker.registry, CATALOG_PATH, PACKAGE_VERSION)
      const ci = ciFile(
        ['build', 'deploy'],
        [{ component: releasedComponent('pipeline') }],
        // What the runners cannot reach, checked where the jobs run.
        [
          'offline-runner:',
          '  stage: .pre',
          `  image: ${image}`,
          '  script:',
          '    - if getent hosts registry.npmjs.org deb.debian.org; then exit 1; fi',
          '    - if npm view olympe-deploy-actions version; then exit 1; fi',
        ],
      )
      const project = cleanup.track(
        'consumer project',
        await sampleOlympeProject(ci, { origin: `${gitServer.baseUrl}/acme/shop.git` }),
      )
      const result = await consumerPipeline(project, { dockerSocket: true })
      expect(Object.keys(result.jobLogs).sort()).toEqual([
        'offline-runner',
        'olympe-build',
        'olympe-check',
        'olympe-deploy',
        'olympe-images',
      ])
      // By the digest the release pinned.
      for (const job of ['olympe-check', 'olympe-build', 'olympe-images', 'olympe-deploy'])
        expect(result.output).toContain(`${job} starting ${pinnedImage()} (`)
      for (const job of ['olympe-check', 'olympe-images', 'olympe-deploy'])
        expect({ job, log: result.jobLogs[job] }).toEqual({
          job,
          log: expect.stringContaining(`olympe-deploy ${PACKAGE_VERSION} runs as: olympe-deploy\n`),
        })
      const sha = (await git(['rev-parse', 'HEAD'], { cwd: project.dir })).trim().slice(0, 7)
      const references = ['frontend', 'backend'].map(
        (kind) => `${docker.registry.host}/acme/shop/${kind}:main-${sha}`,
      )
      for (const kind of ['frontend', 'backend'])
        expect((await docker.registry.tags(`acme/shop/${kind}`)).sort()).toEqual(
          ['main', `main-${sha}`].sort(),
        )
      expect(webhook.requests).toHaveLength(1)
      expect(JSON.parse(webhook.requests[0]?.body ?? '')).toMatchObject({
        frontend: { image: references[0] },
        backends: { images: [references[1]] },
      })
    },
    CONSUMER_MS + 60_000,
  )
})

describe('the same component on a runner without a Docker socket', () => {
  test(
    "builds the images with the job image's Buildah, its bases from 'registry-mirrors'",
    async () => {
      // The instance's copy of Docker Hub's bases, under dockerhub/ of its registry.
      const env = { ...process.env, DOCKER_CONFIG: docker.dockerConfig }
      for (const base of Object.values(BASE_IMAGES))
        await pushImage(base, `${docker.registry.host}/dockerhub/${base}`, { env })
      const ci = ciFile(
        ['build', 'deploy'],
        [
          {
            component: releasedComponent('pipeline'),
            inputs: { 'registry-mirrors': `docker.io=${docker.registry.host}/dockerhub` },
          },
        ],
      )
      const project = cleanup.track(
        'consumer project without Docker',
        await sampleOlympeProject(ci, { origin: `${gitServer.baseUrl}/acme/shop-buildah.git` }),
      )
      // No Docker socket; Buildah's chroot in a container needs what the trial in
      // docs/self-hosting.md found (the executor gives --privileged).
      const result = await consumerPipeline(project, { privileged: true })
      expect(result.output).toContain(`olympe-images starting ${pinnedImage()} (`)
      const log = result.jobLogs['olympe-images'] ?? ''
      expect(log).toMatch(
        /Building with Buildah: no Docker engine answers \([^\n]*\), and Buildah 1\.28\.\d+ is on PATH\./,
      )
      expect(log).toMatch(
        /Builder: Buildah 1\.28\.\d+, storage driver vfs \(from STORAGE_DRIVER\), isolation chroot \(from BUILDAH_ISOLATION\)/,
      )
      // Every buildah command gets the driver: Buildah 1.28 reads STORAGE_DRIVER in bud alone.
      expect(log).toMatch(/^\[frontend\] \$ buildah --storage-driver vfs bud /m)
      const sha = (await git(['rev-parse', 'HEAD'], { cwd: project.dir })).trim().slice(0, 7)
      for (const kind of ['frontend', 'backend'])
        expect((await docker.registry.tags(`acme/shop-buildah/${kind}`)).sort()).toEqual(
          ['main', `main-${sha}`].sort(),
        )
      expect(JSON.parse(webhook.requests.at(-1)?.body ?? '')).toMatchObject({
        frontend: { image: `${docker.registry.host}/acme/shop-buildah/frontend:main-${sha}` },
      })
    },
    CONSUMER_MS + 60_000,
  )
})

describe('what a released component runs', () => {
  test(
    "is the image it was released with, whatever is pushed to the release's tag later",
    async () => {
      // Anyone who can push to the catalog project's registry: another image under the tag.
      const image = catalogJobImage(docker.registry, CATALOG_PATH, PACKAGE_VERSION)
      const env = { ...process.env, DOCKER_CONFIG: docker.dockerConfig }
      await pushImage(instance.bases.node, image, { env })
      const moved = await docker.registry.manifest(`${CATALOG_PATH}/olympe-deploy`, PACKAGE_VERSION)
      expect(moved.digest).not.toBe(released)
      const ci = ciFile(
        ['deploy'],
        [
          {
            component: releasedComponent('deploy'),
            inputs: {
              'frontend-image': `${docker.registry.host}/acme/shop/frontend:1.4.0`,
              'backend-images': `${docker.registry.host}/acme/shop/backend:1.4.0`,
              'dry-run': 'true',
              'verify-images': "'false'",
            },
          },
        ],
      )
      const project = cleanup.track(
        'consumer project after the tag moved',
        await sampleOlympeProject(ci, { origin: `${gitServer.baseUrl}/acme/shop-later.git` }),
      )
      const result = await consumerPipeline(project, {})
      expect(result.output).toContain(`olympe-deploy starting ${pinnedImage()} (deploy)`)
      expect(result.jobLogs['olympe-deploy']).toContain(
        `olympe-deploy ${PACKAGE_VERSION} runs as: olympe-deploy\n`,
      )
    },
    CONSUMER_MS,
  )
})

// Last on purpose: it reads what every run above printed.
test('no job log or output holds a secret', () => {
  expect(runs.length).toBe(6)
  expectNoSecrets(logsOf(runs), instance.secrets())
})
