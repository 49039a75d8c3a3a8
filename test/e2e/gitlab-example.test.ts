// examples/gitlab/.gitlab-ci.yml, the pipeline users copy, as gitlab-ci-local reads it: the
// catalog references point at this commit's templates, and each kind of pipeline gets its jobs:
// images and deploy on the default branch only, the project build alone elsewhere.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { useCleanup } from '../helpers/suite.js'
import {
  createGitlabProject,
  listEnvironments,
  listJobs,
  previewPipeline,
  PROJECT_PATH,
  type GitlabProject,
} from '../helpers/gitlab-ci-local.js'
import { EXIT_CODES } from '../../src/core/shared/exit-codes.js'
import { ROOT } from '../helpers/run-action.js'

let project: GitlabProject
const cleanup = useCleanup()

beforeAll(async () => {
  const example = await readFile(join(ROOT, 'examples/gitlab/.gitlab-ci.yml'), 'utf8')
  // The published form `<group>/olympe-deploy-actions/<name>@<version>` becomes this commit's.
  const local = example.replace(
    /<group>\/olympe-deploy-actions\/([a-z-]+)@[0-9.]+/g,
    `${PROJECT_PATH}/$1@$CI_COMMIT_SHA`,
  )
  expect(local).not.toBe(example)
  project = cleanup.track('GitLab project', await createGitlabProject({ '.gitlab-ci.yml': local }))
})

const names = async (options: Parameters<typeof listJobs>[1]): Promise<string[][]> =>
  (await listJobs(project, options)).map((job) => [job.name, job.when])

describe('the example .gitlab-ci.yml', () => {
  test('a push to the default branch checks, builds, builds two images and deploys; code as data is manual', async () => {
    expect(await names({ variables: { CI_PIPELINE_SOURCE: 'push' } })).toEqual([
      ['olympe-check', 'on_success'],
      ['olympe-build', 'on_success'],
      ['olympe-images', 'on_success'],
      ['olympe-codeasdata-image', 'manual'],
      ['olympe-deploy', 'on_success'],
    ])
  })

  test('"Run pipeline" with codeasdata true runs the code-as-data job on its own', async () => {
    const jobs = await names({
      variables: { CI_PIPELINE_SOURCE: 'web' },
      inputs: { codeasdata: 'true' },
    })
    expect(jobs).toEqual([
      ['olympe-check', 'on_success'],
      ['olympe-build', 'on_success'],
      ['olympe-images', 'on_success'],
      ['olympe-codeasdata-image', 'on_success'],
      ['olympe-deploy', 'on_success'],
    ])
  })

  test('the deploy job records its deployments in the production environment', async () => {
    const push = { variables: { CI_PIPELINE_SOURCE: 'push' } }
    expect(await listEnvironments(project, push)).toEqual({ 'olympe-deploy': 'production' })
  })

  test('the deploy job watches the app at $APP_URL, with the registry login that reads the expected version', async () => {
    const jobs = await previewPipeline(project, { variables: { CI_PIPELINE_SOURCE: 'push' } })
    const deploy = jobs['olympe-deploy'] as {
      variables: Record<string, string>
      allow_failure: unknown
      environment: unknown
    }
    expect(deploy.variables).toMatchObject({
      INPUT_APP_URL: '$APP_URL',
      INPUT_VERIFY_IMAGES: 'auto',
      INPUT_REGISTRY: '$CI_REGISTRY',
      INPUT_REGISTRY_USERNAME: '$CI_REGISTRY_USER',
      INPUT_REGISTRY_PASSWORD: '$CI_REGISTRY_PASSWORD',
      INPUT_WAIT_MINUTES: '30',
    })
    // Not live (awaiting a promotion, unverified): passed with warnings, not green.
    expect(deploy.allow_failure).toEqual({ exit_codes: [EXIT_CODES.notLive] })
    expect(deploy.environment).toEqual({ name: 'production', url: '$OLYMPE_DEPLOY_URL' })
  })

  test('the nightly schedule only snapshots', async () => {
    expect(await names({ variables: { CI_PIPELINE_SOURCE: 'schedule' } })).toEqual([
      ['olympe-snapshot', 'on_success'],
    ])
  })

  test('a merge request pipeline builds the project only', async () => {
    const mergeRequest = {
      variables: { CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_IID: '3' },
      unset: ['CI_COMMIT_BRANCH'],
    }
    expect(await names(mergeRequest)).toEqual([['olympe-build', 'on_success']])
  })

  test('a push to another branch builds the project only; with an open merge request, nothing (its pipeline builds)', async () => {
    const branch = { CI_PIPELINE_SOURCE: 'push', CI_COMMIT_BRANCH: 'feature/x' }
    expect(await names({ variables: branch })).toEqual([['olympe-build', 'on_success']])
    const open = { ...branch, CI_OPEN_MERGE_REQUESTS: 'acme/shop!3' }
    expect(await names({ variables: open })).toEqual([])
  })
})
