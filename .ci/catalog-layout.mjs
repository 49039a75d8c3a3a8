#!/usr/bin/env node
// `node .ci/catalog-layout.mjs [folder] --project-path <group>/<project> [--package <tarball>]`:
// lays out the GitLab CI/CD catalog project from gitlab/, in the structure GitLab's catalog reads
// at a release tag, which the project's release pipeline then makes (see catalog-gitlab-ci.yml):
//   templates/<name>/template.yml  gitlab/<name>.yml as the catalog serves it (catalog-template.mjs):
//                                  its jobs run in the job image, whose registry path
//                                  (`job-image-prefix`) is `$CI_REGISTRY/<project path>`, named
//                                  by its tag until the release pipeline pins it by digest
//   templates/<name>/README.md     the component's section of gitlab/README.md
//   job-image/                     what the job image is built from: .ci/job-image/ and, in
//                                  package/, the npm package (the tarball given, else `npm pack`)
//   release/                       what the release pipeline lays the templates out again with:
//                                  catalog-pin.mjs, catalog-template.mjs, gitlab/<name>.yml
//   README.md                      gitlab/README.md;  LICENSE.md  the licence
//   .gitlab-ci.yml                 .ci/catalog-gitlab-ci.yml for this version: the job image, a dry
//                                  run, the templates pinned to the image's digest, the release
//   RELEASE-NOTES.md               the notes of package.json's version, from CHANGELOG.md
// The folder (default build/gitlab-catalog, git-ignored) is new, empty, or a clone of the catalog
// project: the files of an earlier layout are replaced and `.git` is kept; anything else there
// stops the script before it writes.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { catalogTemplate, jobImagePrefix, PROJECT_PATH } from './catalog-template.mjs'
import { PACKAGE, releaseNotes } from './release-notes.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const LAID_OUT = [
  'templates',
  'job-image',
  'release',
  'README.md',
  'LICENSE.md',
  '.gitlab-ci.yml',
  'RELEASE-NOTES.md',
]
const read = (path) => readFileSync(join(ROOT, path), 'utf8')

function fail(message, code = 1) {
  process.stderr.write(`${message}\n`)
  process.exit(code)
}

/** `### \`name\`` of gitlab/README.md's Components, up to the next heading of that level or above. */
function componentSection(readme, name) {
  const lines = readme.split('\n')
  const start = lines.indexOf(`### \`${name}\``)
  if (start < 0) return undefined
  const next = lines.findIndex((line, index) => index > start && /^#{1,3} /.test(line))
  return lines
    .slice(start + 1, next < 0 ? undefined : next)
    .join('\n')
    .trim()
}

function componentReadme(readme, name) {
  const section = componentSection(readme, name)
  if (section === undefined)
    fail(
      `gitlab/README.md has no section '### \`${name}\`' for gitlab/${name}.yml: run 'npm run build'.`,
    )
  return [
    `# Component \`${name}\``,
    '',
    section,
    '',
    'More: [the project README](../../README.md).',
    '',
  ].join('\n')
}

/**
 * Unpacks the npm package the job image holds into `folder`/package: the tarball given (the one
 * npm serves, in the release workflow), else `npm pack` of this checkout. It must be this version.
 */
function unpackPackage(tarball, folder, version) {
  const packed =
    tarball === undefined
      ? join(
          folder,
          JSON.parse(
            execFileSync('npm', ['pack', '--json', '--pack-destination', folder], {
              cwd: ROOT,
              encoding: 'utf8',
              stdio: ['ignore', 'pipe', 'inherit'],
            }),
          )[0].filename,
        )
      : resolve(tarball)
  if (!existsSync(packed))
    fail(`--package '${tarball}' does not exist: give the npm package tarball.`, 2)
  execFileSync('tar', ['-xzf', packed, '-C', folder], { stdio: ['ignore', 'ignore', 'inherit'] })
  const manifest = join(folder, 'package/package.json')
  const found = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')) : {}
  if (found.name !== PACKAGE || found.version !== version)
    fail(
      `'${packed}' holds ${found.name ?? 'no package'}@${found.version ?? '?'}, not ` +
        `${PACKAGE}@${version}: give the tarball of the version being laid out.`,
    )
}

const USAGE =
  'usage: node .ci/catalog-layout.mjs [folder] --project-path <group>/<project> [--package <tarball>]'
let options
try {
  options = parseArgs({
    allowPositionals: true,
    options: { 'project-path': { type: 'string' }, package: { type: 'string' } },
  })
} catch (error) {
  fail(`${error.message}\n${USAGE}`, 2)
}
const projectPath = options.values['project-path'] ?? ''
if (!PROJECT_PATH.test(projectPath))
  fail(
    `--project-path '${projectPath}' is not a GitLab project path such as 'acme/olympe-deploy-actions': ` +
      'give the path of the catalog project, whose registry holds the job image.\n' +
      USAGE,
    2,
  )
const target = resolve(options.positionals[0] ?? join(ROOT, 'build/gitlab-catalog'))
const strangers = existsSync(target)
  ? readdirSync(target).filter((entry) => entry !== '.git' && !LAID_OUT.includes(entry))
  : []
if (strangers.length > 0)
  fail(
    `'${target}' holds ${strangers.map((entry) => `'${entry}'`).join(', ')}, which no catalog layout ` +
      'made: lay out into a new folder or a clone of the catalog project.',
    2,
  )
const { version } = JSON.parse(read('package.json'))
let notes
try {
  const repository = process.env.GITHUB_REPOSITORY || `<owner>/${PACKAGE}`
  notes = releaseNotes(read('CHANGELOG.md'), version, repository)
} catch (error) {
  fail(error.message)
}
const readme = read('gitlab/README.md')
const names = readdirSync(join(ROOT, 'gitlab'))
  .filter((file) => file.endsWith('.yml'))
  .map((file) => file.slice(0, -'.yml'.length))
  .sort()
const readmes = Object.fromEntries(names.map((name) => [name, componentReadme(readme, name)]))
const prefix = jobImagePrefix(projectPath)
let templates
try {
  templates = Object.fromEntries(
    names.map((name) => [name, catalogTemplate(name, read(`gitlab/${name}.yml`), prefix)]),
  )
} catch (error) {
  fail(error.message)
}
const catalogCi = read('.ci/catalog-gitlab-ci.yml').replace(
  /^( {2}CATALOG_VERSION: )''$/m,
  `$1${JSON.stringify(version)}`,
)
const unpacked = mkdtempSync(join(tmpdir(), 'olympe-catalog-package-'))
process.on('exit', () => rmSync(unpacked, { recursive: true, force: true }))
unpackPackage(options.values.package, unpacked, version)

for (const entry of LAID_OUT) rmSync(join(target, entry), { recursive: true, force: true })
for (const name of names) {
  mkdirSync(join(target, 'templates', name), { recursive: true })
  writeFileSync(join(target, 'templates', name, 'template.yml'), templates[name])
  writeFileSync(join(target, 'templates', name, 'README.md'), readmes[name])
}
mkdirSync(join(target, 'release/gitlab'), { recursive: true })
for (const script of ['catalog-pin.mjs', 'catalog-template.mjs'])
  cpSync(join(ROOT, '.ci', script), join(target, 'release', script))
for (const name of names)
  cpSync(join(ROOT, 'gitlab', `${name}.yml`), join(target, 'release/gitlab', `${name}.yml`))
cpSync(join(ROOT, '.ci/job-image'), join(target, 'job-image'), { recursive: true })
cpSync(join(unpacked, 'package'), join(target, 'job-image/package'), { recursive: true })
cpSync(join(ROOT, 'gitlab/README.md'), join(target, 'README.md'))
cpSync(join(ROOT, 'LICENSE'), join(target, 'LICENSE.md'))
writeFileSync(join(target, '.gitlab-ci.yml'), catalogCi)
writeFileSync(join(target, 'RELEASE-NOTES.md'), notes)
process.stdout.write(
  `Laid out the catalog project ${projectPath} for ${version} in ${target}: components ` +
    `${names.join(', ')}, which run in the job image ${prefix}/olympe-deploy:<release>. ` +
    'Commit it and push it to the default branch: its pipeline builds that image, names it by ' +
    `digest in the templates, and tags and releases '${version}'.\n`,
)
