import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../core/build-images/definition.js'
import { parseBuildImagesInputs, type BuildImagesInputs } from '../core/build-images/inputs.js'
import { runBuildImages } from '../core/build-images/run.js'
import { loginSecrets } from '../core/registry/credentials.js'
import { runAction, type Action } from '../platform/run.js'
import type { Invocation } from '../platform/start.js'
import { systemClock } from '../tools/clock.js'
import { USER_AGENT } from '../platform/package-info.js'
import { createDocker, isolatedDockerConfig, jobDockerConfigPath } from '../tools/docker.js'
import { createHttpClient } from '../tools/http.js'
import { exec } from '../tools/exec.js'
import { nodeFiles } from '../tools/files.js'

export const buildImagesAction: Action<BuildImagesInputName, BuildImagesInputs> = {
  definition: buildImagesDefinition,
  derivedSecrets: (raw) => loginSecrets(raw['registry-username'], raw['registry-password']),
  parse: parseBuildImagesInputs,
  async run(inputs, context, platform) {
    const session = inputs.credentials ? await isolatedDockerConfig(process.env) : undefined
    try {
      await runBuildImages(inputs, context, {
        ...platform,
        docker: createDocker(exec, session ? { env: session.env } : {}),
        files: nodeFiles,
        clock: systemClock,
        http: createHttpClient(USER_AGENT),
        // The job's own, as the deploy step's image check reads it: not the step's copy.
        dockerConfigPath: jobDockerConfigPath(process.env),
      })
    } finally {
      await session?.dispose()
    }
  },
}

/** The step, for the bundle's entry and for @github/local-action; importing it runs nothing. */
export const run = (invocation: Invocation = {}): Promise<void> =>
  runAction(buildImagesAction, invocation)
