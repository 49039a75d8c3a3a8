import { describe, expect, test } from '@jest/globals'
import { jobDockerConfigPath } from '../../../src/tools/docker-auth.js'

describe('jobDockerConfigPath: where a docker login of the job wrote', () => {
  test.each([
    [{ DOCKER_CONFIG: '/tmp/job-docker' }, '/tmp/job-docker/config.json'],
    [{}, '/home/runner/.docker/config.json'],
    [{ DOCKER_CONFIG: '' }, '/home/runner/.docker/config.json'],
  ])('%j → %s', (env, path) => {
    expect(jobDockerConfigPath(env, '/home/runner')).toBe(path)
  })
})
