// The same bundle through the command line, as a GitLab job runs it (INPUT_* variables, dotenv
// outputs), and by hand in a git checkout, where git says which branch and commit this is.
import { describe, expect, test } from '@jest/globals'
import {
  gitlabPush,
  SAMPLE_PROJECT,
  sampleLabels,
  useDockerSuite,
} from '../helpers/docker-suite.js'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { REGISTRY_LOGIN_HELP } from '../../src/platform/context.js'
import { dockerLogin } from '../helpers/docker-env.js'
import { useCleanup } from '../helpers/suite.js'
import { runCli, type RunResult } from '../helpers/run-action.js'
import { run } from '../helpers/run-process.js'
import { expectNoSecrets } from '../helpers/secrets.js'

const cleanup = useCleanup()
const suite = useDockerSuite(cleanup)

async function cli(
  repository: string,
  env: Record<string, string>,
  cwd = SAMPLE_PROJECT,
  password = suite.registry.password,
): Promise<RunResult> {
  await suite.spy.reset()
  const result = await runCli('build-images', {
    cwd,
    inputs: {
      registry: suite.registry.host,
      'registry-username': suite.registry.user,
      'registry-password': password,
      'tag-template': env.GITLAB_CI ? '{branch}-{run-id}' : '{branch}-{short-sha}',
      'frontend-image-name': `${repository}/frontend`,
      'backend-image-name': `${repository}/backend`,
    },
    env: { ...suite.env, ...env },
  })
  expectNoSecrets(await suite.seenIn(result), [suite.registry.password, password])
  return result
}

function gitlab(repository: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...gitlabPush(repository, SAMPLE_PROJECT),
    CI_PROJECT_URL: `https://gitlab.example/${repository}`,
    ...extra,
  }
}

describe('build-images through the CLI', () => {
  test('a GitLab job builds, pushes and writes the dotenv outputs', async () => {
    const repository = suite.uniqueRepository('gitlab')
    const result = await cli(repository, gitlab(repository))
    expect(result.code).toBe(0)
    const host = suite.registry.host
    expect(result.outputs).toMatchObject({
      skipped: 'false',
      'frontend-image': `${host}/${repository}/frontend:main-777`,
      'backend-image': `${host}/${repository}/backend:main-777`,
      'codeasdata-image': '',
    })
    expect(result.files.dotenv).toContain(
      `OLYMPE_BUILD_IMAGES_FRONTEND_IMAGE=${host}/${repository}/frontend:main-777\n`,
    )
    const manifest = await suite.registry.manifest(`${repository}/frontend`, 'main-777')
    expect(result.outputs['frontend-digest']).toBe(manifest.digest)
    expect(manifest.config.Labels).toMatchObject(
      sampleLabels(`https://gitlab.example/${repository}`),
    )
    const images = JSON.parse(result.outputs.images ?? '') as Array<{ digest: string }>
    expect(images.map((image) => image.digest)).toEqual([
      result.outputs['frontend-digest'],
      result.outputs['backend-digest'],
    ])
    // GitLab's collapsible sections, one per phase.
    expect(result.stdout).toMatch(/section_start:\d+:olympe_\d+_pre_flight_checks/)
    expect(result.stdout).toContain('Olympe images built and pushed')
  })

  test("a GitLab job whose temporary folder is not made yet, logged in by the job's Docker config: the folder is made, and left empty", async () => {
    const repository = suite.uniqueRepository('job-temp')
    // GitLab makes `<project>.tmp` only for a job with a variable of type File.
    const jobTemp = join(await cleanup.tempDir('olympe-builds-'), 'sample.tmp')
    // The job logged in with `docker login` in an earlier line of its script.
    const dockerConfig = await cleanup.tempDir('olympe-job-docker-config-')
    await dockerLogin(suite.registry, { env: { ...process.env, DOCKER_CONFIG: dockerConfig } })
    await suite.spy.reset()
    const result = await runCli('build-images', {
      cwd: SAMPLE_PROJECT,
      inputs: {
        registry: suite.registry.host,
        'tag-template': '{branch}-{run-id}',
        'frontend-image-name': `${repository}/frontend`,
        'backend-image-name': `${repository}/backend`,
      },
      env: {
        ...suite.env,
        ...gitlab(repository),
        DOCKER_CONFIG: dockerConfig,
        RUNNER_TEMP_PROJECT_DIR: jobTemp,
      },
    })
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' })
    expect(await suite.registry.tags(`${repository}/frontend`)).toContain('main-777')
    expect(await readdir(jobTemp)).toEqual([])
    expectNoSecrets(await suite.seenIn(result), [suite.registry.password])
  })

  test("a refused registry login in a GitLab job says what to check in GitLab's words", async () => {
    const repository = suite.uniqueRepository('gitlab-badpw')
    const result = await cli(repository, gitlab(repository), SAMPLE_PROJECT, 'Wrong-Password-8e1d')
    expect(result.code).toBe(1)
    const error = result.stderr.split('\n').find((line) => line.startsWith('Error: ')) ?? ''
    expect(error).toMatch(
      new RegExp(
        `^Error: Logging in to the registry '${suite.registry.host}' as '${suite.registry.user}' failed: docker login exited with 1 \\(.*unauthorized.*\\)\\. `,
        'i',
      ),
    )
    expect(error.endsWith(`. ${REGISTRY_LOGIN_HELP.gitlab}. Nothing was built.`)).toBe(true)
    for (const variable of ['CI_REGISTRY_PASSWORD', 'INPUT_REGISTRY_PASSWORD'])
      expect(error).toContain(variable)
    expect(error).not.toContain('package write access')
    expect(await suite.spy.subcommands()).toEqual(['version', 'login'])
  })

  test('a merge request pipeline is skipped, and says so in the dotenv', async () => {
    const repository = suite.uniqueRepository('mr')
    const result = await cli(
      repository,
      gitlab(repository, { CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_IID: '3' }),
    )
    expect(result.code).toBe(0)
    expect(result.outputs).toMatchObject({ skipped: 'true', 'frontend-image': '', images: '[]' })
    expect(result.stdout).toContain("pull or merge request (event 'merge_request_event')")
    expect(await suite.spy.commands()).toEqual([])
  })

  test('run by hand in a git checkout, the branch and commit come from git', async () => {
    const project = await suite.copyProject()
    const git = async (...args: string[]): Promise<string> =>
      (
        await run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], {
          cwd: project,
        })
      ).stdout.trim()
    await git('init', '-q', '-b', 'main')
    await git('add', '.')
    await git('commit', '-q', '-m', 'sample')
    const sha = await git('rev-parse', 'HEAD')
    const repository = suite.uniqueRepository('local')
    const result = await cli(repository, {}, project)
    expect(result.code).toBe(0)
    expect(result.outputs['frontend-image']).toBe(
      `${suite.registry.host}/${repository}/frontend:main-${sha.slice(0, 7)}`,
    )
  })
})
