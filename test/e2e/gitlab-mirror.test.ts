// The mirror recipe of docs/self-hosting.md, run: a self-managed instance without Internet access
// copies the catalog project, laid out for its upstream path, to a path of its own
// (tools/olympe-deploy-actions), with its own registry, which mirrors the job image's bases only.
// Its components run in a job image that the copy's tag pipeline must build: before that pipeline
// ran, a project that includes them fails to pull it (the way mirrors of image-backed components
// break); the pipeline then builds it from the mirrored bases and names the input its consumers
// must set; without that input they look for the image under the upstream path, with it they run.
import { describe, expect, test } from '@jest/globals'
import {
  ciFile,
  createGitlabProject,
  logsOf,
  outcome,
  type PipelineRun,
} from '../helpers/gitlab-ci-local.js'
import {
  CATALOG_PATH,
  catalogJobImage,
  COMPONENT_VERSION,
  PACKAGE_VERSION,
  runConsumerPipeline,
  useCatalogInstance,
} from '../helpers/job-image.js'
import { expectNoSecrets } from '../helpers/secrets.js'

const MIRROR_PATH = 'tools/olympe-deploy-actions'
const RELEASE_MS = 900_000
const CONSUMER_MS = 300_000

// Step 1 of the recipe: the bases in the instance's registry (useCatalogInstance mirrors them);
// step 2: the catalog project as upstream laid it out, copied to the instance's own path.
const instance = useCatalogInstance({
  name: 'mirror',
  projectPath: MIRROR_PATH,
  layoutPath: CATALOG_PATH,
  serverHost: 'gitlab.internal.example',
  timeoutMs: RELEASE_MS,
})
const { cleanup, docker, gitServer, webhook } = instance
const runs: PipelineRun[] = []

/** A project of the instance that deploys with the copy's deploy component, with `inputs`. */
async function consumer(inputs: Record<string, string>): Promise<PipelineRun> {
  const ci = ciFile(
    ['deploy'],
    [
      {
        component: `${instance.release.componentHost}/${MIRROR_PATH}/deploy@${COMPONENT_VERSION}`,
        inputs: {
          'frontend-image': `${docker.registry.host}/acme/shop/frontend:1.4.0`,
          'backend-images': `${docker.registry.host}/acme/shop/backend:1.4.0`,
          'verify-images': "'false'",
          ...inputs,
        },
      },
    ],
  )
  const project = cleanup.track(
    'consumer project',
    await createGitlabProject(
      { '.gitlab-ci.yml': ci },
      { templates: false, origin: `${gitServer.baseUrl}/acme/shop.git` },
    ),
  )
  const run = await runConsumerPipeline(instance, project, {
    timeoutMs: CONSUMER_MS,
  })
  runs.push(run)
  return run
}

const mirrorImage = (): string => catalogJobImage(docker.registry, MIRROR_PATH, PACKAGE_VERSION)
const upstreamImage = (): string => catalogJobImage(docker.registry, CATALOG_PATH, PACKAGE_VERSION)

describe('a copy of the catalog project at tools/olympe-deploy-actions', () => {
  test(
    'before its tag pipeline ran, its components find no job image',
    async () => {
      const run = await consumer({ 'job-image-prefix': '$CI_REGISTRY/tools/olympe-deploy-actions' })
      expect(run.code).not.toBe(0)
      expect(run.output).toContain(`olympe-deploy starting ${mirrorImage()} (deploy)`)
      expect(run.output).toContain(`manifest for ${mirrorImage()} not found: manifest unknown`)
      expect(webhook.requests).toHaveLength(0)
    },
    CONSUMER_MS,
  )

  test(
    'its tag pipeline builds the job image in its own registry and names the input its consumers need',
    async () => {
      const run = await instance.release.run({ DOCKER_CONFIG: docker.dockerConfig })
      runs.push(run)
      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      const { digest } = await docker.registry.manifest(
        `${MIRROR_PATH}/olympe-deploy`,
        PACKAGE_VERSION,
      )
      const log = run.jobLogs['job-image'] ?? ''
      expect(log).toContain(`Pushed the job image ${mirrorImage()}@${digest}.`)
      expect(log).toContain(
        `The components default to the job image under ${docker.registry.host}/${CATALOG_PATH}, ` +
          `the path they were laid out for; this project's is ${docker.registry.host}/${MIRROR_PATH}. ` +
          `Give each include of them the input job-image-prefix: ${docker.registry.host}/${MIRROR_PATH}`,
      )
      expect(run.jobLogs['catalog-deploy-dry-run']).toContain(
        `olympe-deploy ${PACKAGE_VERSION} runs as: olympe-deploy\n`,
      )
    },
    RELEASE_MS,
  )

  test(
    'without job-image-prefix, its components look for the image under the upstream path',
    async () => {
      const run = await consumer({})
      expect(run.code).not.toBe(0)
      expect(run.output).toContain(`olympe-deploy starting ${upstreamImage()} (deploy)`)
      expect(run.output).toContain(`manifest for ${upstreamImage()} not found: manifest unknown`)
      expect(webhook.requests).toHaveLength(0)
    },
    CONSUMER_MS,
  )

  test(
    'with job-image-prefix, they deploy from the job image the copy built, without npm',
    async () => {
      const run = await consumer({ 'job-image-prefix': '$CI_REGISTRY/tools/olympe-deploy-actions' })
      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      expect(run.output).toContain(`olympe-deploy starting ${mirrorImage()} (deploy)`)
      expect(run.jobLogs['olympe-deploy']).toContain(
        `olympe-deploy ${PACKAGE_VERSION} runs as: olympe-deploy\n`,
      )
      expect(webhook.requests).toHaveLength(1)
      expect(JSON.parse(webhook.requests[0]?.body ?? '')).toMatchObject({
        frontend: { image: `${docker.registry.host}/acme/shop/frontend:1.4.0` },
      })
    },
    CONSUMER_MS,
  )
})

// Last on purpose: it reads what every run above printed.
test('no job log or output holds a secret', () => {
  expect(runs.length).toBe(4)
  expectNoSecrets(logsOf(runs), instance.secrets())
})
