import type { ActionDefinition } from '../../src/core/definition.js'

/**
 * actions/<id>/README.md, which GitHub shows below the folder's files: what the action does, and
 * where its guide is, whose tables document the inputs and outputs (gitlab/README.md has the
 * GitLab templates' own tables, generated from the same definitions).
 */
export function renderActionReadme(definition: ActionDefinition): string {
  const { id } = definition
  return [
    `<!-- Generated from src/core/${id}/definition.ts by \`npm run build\`: edit that file, not this one. -->`,
    '',
    `# ${definition.name}`,
    '',
    definition.description,
    '',
    `Use it as \`your-org/olympe-deploy-actions/actions/${id}@v1\`. What it does, a workflow to start`,
    `from, and its inputs and outputs: [docs/${id}.md](../../docs/${id}.md). Its contract for the`,
    `runner: [action.yml](action.yml).`,
    '',
  ].join('\n')
}
