import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { deployDefinition, type DeployInputName } from '../core/deploy/definition.js'
import { parseDeployInputs, type ParseYaml } from '../core/deploy/inputs.js'
import { runDeploy } from '../core/deploy/run.js'
import { webhookUrlSecrets } from '../core/deploy/secrets.js'
import type { Action } from '../platform/run.js'
import { createHttpClient } from '../tools/http.js'

export const deployAction: Action<DeployInputName> = {
  definition: deployDefinition,
  derivedSecrets: (raw) => webhookUrlSecrets(raw['webhook-url']),
  async run(raw, tools) {
    const parseYaml = await yamlParserFor(raw['deploy-rules'])
    const inputs = parseDeployInputs(raw, parseYaml)
    await runDeploy(inputs, {
      ...tools,
      http: createHttpClient(),
      readFile: (path) => readFile(resolve(tools.context.workspace, path), 'utf8'),
      sleep: async (ms) => {
        await sleep(ms)
      },
      now: () => Date.now(),
    })
  },
}

/** The YAML parser is a third of the bundle: load it only for rules that are not plain JSON. */
async function yamlParserFor(rules: string): Promise<ParseYaml> {
  try {
    if (rules !== '') JSON.parse(rules)
    return JSON.parse
  } catch {
    const { parse } = await import('yaml')
    return (text: string) => parse(text) as unknown
  }
}
