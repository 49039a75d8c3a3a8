import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../core/build-images/definition.js'
import { buildkitDisabled } from '../core/build-images/docker-args.js'
import {
  buildSecretValues,
  secretLookingBuildArgValues,
} from '../core/build-images/input-parsers.js'
import { checkBuildImages, type CheckedBuildImages } from '../core/build-images/check.js'
import { runBuildImages } from '../core/build-images/run.js'
import { loginSecrets } from '../core/registry/credentials.js'
import { signingKeySecrets } from '../core/signing/pem.js'
import { runAction, type Action } from '../platform/run.js'
import type { Invocation } from '../platform/start.js'
import { systemClock } from '../tools/clock.js'
import { USER_AGENT } from '../platform/package-info.js'
import {
  createDocker,
  isolatedDockerConfig,
  jobDockerConfigPath,
  stepTempRoot,
} from '../tools/docker.js'
import { createExec } from '../tools/exec.js'
import { createHttpClient } from '../tools/http.js'
import { nodeFiles } from '../tools/files.js'
import { reuseRecordsFor } from '../platform/reuse-records.js'

export const buildImagesAction: Action<BuildImagesInputName, CheckedBuildImages> = {
  definition: buildImagesDefinition,
  derivedSecrets: (raw) => [
    ...loginSecrets(raw['registry-username'], raw['registry-password']),
    ...buildSecretValues(raw['build-secrets']),
    ...secretLookingBuildArgValues(raw['build-args']),
    ...signingKeySecrets(raw['signing-key']),
  ],
  // The docker command reads DOCKER_BUILDKIT itself: a false value means the legacy builder.
  check: async (raw, context, platform) =>
    checkBuildImages(
      raw,
      {
        ...context,
        buildkitDisabled: buildkitDisabled(process.env.DOCKER_BUILDKIT),
        // The key reader (scrypt, the secretbox) is loaded only when there is a key to open.
        ...(raw['signing-key'] === ''
          ? {}
          : { openSigningKey: (await import('../core/signing/private-key.js')).openSigningKey }),
      },
      context,
      { ...platform, files: nodeFiles, clock: systemClock },
    ),
  cancelNote: (checked) =>
    `Builds under way were stopped${checked?.inputs.credentials ? ", and the step's own Docker config, which held the registry login, was removed" : ''}. Images pushed before the cancel stay in the registry.`,
  async run(checked, context, platform) {
    const { cancel } = platform
    // A skipped run logs in nowhere: no Docker config of its own.
    const session =
      checked.inputs.credentials && !('skipped' in checked)
        ? await isolatedDockerConfig(process.env, cancel)
        : undefined
    try {
      await runBuildImages(checked, context, {
        ...platform,
        docker: createDocker(createExec(cancel), {
          env: session?.env,
          tempRoot: stepTempRoot(process.env),
          cancel,
        }),
        files: nodeFiles,
        clock: systemClock,
        http: createHttpClient(USER_AGENT),
        // The job's own, as the deploy step's image check reads it: not the step's copy.
        dockerConfigPath: jobDockerConfigPath(process.env),
        records: reuseRecordsFor(context.platform, process.env, nodeFiles, context.workspace),
      })
    } finally {
      await session?.dispose()
    }
  },
}

/** The step, for the bundle's entry and for @github/local-action; importing it runs nothing. */
export const run = (invocation: Invocation = {}): Promise<void> =>
  runAction(buildImagesAction, invocation)
