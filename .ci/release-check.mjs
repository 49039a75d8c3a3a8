#!/usr/bin/env node
// `node .ci/release-check.mjs v1.2.3`: what a release tag must satisfy before anything is
// published. The release workflow runs it on the pushed tag; run it yourself before tagging.
// The version checks come first and name every mismatch at once: the tag is v<package.json's
// version>, each GitLab template's `version` input defaults to package.json's version, and
// CHANGELOG.md has a section for the tag's version. Then `npm run check:generated` must find
// dist/ and the generated files fresh.
import { spawnSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseAllDocuments } from 'yaml'
import { changelogProblem } from './release-notes.mjs'

const ROOT = new URL('..', import.meta.url)
const read = (path) => readFileSync(new URL(path, ROOT), 'utf8')
const RELEASE_TAG = /^v((0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*))$/

function versionProblems(tag) {
  const version = RELEASE_TAG.exec(tag)?.[1]
  if (version === undefined)
    return [
      `Tag '${tag}' is not a release tag: expected 'v<major>.<minor>.<patch>', such as 'v1.2.3'.`,
    ]
  const problems = []
  const own = JSON.parse(read('package.json')).version
  if (own !== version)
    problems.push(
      `Tag '${tag}' does not match package.json's version '${own}': tag 'v${own}', or set the ` +
        `version to '${version}' with 'npm version ${version} --no-git-tag-version' and run 'npm run build'.`,
    )
  const templates = readdirSync(new URL('gitlab/', ROOT)).filter((name) => name.endsWith('.yml'))
  for (const file of templates) {
    const [spec] = parseAllDocuments(read(`gitlab/${file}`))
    const pinned = spec?.toJS()?.spec?.inputs?.version?.default
    // The templates are generated from package.json: a difference means they were not rebuilt.
    if (String(pinned) !== own)
      problems.push(
        `gitlab/${file}: the 'version' input defaults to '${pinned}', not package.json's '${own}': ` +
          `run 'npm run build' and commit gitlab/.`,
      )
  }
  const changelog = changelogProblem(read('CHANGELOG.md'), version)
  if (changelog !== undefined) problems.push(changelog)
  return problems
}

const tag = process.argv[2]
if (tag === undefined) {
  process.stderr.write('Usage: node .ci/release-check.mjs v<major>.<minor>.<patch>\n')
  process.exit(2)
}
const problems = versionProblems(tag)
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\nRelease check of '${tag}' failed.\n`)
  process.exit(1)
}
// The drift check rebuilds the bundles in memory and compares them with the committed files.
const generated = spawnSync('npm', ['run', '--silent', 'check:generated'], {
  cwd: fileURLToPath(ROOT),
  stdio: 'inherit',
})
if (generated.status !== 0) {
  process.stderr.write(
    `Release check of '${tag}' failed: dist/ or the generated files are stale (above). ` +
      `Run 'npm run build', commit the result and tag that commit.\n`,
  )
  process.exit(1)
}
process.stdout.write(
  `Release check of '${tag}' passed: package.json, the GitLab templates and CHANGELOG.md agree, ` +
    `and dist/ and the generated files are fresh.\n`,
)
