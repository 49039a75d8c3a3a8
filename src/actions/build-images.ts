import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../core/build-images/definition.js'
import { buildkitDisabled } from '../core/build-images/builders/docker-args.js'
import { checkBuildImages, type CheckedBuildImages } from '../core/build-images/check.js'
import { runBuildImages } from '../core/build-images/run.js'
import { checkedOutputs } from '../core/build-images/report.js'
import { runAction, type Action } from '../platform/run.js'
import type { Invocation } from '../platform/start.js'
import { systemClock } from '../tools/clock.js'
import { USER_AGENT } from '../platform/package-info.js'
import { runnerBuilders } from '../tools/builders.js'
import { createExec } from '../tools/exec.js'
import { createHttpClient } from '../tools/http.js'
import { nodeFiles } from '../tools/files.js'
import { trackedFiles } from '../tools/tracked-files.js'
import { reuseRecordsFor } from '../platform/reuse-records.js'
import { yamlParserFor } from './yaml-parser.js'

export const buildImagesAction: Action<BuildImagesInputName, CheckedBuildImages> = {
  definition: buildImagesDefinition,
  // The docker command reads DOCKER_BUILDKIT itself: a false value means the legacy builder.
  check: async (raw, context, platform) =>
    checkBuildImages(
      raw,
      context,
      { ...platform, files: nodeFiles, clock: systemClock },
      {
        buildkitDisabled: buildkitDisabled(process.env.DOCKER_BUILDKIT),
        parseYaml: await yamlParserFor(raw.backends),
        // The key reader (scrypt, the secretbox) is loaded only when there is a key to open.
        ...(raw['signing-key'] === ''
          ? {}
          : { openSigningKey: (await import('../core/signing/private-key.js')).openSigningKey }),
      },
    ),
  // What a fan-out's planning job needs of `check-only`: the images a run builds.
  checkedOutputs: (checked) => checkedOutputs(checked.inputs.targets, 'skipped' in checked),
  cancelNote: (checked) =>
    `Builds under way were stopped${checked?.inputs.registryLogin ? ", and the step's own registry login (its Docker config, or Buildah's auth file) was removed" : ''}. Images pushed before the cancel stay in the registry.`,
  async run(checked, context, platform) {
    const { cancel } = platform
    const exec = createExec(cancel)
    await runBuildImages(checked, context, {
      ...platform,
      builders: runnerBuilders(process.env, exec, cancel),
      files: nodeFiles,
      clock: systemClock,
      http: createHttpClient(USER_AGENT),
      // The signing code (the signatures' reading and writing) is loaded only with a key.
      signing: () => import('../core/build-images/sign.js'),
      records: reuseRecordsFor(
        context.platform,
        process.env,
        nodeFiles,
        context.workspace,
        trackedFiles(exec),
      ),
    })
  },
}

/** The step, for the bundle's entry and for @github/local-action; importing it runs nothing. */
export const run = (invocation: Invocation = {}): Promise<void> =>
  runAction(buildImagesAction, invocation)
