import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'

import type { Env } from '../core/shared/env.js'

export interface DockerConfigSession {
  /** The DOCKER_CONFIG folder every docker command of this run uses. */
  dir: string
  dispose(): Promise<void>
}

/**
 * A DOCKER_CONFIG of this step's own, so that the credentials it logs in with never outlive the
 * step (a self-hosted runner keeps ~/.docker between jobs) and never overwrite a login made by
 * an earlier step. It starts as a copy of the current config, so logins to other registries
 * (private base images) keep working. The copy is deleted when the step ends, failed or not.
 */
export async function isolatedDockerConfig(env: Env): Promise<DockerConfigSession> {
  const dir = await mkdtemp(join(tmpdir(), 'olympe-docker-config-'))
  const current = join(env.DOCKER_CONFIG || join(homedir(), '.docker'), 'config.json')
  await copyFile(current, join(dir, 'config.json')).catch(() => undefined)
  return {
    dir,
    dispose: () => rm(dir, { recursive: true, force: true }),
  }
}
