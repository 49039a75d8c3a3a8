// gitlab/pipeline.yml's first job, `<prefix>-check`, under gitlab-ci-local, where it can go wrong
// before any input is checked: npm cannot give it the package (not in the registry, not that
// version, the registry unreachable). The job says that it is npm, and not the team's variables;
// and each step's first line says which platform it took itself to run on, and why.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { CHECKED } from '../helpers/run-action.js'
import { useCleanup, useStarted } from '../helpers/suite.js'
import {
  ciFile,
  component,
  pipelineRecord,
  sampleOlympeProject,
  type PipelineOptions,
  type PipelineRun,
} from '../helpers/gitlab-ci-local.js'
import { freePort } from '../helpers/run-process.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { publishProject, startVerdaccio } from '../helpers/verdaccio.js'

const TOKEN = 'gl-check-token-7d3a91'
const PASSWORD = 'gl-check-registry-pw-4c2e'
// A whole check job took 5 to 15 s on two busy cores; the limits leave room for a slower machine.
const PIPELINE_MS = 120_000
const TEST_MS = PIPELINE_MS + 30_000
const INPUTS_FAILED =
  'A check above failed, so the images and deploy jobs do not run: set what it names (a CI/CD variable or an input of the pipeline), then run the pipeline again.'

const pipelines = pipelineRecord()
const cleanup = useCleanup(60_000)
const npmRegistry = useStarted('verdaccio', startVerdaccio, cleanup, 60_000)

/** The check job alone, of a project that includes pipeline.yml with these inputs. */
async function checkJob(
  inputs: Record<string, string>,
  options: Pick<PipelineOptions, 'gitlabCiLocalDefaults' | 'env'> = {},
): Promise<PipelineRun> {
  const ci = ciFile(
    ['build', 'deploy'],
    [{ component: component('pipeline'), inputs: { registry: 'registry.example.com', ...inputs } }],
  )
  const project = cleanup.track('project', await sampleOlympeProject(ci))
  return pipelines.run(project, {
    jobs: ['olympe-check'],
    variables: {
      WEBHOOK_URL: 'https://deploy.example.invalid/hooks/check-job',
      WEBHOOK_TOKEN: TOKEN,
      CI_REGISTRY: 'registry.example.com',
      CI_REGISTRY_USER: 'gitlab-ci-token',
      CI_REGISTRY_PASSWORD: PASSWORD,
    },
    timeoutMs: PIPELINE_MS,
    ...options,
  })
}

/** What the check job printed, without the `$ command` lines gitlab-ci-local shows. */
const printed = (run: PipelineRun): string[] =>
  (run.jobLogs['olympe-check'] ?? '').split('\n').filter((line) => !line.startsWith('$ '))

/** The line each step printed first, after its `$ $OLYMPE_DEPLOY <action> --check-only` line. */
function firstLines(run: PipelineRun): Record<string, string> {
  const lines = (run.jobLogs['olympe-check'] ?? '').split('\n')
  const first: Record<string, string> = {}
  lines.forEach((line, index) => {
    const action = /^\$ \$OLYMPE_DEPLOY (\S+) --check-only/.exec(line)?.[1]
    if (action) first[action] = lines[index + 1] ?? ''
  })
  return first
}

describe("the check job tells npm's failures from the inputs'", () => {
  test(
    'the package is not in the npm registry: npm says 404, and the job says it is not the inputs',
    async () => {
      const run = await checkJob({ 'npm-registry': npmRegistry.url })
      expect(run.code).not.toBe(0)
      const said = printed(run)
      expect(said.join('\n')).toMatch(/E404/)
      expect(said).toContain(
        `npm found no olympe-deploy-actions@1.0.0 in ${npmRegistry.url}: that package or version is not there. Your inputs and variables were not checked yet: set the pipeline's 'version' input to a published version, or 'npm-registry' to a registry that holds it, then run the pipeline again.`,
      )
      expect(said).not.toContain(INPUTS_FAILED)
      expect(said.join('\n')).not.toContain('Invalid input')
    },
    TEST_MS,
  )

  test(
    'the npm registry cannot be reached: said so, and not blamed on the inputs',
    async () => {
      const closed = `http://127.0.0.1:${await freePort()}/`
      // npm would try for over a minute: once is enough to know.
      const run = await checkJob(
        { 'npm-registry': closed },
        { env: { npm_config_fetch_retries: '0' } },
      )
      expect(run.code).not.toBe(0)
      const said = printed(run)
      expect(said.join('\n')).toMatch(/ECONNREFUSED/)
      expect(said).toContain(
        `npm could not fetch olympe-deploy-actions@1.0.0 from ${closed} (npm's words above). Your inputs and variables were not checked yet: check that the runner reaches that registry (its network, its proxy) and the pipeline's 'npm-registry' input, then run the pipeline again.`,
      )
      expect(said).not.toContain(INPUTS_FAILED)
    },
    TEST_MS,
  )

  describe('with the package published', () => {
    beforeAll(async () => {
      await publishProject(npmRegistry)
    }, 120_000)

    test(
      'a version the registry does not hold: npm says so, and the job says it is not the inputs',
      async () => {
        const run = await checkJob({
          'npm-registry': npmRegistry.url,
          version: '0.0.0-not-published',
        })
        expect(run.code).not.toBe(0)
        const said = printed(run)
        expect(said.join('\n')).toMatch(/ETARGET/)
        expect(said).toContain(
          `npm found no olympe-deploy-actions@0.0.0-not-published in ${npmRegistry.url}: that package or version is not there. Your inputs and variables were not checked yet: set the pipeline's 'version' input to a published version, or 'npm-registry' to a registry that holds it, then run the pipeline again.`,
        )
        expect(said).not.toContain(INPUTS_FAILED)
      },
      TEST_MS,
    )

    test(
      "each step's first line names the platform and why: GitLab, or gitlab-ci-local's GITLAB_CI=false",
      async () => {
        const asOnGitlab = await checkJob({ 'npm-registry': npmRegistry.url })
        expect(asOnGitlab.code).toBe(0)
        expect(printed(asOnGitlab).filter((line) => line === CHECKED)).toHaveLength(2)
        expect(firstLines(asOnGitlab)).toEqual({
          'build-images': "Platform: GitLab CI, command line (GITLAB_CI is 'true').",
          deploy: "Platform: GitLab CI, command line (GITLAB_CI is 'true').",
        })

        const local = await checkJob(
          { 'npm-registry': npmRegistry.url },
          { gitlabCiLocalDefaults: true },
        )
        const line =
          "Platform: local command line (GITLAB_CI is 'false', GITHUB_ACTIONS is not set). GitLab sets GITLAB_CI to 'true' in every job, and gitlab-ci-local to 'false': to run a job there as on GitLab, give it --variable GITLAB_CI=true."
        expect(firstLines(local)).toEqual({ 'build-images': line, deploy: line })
      },
      TEST_MS,
    )
  })

  // Last on purpose: it reads what every run above printed.
  test('no job log holds the webhook token or the registry password', () => {
    expect(pipelines.runs.length).toBeGreaterThanOrEqual(4)
    expectNoSecrets(pipelines.logs(), [TOKEN, PASSWORD])
  })
})
