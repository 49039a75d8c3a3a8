import { describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { StepCancellation } from '../../../src/tools/cancel.js'
import {
  dockerConfigDir,
  isolatedDockerConfig,
  jobDockerConfigPath,
} from '../../../src/tools/docker.js'
import { stepFolder, stepTempRoot } from '../../../src/tools/step-folder.js'
import { withCleanup } from '../../helpers/cleanup.js'

describe('jobDockerConfigPath: where a docker login of the job wrote', () => {
  test.each([
    [{ DOCKER_CONFIG: '/tmp/job-docker' }, '/tmp/job-docker/config.json'],
    [{}, '/home/runner/.docker/config.json'],
    [{ DOCKER_CONFIG: '' }, '/home/runner/.docker/config.json'],
  ])('%j → %s', (env, path) => {
    expect(jobDockerConfigPath(env, '/home/runner')).toBe(path)
  })
})

describe('dockerConfigDir: the folder the docker CLI keeps its configuration in', () => {
  test.each([
    [{ DOCKER_CONFIG: '/tmp/job-docker' }, '/tmp/job-docker'],
    [{}, '/home/runner/.docker'],
  ])('%j → %s', (env, path) => {
    expect(dockerConfigDir(env, '/home/runner')).toBe(path)
  })
})

describe("the step's own Docker config: where it lives, and what removes it", () => {
  test.each([
    [{ GITHUB_ACTIONS: 'true', RUNNER_TEMP: '/runner/_temp' }, '/runner/_temp'],
    [{ GITLAB_CI: 'true', RUNNER_TEMP_PROJECT_DIR: '/builds/g/p.tmp' }, '/builds/g/p.tmp'],
    [{ GITLAB_CI: 'true', CI_PROJECT_DIR: '/builds/g/p' }, tmpdir()],
    [{ RUNNER_TEMP: '/runner/_temp' }, tmpdir()],
    [{}, tmpdir()],
  ])('%j → %s', (env, root) => {
    expect(stepTempRoot(env)).toBe(root)
  })

  test("in the job's temporary folder; removed by dispose, or at once by a cancelled step's exit", async () => {
    await withCleanup(async (cleanup) => {
      const jobTemp = await cleanup.tempDir('olympe-job-temp-')
      const env = { GITHUB_ACTIONS: 'true', RUNNER_TEMP: jobTemp, DOCKER_CONFIG: '/nonexistent' }
      const session = await isolatedDockerConfig(env)
      expect(dirname(session.dir)).toBe(jobTemp)
      await session.dispose()
      expect(await readdir(jobTemp)).toEqual([])
      const cancel = new StepCancellation()
      const cancelled = await isolatedDockerConfig(env, cancel)
      expect(cancel.busy).toBe(true)
      cancel.runAtExit()
      expect(existsSync(cancelled.dir)).toBe(false)
    })
  })

  test("a job temporary folder GitLab has not made yet is made, the job's own (0700)", async () => {
    await withCleanup(async (cleanup) => {
      // GitLab makes `<project>.tmp` only for a job with a variable of type File.
      const jobTemp = join(await cleanup.tempDir('olympe-builds-'), 'shop.tmp')
      const env = { GITLAB_CI: 'true', RUNNER_TEMP_PROJECT_DIR: jobTemp }
      const build = await stepFolder(env, 'olympe-build-')
      expect(dirname(build.dir)).toBe(jobTemp)
      expect((await stat(jobTemp)).mode & 0o777).toBe(0o700)
      await build.dispose()
      expect(await readdir(jobTemp)).toEqual([])
    })
  })

  test('a config that a killed run left is removed by the next run; a running one is left alone', async () => {
    await withCleanup(async (cleanup) => {
      const jobTemp = await cleanup.tempDir('olympe-job-temp-')
      // A pid that no process has: past the kernel's highest.
      const gone = Number(await readFile('/proc/sys/kernel/pid_max', 'utf8')) + 1
      await mkdir(join(jobTemp, `olympe-docker-config-${gone}-abc123`))
      await mkdir(join(jobTemp, `olympe-docker-config-${process.ppid}-def456`))
      await mkdir(join(jobTemp, 'someone-elses'))
      const env = { GITHUB_ACTIONS: 'true', RUNNER_TEMP: jobTemp, DOCKER_CONFIG: '/nonexistent' }
      const session = await isolatedDockerConfig(env)
      await session.dispose()
      expect((await readdir(jobTemp)).sort()).toEqual([
        `olympe-docker-config-${process.ppid}-def456`,
        'someone-elses',
      ])
    })
  })
})
