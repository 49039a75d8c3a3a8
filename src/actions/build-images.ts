import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../core/build-images/definition.js'
import { buildkitDisabled } from '../core/build-images/docker-args.js'
import { parseBuildImagesInputs, type BuildImagesInputs } from '../core/build-images/inputs.js'
import { runBuildImages } from '../core/build-images/run.js'
import { runAction, type Action } from '../platform/run.js'
import type { Invocation } from '../platform/start.js'
import { systemClock } from '../tools/clock.js'
import { USER_AGENT } from '../platform/package-info.js'
import { runnerBuilders } from '../tools/builders.js'
import { createExec } from '../tools/exec.js'
import { createHttpClient } from '../tools/http.js'
import { nodeFiles } from '../tools/files.js'
import { reuseRecordsFor } from '../platform/reuse-records.js'

export const buildImagesAction: Action<BuildImagesInputName, BuildImagesInputs> = {
  definition: buildImagesDefinition,
  // The docker command reads DOCKER_BUILDKIT itself: a false value means the legacy builder.
  parse: async (raw, context) =>
    parseBuildImagesInputs(raw, {
      ...context,
      buildkitDisabled: buildkitDisabled(process.env.DOCKER_BUILDKIT),
      // The key reader (scrypt, the secretbox) is loaded only when there is a key to open.
      ...(raw['signing-key'] === ''
        ? {}
        : { openSigningKey: (await import('../core/signing/private-key.js')).openSigningKey }),
    }),
  cancelNote: (inputs) =>
    `Builds under way were stopped${inputs?.registryLogin ? ", and the step's own registry login (its Docker config, or Buildah's auth file) was removed" : ''}. Images pushed before the cancel stay in the registry.`,
  async run(inputs, context, platform) {
    // The key's opened forms, masked before anything can print them.
    for (const secret of inputs.signingKey?.secrets ?? []) platform.registerSecret(secret)
    const { cancel } = platform
    await runBuildImages(inputs, context, {
      ...platform,
      builders: runnerBuilders(process.env, createExec(cancel), cancel),
      files: nodeFiles,
      clock: systemClock,
      http: createHttpClient(USER_AGENT),
      records: reuseRecordsFor(context.platform, process.env, nodeFiles, context.workspace),
    })
  },
}

/** The step, for the bundle's entry and for @github/local-action; importing it runs nothing. */
export const run = (invocation: Invocation = {}): Promise<void> =>
  runAction(buildImagesAction, invocation)
