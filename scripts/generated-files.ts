import { renderPerformance, type BenchResults } from '../bench/report.js'
import { ACTION_DEFINITIONS, ROOT_ACTION } from '../src/core/action-list.js'
import { outcomesTable } from '../src/core/deploy/outcomes.js'
import { snapshotConfigJsonSchema } from '../src/core/snapshot/json-schema.js'
import { renderActionReadme } from './render/action-readme.js'
import { renderActionYml } from './render/action-yml.js'
import { buildahCost, npxCost } from './render/bench-figures.js'
import { GITLAB_TEMPLATES, renderTemplate, templateTables } from './render/gitlab.js'
import { renderInputsTable, renderOutputsTable, replaceBetweenMarkers } from './render/readme.js'

/**
 * Path → content of every generated file: whole files, and the regions between markers of the
 * hand-written guides and GitLab templates. Each region has this one writer.
 */
export async function generatedFiles(
  read: (path: string) => Promise<string>,
): Promise<Record<string, string>> {
  const files: Record<string, string> = {
    'action.yml': renderActionYml(ROOT_ACTION, `dist/${ROOT_ACTION.id}/index.js`),
    'dist/snapshot-config.schema.json': snapshotConfigJsonSchema(),
  }
  for (const definition of ACTION_DEFINITIONS) {
    const { id } = definition
    files[`actions/${id}/action.yml`] = renderActionYml(definition, `../../dist/${id}/index.js`)
    files[`actions/${id}/README.md`] = renderActionReadme(definition)
    // The action's inputs and outputs, one table each, here in its guide and in no other guide.
    // Each description is written once, in the definition: gitlab/README.md's tables (below) show
    // the GitLab templates' `spec: inputs`, in GitLab's types and defaults, from the same text.
    const guide = `docs/${id}.md`
    let text = await read(guide)
    text = replaceBetweenMarkers(text, `${id} inputs`, renderInputsTable(definition), guide)
    text = replaceBetweenMarkers(text, `${id} outputs`, renderOutputsTable(definition), guide)
    files[guide] = text
  }
  // The rollout's outcomes, from their one definition, in the deploy guide.
  files['docs/deploy.md'] = replaceBetweenMarkers(
    files['docs/deploy.md'] ?? '',
    'rollout outcomes',
    outcomesTable(),
    'docs/deploy.md',
  )
  // The GitLab templates pin the package version they run: the one being built.
  const { version } = JSON.parse(await read('package.json')) as { version: string }
  let gitlabReadme = await read('gitlab/README.md')
  for (const name of GITLAB_TEMPLATES) {
    const path = `gitlab/${name}.yml`
    files[path] = renderTemplate(path, await read(path), version)
    gitlabReadme = replaceBetweenMarkers(
      gitlabReadme,
      `${name}.yml`,
      templateTables(files[path]),
      'gitlab/README.md',
    )
  }
  // Measured figures: written by `npm run bench` into bench/results.json, rendered only here.
  const figures = JSON.parse(await read('bench/results.json')) as BenchResults
  files['gitlab/README.md'] = replaceBetweenMarkers(
    gitlabReadme,
    'npx cost',
    npxCost(figures),
    'gitlab/README.md',
  )
  files['docs/build-images.md'] = replaceBetweenMarkers(
    files['docs/build-images.md'] ?? '',
    'buildah cost',
    buildahCost(figures),
    'docs/build-images.md',
  )
  files['docs/performance.md'] = replaceBetweenMarkers(
    await read('docs/performance.md'),
    'performance',
    renderPerformance(figures),
    'docs/performance.md',
  )
  return files
}
