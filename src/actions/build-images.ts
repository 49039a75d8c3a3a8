import { registryAuthSecret } from '../core/build-images/credentials.js'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../core/build-images/definition.js'
import { parseBuildImagesInputs } from '../core/build-images/inputs.js'
import { runBuildImages } from '../core/build-images/run.js'
import { runAction, type Action } from '../platform/run.js'
import { systemClock } from '../tools/clock.js'
import { createDocker, isolatedDockerConfig } from '../tools/docker.js'
import { exec } from '../tools/exec.js'
import { nodeFiles } from '../tools/files.js'

export const buildImagesAction: Action<BuildImagesInputName> = {
  definition: buildImagesDefinition,
  derivedSecrets: (raw) => registryAuthSecret(raw['registry-username'], raw['registry-password']),
  async run(raw, context, platform) {
    const inputs = parseBuildImagesInputs(raw, context)
    const session = inputs.credentials ? await isolatedDockerConfig(process.env) : undefined
    try {
      await runBuildImages(inputs, context, {
        ...platform,
        docker: createDocker(exec, session ? { env: session.env } : {}),
        files: nodeFiles,
        clock: systemClock,
      })
    } finally {
      await session?.dispose()
    }
  },
}

/** The step, for the bundle's entry and for @github/local-action; importing it runs nothing. */
export const run = (): Promise<void> => runAction(buildImagesAction)
