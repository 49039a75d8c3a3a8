#!/usr/bin/env node
// `node release/catalog-pin.mjs --version <X.Y.Z> --digest sha256:… --project-path <group>/<project>`:
// run by the catalog project's release pipeline (its `.gitlab-ci.yml`, laid out from
// .ci/catalog-gitlab-ci.yml) once it has pushed the job image. It lays templates/<name>/template.yml
// out again from release/gitlab/<name>.yml (the sources the catalog layout put there, beside this
// script and catalog-template.mjs), with the jobs naming that image by the digest pushed,
// `$CI_REGISTRY/<project path>/olympe-deploy:<version>@<digest>`: the registry of the project the
// pipeline runs in, so that a copy of the catalog project on another instance pins its own build.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { catalogTemplate, jobImagePrefix, PROJECT_PATH } from './catalog-template.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const PROJECT = dirname(HERE)
const USAGE =
  'usage: node release/catalog-pin.mjs --version <X.Y.Z> --digest sha256:<hex> --project-path <group>/<project>'

function fail(message, code = 1) {
  process.stderr.write(`${message}\n`)
  process.exit(code)
}

let options
try {
  options = parseArgs({
    options: {
      version: { type: 'string' },
      digest: { type: 'string' },
      'project-path': { type: 'string' },
    },
  }).values
} catch (error) {
  fail(`${error.message}\n${USAGE}`, 2)
}
const { version = '', digest = '' } = options
const projectPath = options['project-path'] ?? ''
if (!PROJECT_PATH.test(projectPath))
  fail(
    `--project-path '${projectPath}' is not a GitLab project path such as 'acme/olympe-deploy-actions'.\n${USAGE}`,
    2,
  )
const sources = join(HERE, 'gitlab')
const names = readdirSync(sources)
  .filter((file) => file.endsWith('.yml'))
  .map((file) => file.slice(0, -'.yml'.length))
  .sort()
const prefix = jobImagePrefix(projectPath)
let templates
try {
  templates = names.map((name) => [
    name,
    catalogTemplate(name, readFileSync(join(sources, `${name}.yml`), 'utf8'), prefix, {
      version,
      digest,
    }),
  ])
} catch (error) {
  fail(`${error.message}\n${USAGE}`, 2)
}
for (const [name, text] of templates)
  writeFileSync(join(PROJECT, 'templates', name, 'template.yml'), text)
process.stdout.write(
  `Pinned the components ${names.join(', ')} to the job image ` +
    `${prefix}/olympe-deploy:${version}@${digest}.\n`,
)
