import { describe, expect, test } from '@jest/globals'
import { dockerConfigDir, jobDockerConfigPath } from '../../../src/tools/docker.js'

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
