import { homedir } from 'node:os'
import { join } from 'node:path'
import type { Env } from '../core/shared/env.js'

/**
 * The Docker config that a `docker login` earlier in the job wrote, as the docker CLI finds it:
 * `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`. The deploy step only reads it.
 */
export function jobDockerConfigPath(env: Env, home: string = homedir()): string {
  return join(dockerConfigDir(env, home), 'config.json')
}

/** The folder the docker CLI keeps its configuration in: `$DOCKER_CONFIG`, else `~/.docker`. */
export function dockerConfigDir(env: Env, home: string = homedir()): string {
  return env.DOCKER_CONFIG || join(home, '.docker')
}
