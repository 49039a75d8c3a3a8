import { ACTION_DEFINITIONS, ROOT_ACTION } from '../src/core/action-list.js'
import { outcomesTable } from '../src/core/deploy/outcomes.js'
import { snapshotConfigJsonSchema } from '../src/core/snapshot/json-schema.js'
import { renderActionYml } from './render/action-yml.js'
import { npxCost, type BenchFigures } from './render/bench-figures.js'
import { GITLAB_TEMPLATES, renderTemplate, templateTables } from './render/gitlab.js'
import { renderInputsTable, renderOutputsTable, replaceBetweenMarkers } from './render/readme.js'

/** Path → content of every generated file; README files and GitLab templates between markers. */
export async function generatedFiles(
  read: (path: string) => Promise<string>,
): Promise<Record<string, string>> {
  const files: Record<string, string> = {
    'action.yml': renderActionYml(ROOT_ACTION, `dist/${ROOT_ACTION.id}/index.js`),
    'dist/snapshot-config.schema.json': snapshotConfigJsonSchema(),
  }
  let readme = await read('README.md')
  for (const definition of ACTION_DEFINITIONS) {
    const { id } = definition
    files[`actions/${id}/action.yml`] = renderActionYml(definition, `../../dist/${id}/index.js`)
    readme = replaceBetweenMarkers(readme, `${id} inputs`, renderInputsTable(definition))
    readme = replaceBetweenMarkers(readme, `${id} outputs`, renderOutputsTable(definition))
  }
  readme = replaceBetweenMarkers(readme, 'rollout outcomes', outcomesTable())
  files['README.md'] = readme
  // The GitLab templates pin the package version they run: the one being built.
  const { version } = JSON.parse(await read('package.json')) as { version: string }
  let gitlabReadme = await read('gitlab/README.md')
  for (const name of GITLAB_TEMPLATES) {
    const path = `gitlab/${name}.yml`
    files[path] = renderTemplate(path, await read(path), version)
    gitlabReadme = replaceBetweenMarkers(gitlabReadme, `${name}.yml`, templateTables(files[path]))
  }
  const figures = JSON.parse(await read('bench/results.json')) as BenchFigures
  gitlabReadme = replaceBetweenMarkers(gitlabReadme, 'npx cost', npxCost(figures))
  files['gitlab/README.md'] = gitlabReadme
  return files
}
