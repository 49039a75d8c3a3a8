// gitlab/README.md: how to include the templates, then one inputs table per template, generated
// from the same `spec: inputs` as the YAML so the two cannot disagree.
import type { GitlabInput } from './gitlab-inputs.js'
import type { Template } from './gitlab-template.js'

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

function shownDefault(input: GitlabInput): string {
  if (input.default === undefined) return '(mandatory)'
  const text = typeof input.default === 'string' ? input.default : JSON.stringify(input.default)
  return text === '' ? '`""`' : `\`${text}\``
}

function inputsTable(template: Template): string {
  const rows = Object.entries(template.inputs).map(([name, input]) => {
    const options = input.options
      ? ` One of: ${input.options.map((o) => `\`${o}\``).join(', ')}.`
      : ''
    const type = input.type ?? 'string'
    return `| \`${name}\` | ${type} | ${shownDefault(input)} | ${cell(input.description)}${options} |`
  })
  return ['| Input | Type | Default | Description |', '|---|---|---|---|', ...rows].join('\n')
}

function variablesTable(template: Template): string {
  const rows = Object.entries(template.variables).map(
    ([name, about]) => `| \`${name}\` | ${cell(about)} |`,
  )
  return ['| CI/CD variable | What for |', '|---|---|', ...rows].join('\n')
}

function templateSection(template: Template, version: string): string {
  return [
    `### \`${template.name}\``,
    '',
    `Olympe ${template.name}: ${template.summary}`,
    '',
    '```yaml',
    'include:',
    `  - component: $CI_SERVER_FQDN/<group>/olympe-deploy-actions/${template.name}@${version}`,
    '```',
    '',
    inputsTable(template),
    '',
    variablesTable(template),
  ].join('\n')
}

const USAGE = (version: string): string[] => [
  '## Using them',
  '',
  'Each file is a job template with typed `spec: inputs`, usable with any kind of `include:`.',
  'Pin a version: a tag of this project, or a full commit SHA.',
  '',
  '```yaml',
  'stages: [build, deploy]',
  'include:',
  '  # From a GitLab copy of this project published to the CI/CD catalog (see below):',
  `  - component: $CI_SERVER_FQDN/<group>/olympe-deploy-actions/pipeline@${version}`,
  '    inputs:',
  '      codeasdata: false',
  '  # Or straight from the repository, without the catalog:',
  '  # - project: <group>/olympe-deploy-actions',
  `  #   ref: v${version}`,
  '  #   file: /gitlab/pipeline.yml',
  '  # - remote: https://<host>/<path>/-/raw/<sha>/gitlab/pipeline.yml',
  '```',
  '',
  '- **Secrets are CI/CD variables, never inputs** (an input is part of the visible pipeline',
  '  configuration): `WEBHOOK_URL` and `WEBHOOK_TOKEN` (masked, protected), `CI_REGISTRY_PASSWORD`',
  "  (GitLab's own registry by default), `DRAW_PASSWORD` for the snapshot. To use another registry",
  '  account, set `registry-username` and define the masked variable `INPUT_REGISTRY_PASSWORD`:',
  "  project and group variables take precedence over the template's job variables.",
  '- **The package** is fetched by each job with `npx --yes olympe-deploy-actions@<version>`. The',
  '  `version` input defaults to the release the template comes from; `npm-registry` points npm at',
  "  an on-premise mirror (otherwise the runner's own npm configuration applies). The jobs need",
  '  Node.js 20 or newer: the `image` inputs default to `node:24` images, and the image jobs add',
  '  Node.js to `docker:27-cli` with `apk`.',
  "- **Images to deploy** reach the deploy job through the image job's dotenv report; set the",
  '  `frontend-image`, `backend-images` or `codeasdata-image` inputs of `deploy.yml` to deploy',
  '  references of your own (`$CI_REGISTRY_IMAGE/frontend:$CI_COMMIT_SHORT_SHA`: variables expand',
  '  when the job runs).',
  '- **The snapshot configuration** holds git tokens: keep it in a CI/CD variable of type *File*',
  '  and pass `config: $SNAPSHOT_CONFIG` (the variable holds the path of the file GitLab writes).',
  '  Then create a pipeline schedule: the snapshot job runs in scheduled pipelines only.',
  '- **The codeasdata switch** for "Run pipeline": declare a pipeline input and pass it on, as',
  '  `examples/gitlab/.gitlab-ci.yml` does.',
  '',
  '### Docker engine for the image jobs',
  '',
  'The image jobs run `docker build`, `docker login` and `docker push`, and honour `DOCKER_HOST`.',
  'On a shell runner with Docker, or a runner that mounts the Docker socket, nothing is needed.',
  'With the usual Docker-in-Docker service (a privileged runner):',
  '',
  '```yaml',
  'include:',
  `  - component: $CI_SERVER_FQDN/<group>/olympe-deploy-actions/pipeline@${version}`,
  '    inputs:',
  '      services: [{ name: "docker:27-dind", alias: docker }]',
  'variables:',
  '  DOCKER_HOST: tcp://docker:2376',
  '  DOCKER_TLS_CERTDIR: "/certs"',
  '  DOCKER_TLS_VERIFY: "1"',
  '  DOCKER_CERT_PATH: "/certs/client"',
  '```',
  '',
  '### Publishing to the CI/CD catalog',
  '',
  'The catalog reads components from a top-level `templates/` folder of a GitLab project. These',
  'files use no global keyword and take their job names and stages as inputs, so they are',
  'components as they stand: publish a GitLab mirror of this repository whose release job copies',
  "`gitlab/*.yml` to `templates/` (and this README to the project's README) at the release tag,",
  'then creates the release with the `release:` keyword. Copying in the mirror, rather than keeping',
  'a `templates/` copy here, leaves one source (the generator) and one place to check for drift;',
  'a symbolic link is not an option, since GitLab reads component files as blobs.',
  '',
]

export function renderGitlabReadme(templates: Template[], version: string): string {
  return [
    '<!-- Generated by `npm run build` from the action definitions (scripts/render/gitlab*.ts): edit those. -->',
    '',
    '# Olympe deploy: GitLab CI templates',
    '',
    'The same compiled bundle as the GitHub actions, run by each job with',
    '`npx --yes olympe-deploy-actions@<version> <action> --dotenv <file>`. Inputs reach it as',
    '`INPUT_<NAME_WITH_UNDERSCORES>` variables; secrets come from CI/CD variables, never from inputs.',
    '',
    '- Images and deploy run on the default branch only, never in merge request or scheduled',
    '  pipelines; the snapshot runs in scheduled pipelines.',
    '- `resource_group` keeps two deployments (or two snapshots) from running at once.',
    '- The image jobs hand their references to the deploy job through dotenv reports',
    '  (`OLYMPE_BUILD_IMAGES_FRONTEND_IMAGE`, `…_BACKEND_IMAGE`, `…_CODEASDATA_IMAGE`): the deploy',
    '  inputs default to them. In `pipeline.yml`, `<prefix>-images` builds the frontend and backend',
    '  only, and `<prefix>-codeasdata-image` the code-as-data image only (`images: codeasdata`). That',
    '  job runs before the deploy when `codeasdata` is true; otherwise it is a manual job that blocks',
    '  nothing, and running it later pushes no frontend or backend image again: the tags the deploy',
    '  used keep their images. Run the deploy job again afterwards to deploy the code as data.',
    '- GitLab cannot mask values at run time: the bundle redacts every line it prints, and each',
    '  phase of its log is a collapsible section.',
    '',
    ...USAGE(version),
    '## Components',
    '',
    ...templates.flatMap((template) => [templateSection(template, version), '']),
  ].join('\n')
}
