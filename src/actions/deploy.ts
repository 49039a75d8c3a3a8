import { deployDefinition, type DeployInputName } from '../core/deploy/definition.js'
import { parseDeployInputs, type ParseYaml } from '../core/deploy/inputs.js'
import { runDeploy } from '../core/deploy/run.js'
import { webhookUrlSecrets } from '../core/deploy/secrets.js'
import { runAction, type Action } from '../platform/run.js'
import { systemClock } from '../tools/clock.js'
import { nodeFiles } from '../tools/files.js'
import { USER_AGENT } from '../platform/package-info.js'
import { jobDockerConfigPath } from '../tools/docker.js'
import { createHttpClient } from '../tools/http.js'
import { registryAuthSecret } from '../core/build-images/credentials.js'

export const deployAction: Action<DeployInputName> = {
  definition: deployDefinition,
  derivedSecrets: (raw) => [
    ...webhookUrlSecrets(raw['webhook-url']),
    ...registryAuthSecret(raw['registry-username'], raw['registry-password']),
  ],
  async run(raw, context, platform) {
    const inputs = parseDeployInputs(raw, await yamlParserFor(raw['deploy-rules']))
    await runDeploy(inputs, context, {
      ...platform,
      http: createHttpClient(USER_AGENT),
      clock: systemClock,
      files: nodeFiles,
      dockerConfigPath: jobDockerConfigPath(process.env),
    })
  },
}

/** The step, for the bundle's entry and for @github/local-action; importing it runs nothing. */
export const run = (): Promise<void> => runAction(deployAction)

/** The YAML parser is 110 KB minified: load it only for rules that are not plain JSON. */
async function yamlParserFor(rules: string): Promise<ParseYaml> {
  try {
    if (rules !== '') JSON.parse(rules)
    return JSON.parse
  } catch {
    const { parse } = await import('yaml')
    return (text: string) => parse(text) as unknown
  }
}
