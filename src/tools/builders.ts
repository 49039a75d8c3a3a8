// The runner's builders, for build-images: asked whether they answer (the `builder: auto`
// decision), then the one chosen opened with the configuration of the step's own it runs with.
import { buildahSettings } from '../core/build-images/builders/buildah-args.js'
import type { BuilderPorts } from '../core/build-images/run.js'
import type { Env } from '../core/shared/env.js'
import type { Exec } from '../core/shared/exec.js'
import { buildahAuthFilePath, buildahSession, createBuildah } from './buildah.js'
import type { StepCancellation } from './cancel.js'
import { createDocker, isolatedDockerConfig, jobDockerConfigPath } from './docker.js'
import { stepTempRoot } from './step-folder.js'

export function runnerBuilders(env: Env, exec: Exec, cancel: StepCancellation): BuilderPorts {
  const tempRoot = stepTempRoot(env)
  const settings = buildahSettings(env)
  const candidates = {
    dockerHost: env.DOCKER_HOST,
    docker: createDocker(exec, { tempRoot, cancel }),
    buildah: createBuildah(exec, { settings, tempRoot, cancel }),
  }
  return {
    candidates,
    async open(name, { login, mirrors }) {
      // Asked once: the choice asked already, and its answer is kept.
      const known = await candidates[name].versions()
      if (name === 'docker') {
        // Logins to other registries (private bases, a mirror) stay the runner's own.
        const session = login ? await isolatedDockerConfig(env, cancel) : undefined
        return {
          builder: createDocker(exec, { env: session?.env, tempRoot, cancel, known }),
          // The job's own, as the deploy step's image check reads it: not the step's copy.
          authFile: jobDockerConfigPath(env),
          dispose: async () => {
            await session?.dispose()
          },
        }
      }
      const session = await buildahSession(env, { login, mirrors, cancel })
      return {
        builder: createBuildah(exec, { settings, session, tempRoot, cancel, known }),
        authFile: buildahAuthFilePath(env),
        dispose: session.dispose,
      }
    },
  }
}
