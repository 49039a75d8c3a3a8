import { copyFile, mkdtemp, rm, stat, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import type { Env } from '../core/shared/env.js'
import { dockerConfigDir } from './docker-auth.js'

export interface DockerConfigSession {
  /** The DOCKER_CONFIG folder every docker command of this run uses. */
  dir: string
  /** The environment docker commands run with: DOCKER_CONFIG, and the buildx state to keep. */
  env: Record<string, string>
  dispose(): Promise<void>
}

/**
 * Folders that docker looks for only inside DOCKER_CONFIG and that `docker login` never writes:
 * CLI plugins installed per user (docker/setup-buildx-action can put buildx there) and the
 * `docker context` store (endpoints, and the TLS files of remote engines). Linked, so that the
 * step's docker reaches the same engine with the same plugins.
 */
const SHARED_FOLDERS = ['cli-plugins', 'contexts']

/**
 * A DOCKER_CONFIG of this step's own, so that the credentials it logs in with never outlive the
 * step (a self-hosted runner keeps ~/.docker between jobs) and never overwrite a login made by
 * an earlier step. It starts as a copy of the current config, so logins to other registries
 * (private base images) keep working. The copy is deleted when the step ends, failed or not.
 *
 * buildx keeps its state (the current builder, and the node identity that BuildKit's build
 * context cache is keyed on) in BUILDX_CONFIG, by default DOCKER_CONFIG/buildx. A new folder each
 * run would lose a builder chosen with `docker buildx use`, and make BuildKit send the whole
 * build context again every run; so BUILDX_CONFIG stays the user's own.
 */
export async function isolatedDockerConfig(env: Env): Promise<DockerConfigSession> {
  const dir = await mkdtemp(join(tmpdir(), 'olympe-docker-config-'))
  const current = dockerConfigDir(env)
  await copyFile(join(current, 'config.json'), join(dir, 'config.json')).catch(() => undefined)
  for (const folder of SHARED_FOLDERS) {
    const isFolder = await stat(join(current, folder)).then(
      (s) => s.isDirectory(),
      () => false,
    )
    if (isFolder) await symlink(join(current, folder), join(dir, folder))
  }
  return {
    dir,
    env: { DOCKER_CONFIG: dir, BUILDX_CONFIG: env.BUILDX_CONFIG || join(current, 'buildx') },
    // fs.rm removes the links themselves, never what they point to.
    dispose: () => rm(dir, { recursive: true, force: true }),
  }
}
