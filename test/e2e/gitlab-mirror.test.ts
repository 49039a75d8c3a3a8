// The mirror recipe of docs/self-hosting.md, run: a self-managed instance without Internet access
// copies the catalog project as upstream laid it out (for its own path) to a path of its own
// (tools/olympe-deploy-actions), with its own registry, which mirrors the job image's bases only.
// Its components run in a job image that the copy's release pipeline builds: before that pipeline
// ran, there is no release to include; the pipeline builds the image from the mirrored bases and
// releases templates that name it, by the digest it pushed, under the copy's own registry path,
// so that its consumers run it with nothing more to set.
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
  releasedFile,
  runConsumerPipeline,
  useCatalogInstance,
} from '../helpers/job-image.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { expectToSay } from '../helpers/assertions.js'

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
/** The digest the copy's release pipeline pushed its job image with, once it ran. */
let released = ''

describe('a copy of the catalog project at tools/olympe-deploy-actions', () => {
  test('before its release pipeline ran, the copy has no release of its components to include', async () => {
    // The layout is on its default branch; no version tag yet (gitlab-ci-local, asked for one,
    // fails on its own before any job).
    await expect(
      releasedFile(gitServer, MIRROR_PATH, 'templates/deploy/template.yml'),
    ).rejects.toThrow(`invalid object name 'refs/tags/${PACKAGE_VERSION}'`)
    expect(await docker.registry.tags(`${MIRROR_PATH}/olympe-deploy`).catch(() => [])).toEqual([])
  })

  test(
    'its release pipeline builds the job image in its own registry, and releases templates that name it by digest under its own path',
    async () => {
      const run = await instance.release.run({ DOCKER_CONFIG: docker.dockerConfig })
      runs.push(run)
      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      const { digest } = await docker.registry.manifest(
        `${MIRROR_PATH}/olympe-deploy`,
        PACKAGE_VERSION,
      )
      released = digest
      expect(run.jobLogs['job-image']).toContain(`Pushed the job image ${mirrorImage()}@${digest}.`)
      expect(run.jobLogs['catalog-deploy-dry-run']).toContain(
        `olympe-deploy ${PACKAGE_VERSION} runs as: olympe-deploy\n`,
      )
      // Laid out upstream for acme/…; released here for the copy's path and its own build.
      const template = await releasedFile(gitServer, MIRROR_PATH, 'templates/deploy/template.yml')
      expectToSay(
        template,
        '      default: "$CI_REGISTRY/tools/olympe-deploy-actions"\n',
        `OLYMPE_DEPLOY_JOB_IMAGE: $[[ inputs.job-image-prefix ]]/olympe-deploy:${PACKAGE_VERSION}@${digest}\n`,
      )
      expect(template).not.toContain(CATALOG_PATH)
    },
    RELEASE_MS,
  )

  test(
    'its components deploy from the job image the copy built, by digest, with nothing more to set and no npm',
    async () => {
      const run = await consumer({})
      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      expect(run.output).toContain(`olympe-deploy starting ${mirrorImage()}@${released} (deploy)`)
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
  expect(runs.length).toBe(2)
  expectNoSecrets(logsOf(runs), instance.secrets())
})
