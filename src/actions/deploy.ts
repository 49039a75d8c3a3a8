import { deployDefinition, type DeployInputName } from '../core/deploy/definition.js'
import { checkDeploy, type CheckedDeploy } from '../core/deploy/check.js'
import { cancelReport } from '../core/deploy/progress.js'
import { runDeploy } from '../core/deploy/run.js'
import { runAction, type Action } from '../platform/run.js'
import type { Invocation } from '../platform/start.js'
import { systemClock } from '../tools/clock.js'
import { nodeFiles } from '../tools/files.js'
import { USER_AGENT } from '../platform/package-info.js'
import { jobDockerConfigPath } from '../tools/docker.js'
import { createHttpClient } from '../tools/http.js'
import { yamlParserFor } from './yaml-parser.js'

export const deployAction: Action<DeployInputName, CheckedDeploy> = {
  definition: deployDefinition,
  check: async (raw, context, platform) =>
    checkDeploy(raw, { parseYaml: await yamlParserFor(raw['deploy-rules']) }, context, {
      ...platform,
      files: nodeFiles,
      clock: systemClock,
    }),
  // Until it runs, nothing is sent; from then on, it says how far it got (see cancelReport).
  cancelNote: () => cancelReport({ kind: 'not-sent' }).note,
  async run(checked, context, platform) {
    const end = await runDeploy(checked, context, {
      ...platform,
      progress: (phase) => platform.cancel.reportWith(() => cancelReport(phase)),
      http: createHttpClient(USER_AGENT),
      clock: systemClock,
      files: nodeFiles,
      dockerConfigPath: jobDockerConfigPath(process.env),
      // The signature reader is loaded only when signatures are checked, and the attestation
      // reader only when a provenance is required: the deploy step starts without them.
      ...(checked.signatures
        ? { readSignatures: (await import('../core/signing/signatures.js')).readSignatures }
        : {}),
      ...(checked.inputs.provenanceRepositories
        ? {
            readProvenance: (await import('../core/attestations/provenance-check.js'))
              .readProvenance,
          }
        : {}),
    })
    if (end.notLive !== undefined) platform.notLive(end.notLive)
  },
}

/** The step, for the bundle's entry and for @github/local-action; importing it runs nothing. */
export const run = (invocation: Invocation = {}): Promise<void> =>
  runAction(deployAction, invocation)
