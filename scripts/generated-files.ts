import { ACTION_DEFINITIONS, ROOT_ACTION } from '../src/core/definitions.js'
import { snapshotConfigJsonSchema } from '../src/core/snapshot/json-schema.js'
import { renderActionYml } from './render/action-yml.js'
import { gitlabFiles } from './render/gitlab.js'
import { renderInputsTable, renderOutputsTable, replaceBetweenMarkers } from './render/readme.js'

/** Path → content of every generated file; README.md is regenerated between its markers. */
export async function generatedFiles(
  read: (path: string) => Promise<string>,
): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  files['action.yml'] = renderActionYml(ROOT_ACTION, `dist/${ROOT_ACTION.id}/index.js`)
  for (const definition of ACTION_DEFINITIONS) {
    files[`actions/${definition.id}/action.yml`] = renderActionYml(
      definition,
      `../../dist/${definition.id}/index.js`,
    )
  }
  files['dist/snapshot-config.schema.json'] = snapshotConfigJsonSchema()
  let readme = await read('README.md')
  for (const definition of ACTION_DEFINITIONS) {
    readme = replaceBetweenMarkers(readme, `${definition.id} inputs`, renderInputsTable(definition))
    readme = replaceBetweenMarkers(
      readme,
      `${definition.id} outputs`,
      renderOutputsTable(definition),
    )
  }
  files['README.md'] = readme
  // The GitLab templates pin the package version they run: the one being built.
  const { version } = JSON.parse(await read('package.json')) as { version: string }
  Object.assign(files, gitlabFiles(ACTION_DEFINITIONS, version))
  return files
}
