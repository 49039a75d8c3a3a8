// The GitLab templates (gitlab/*.yml): `spec: inputs` from the action definitions, then jobs that
// run the same bundle as the GitHub actions. No global keywords, so each file is also a CI/CD
// catalog component as it stands.
import type { ActionDefinition } from '../../src/core/definition.js'
import { buildImagesTemplate, deployTemplate, snapshotTemplate } from './gitlab-actions.js'
import { pipelineTemplate } from './gitlab-pipeline.js'
import { renderGitlabReadme } from './gitlab-readme.js'
import { renderTemplate, type Template } from './gitlab-template.js'

function byId(
  definitions: readonly ActionDefinition[],
  id: ActionDefinition['id'],
): ActionDefinition {
  const found = definitions.find((definition) => definition.id === id)
  if (!found) throw new Error(`No action definition with id '${id}'.`)
  return found
}

export function gitlabTemplates(
  definitions: readonly ActionDefinition[],
  version: string,
): Template[] {
  const deploy = byId(definitions, 'deploy')
  const buildImages = byId(definitions, 'build-images')
  return [
    snapshotTemplate(byId(definitions, 'snapshot'), version),
    buildImagesTemplate(buildImages, version),
    deployTemplate(deploy, buildImages, version),
    pipelineTemplate({ buildImages, deploy }, version),
  ]
}

/** Path → content of gitlab/<name>.yml for each template, and gitlab/README.md. */
export function gitlabFiles(
  definitions: readonly ActionDefinition[],
  version: string,
): Record<string, string> {
  const templates = gitlabTemplates(definitions, version)
  const files: Record<string, string> = {}
  for (const template of templates) files[`gitlab/${template.name}.yml`] = renderTemplate(template)
  files['gitlab/README.md'] = renderGitlabReadme(templates, version)
  return files
}
