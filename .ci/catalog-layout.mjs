#!/usr/bin/env node
// `node .ci/catalog-layout.mjs [folder]`: lays out the GitLab CI/CD catalog project from gitlab/,
// in the structure GitLab's catalog reads at a release tag:
//   templates/<name>/template.yml  gitlab/<name>.yml as it is
//   templates/<name>/README.md     the component's section of gitlab/README.md
//   README.md                      gitlab/README.md;  LICENSE.md  the licence
//   .gitlab-ci.yml                 .ci/catalog-gitlab-ci.yml: a dry run, then the release
//   RELEASE-NOTES.md               the notes of package.json's version, from CHANGELOG.md
// The folder (default build/gitlab-catalog, git-ignored) is new, empty, or a clone of the catalog
// project: the files of an earlier layout are replaced and `.git` is kept; anything else there
// stops the script before it writes.
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PACKAGE, releaseNotes } from './release-notes.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const LAID_OUT = ['templates', 'README.md', 'LICENSE.md', '.gitlab-ci.yml', 'RELEASE-NOTES.md']
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

const target = resolve(process.argv[2] ?? join(ROOT, 'build/gitlab-catalog'))
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

for (const entry of LAID_OUT) rmSync(join(target, entry), { recursive: true, force: true })
for (const name of names) {
  mkdirSync(join(target, 'templates', name), { recursive: true })
  cpSync(join(ROOT, 'gitlab', `${name}.yml`), join(target, 'templates', name, 'template.yml'))
  writeFileSync(join(target, 'templates', name, 'README.md'), readmes[name])
}
cpSync(join(ROOT, 'gitlab/README.md'), join(target, 'README.md'))
cpSync(join(ROOT, 'LICENSE'), join(target, 'LICENSE.md'))
cpSync(join(ROOT, '.ci/catalog-gitlab-ci.yml'), join(target, '.gitlab-ci.yml'))
writeFileSync(join(target, 'RELEASE-NOTES.md'), notes)
process.stdout.write(
  `Laid out the catalog project for ${version} in ${target}: components ${names.join(', ')}. ` +
    `Commit it and tag the commit '${version}'.\n`,
)
