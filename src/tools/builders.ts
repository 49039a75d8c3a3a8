// The runner's builders, for build-images: asked whether they answer (the `builder: auto`
// decision), then the one chosen opened with the configuration of the step's own it runs with.
// Each builder's adapter is registered here once, by the name its core descriptor has.
import { buildahSettings } from '../core/build-images/builders/buildah-args.js'
import type { BuilderName, ImageBuilder } from '../core/build-images/builders/image-builder.js'
import type { BuilderPorts, OpenBuilder } from '../core/build-images/run.js'
import type { RegistryMirrors } from '../core/registry/mirrors.js'
import type { Env } from '../core/shared/env.js'
import type { Exec } from '../core/shared/exec.js'
import { buildahAuthFilePath, buildahSession, createBuildah } from './buildah.js'
import type { StepCancellation } from './cancel.js'
import { createDocker, isolatedDockerConfig, jobDockerConfigPath } from './docker.js'
import { stepTempRoot } from './step-folder.js'

/** What every adapter is made with: the job's environment, the exec port, the step's cancel. */
interface AdapterContext {
  env: Env
  exec: Exec
  cancel: StepCancellation
  /** Where a build's scratch folders go (see stepTempRoot). */
  tempRoot: string
}

type Versions = Awaited<ReturnType<ImageBuilder['versions']>>

/** One builder's adapter: a probe for the choice, and the builder opened for the step. */
interface BuilderAdapter {
  probe(context: AdapterContext): ImageBuilder
  open(
    context: AdapterContext,
    /** What the probe answered: asked once. */
    known: Versions,
    options: { login: boolean; mirrors: RegistryMirrors },
  ): Promise<OpenBuilder>
}

const ADAPTERS: Record<BuilderName, BuilderAdapter> = {
  docker: {
    probe: ({ exec, tempRoot, cancel }) => createDocker(exec, { tempRoot, cancel }),
    async open({ env, exec, tempRoot, cancel }, known, { login }) {
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
    },
  },
  buildah: {
    probe: ({ env, exec, tempRoot, cancel }) =>
      createBuildah(exec, { settings: buildahSettings(env), tempRoot, cancel }),
    async open({ env, exec, tempRoot, cancel }, known, { login, mirrors }) {
      const session = await buildahSession(env, { login, mirrors, cancel })
      return {
        builder: createBuildah(exec, {
          settings: buildahSettings(env),
          session,
          tempRoot,
          cancel,
          known,
        }),
        authFile: buildahAuthFilePath(env),
        dispose: session.dispose,
      }
    },
  },
}

export function runnerBuilders(env: Env, exec: Exec, cancel: StepCancellation): BuilderPorts {
  const context: AdapterContext = { env, exec, cancel, tempRoot: stepTempRoot(env) }
  const probes = Object.fromEntries(
    Object.entries(ADAPTERS).map(([name, adapter]) => [name, adapter.probe(context)]),
  ) as Record<BuilderName, ImageBuilder>
  return {
    candidates: { dockerHost: env.DOCKER_HOST, ...probes },
    async open(name, options) {
      // Asked once: the choice asked already, and its answer is kept.
      const known = await probes[name].versions()
      return ADAPTERS[name].open(context, known, options)
    },
  }
}
