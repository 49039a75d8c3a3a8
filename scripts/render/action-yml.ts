import { stringify } from 'yaml'
import type { ActionId } from '../../src/core/action-list.js'
import type { ActionDefinition } from '../../src/core/definition.js'

/** Each action's icon and colour on the GitHub Marketplace (action.yml's `branding`). */
const BRANDING: Record<ActionId, { icon: string; color: string }> = {
  deploy: { icon: 'upload-cloud', color: 'blue' },
  'build-images': { icon: 'package', color: 'blue' },
  snapshot: { icon: 'git-commit', color: 'blue' },
}

/** action.yml for a JavaScript action running the committed bundle on node24. */
export function renderActionYml(
  definition: ActionDefinition & { id: ActionId },
  bundlePath: string,
): string {
  const inputs: Record<string, Record<string, unknown>> = {}
  for (const [name, spec] of Object.entries(definition.inputs)) {
    inputs[name] = {
      description: spec.description,
      required: spec.required === true,
      ...(spec.default ? { default: spec.default } : {}),
    }
  }
  const outputs: Record<string, { description: string }> = {}
  for (const [name, spec] of Object.entries(definition.outputs))
    outputs[name] = { description: spec.description }
  const document = {
    name: definition.name,
    description: definition.description,
    author: 'olympe-deploy-actions',
    branding: BRANDING[definition.id],
    inputs,
    outputs,
    runs: { using: 'node24', main: bundlePath },
  }
  return `# Generated from src/core/${definition.id}/definition.ts by \`npm run build\`: edit that file, not this one.\n${stringify(document, { lineWidth: 0 })}`
}
