#!/usr/bin/env node
// `node .ci/release-notes.mjs v1.2.3`: the notes of a release, which quote its section of
// CHANGELOG.md. The GitHub release and the GitLab catalog release both use them.
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

export const PACKAGE = 'olympe-deploy-actions'

/** The body of `## [1.2.3]` (optionally ` - YYYY-MM-DD`) up to the next `## ` heading, trimmed. */
export function changelogSection(changelog, version) {
  const escaped = version.replaceAll('.', '\\.')
  const heading = new RegExp(`^## \\[${escaped}\\]( - \\d{4}-\\d{2}-\\d{2})?\\s*$`)
  const lines = changelog.split(/\r?\n/)
  const start = lines.findIndex((line) => heading.test(line))
  if (start < 0) return undefined
  const next = lines.findIndex((line, index) => index > start && line.startsWith('## '))
  return lines
    .slice(start + 1, next < 0 ? undefined : next)
    .join('\n')
    .trim()
}

/** What keeps CHANGELOG.md from giving the notes of `version`, or undefined. */
export function changelogProblem(changelog, version) {
  const section = changelogSection(changelog, version)
  if (section === undefined)
    return (
      `CHANGELOG.md has no section '## [${version}]': rename '## [Unreleased]' to ` +
      `'## [${version}] - <date>' and describe the release there.`
    )
  if (section === '')
    return `CHANGELOG.md's section '## [${version}]' is empty: describe the release there.`
  return undefined
}

export function releaseNotes(changelog, version, repository) {
  const problem = changelogProblem(changelog, version)
  if (problem !== undefined) throw new Error(problem)
  const major = version.split('.')[0]
  return [
    changelogSection(changelog, version),
    '',
    '---',
    '',
    `- npm: \`npx ${PACKAGE}@${version}\``,
    `- GitHub: \`uses: ${repository}@v${version}\` (or \`@v${major}\`, the newest ${major}.x release)`,
    `- GitLab: \`component: $CI_SERVER_FQDN/<group>/${PACKAGE}/<template>@${version}\``,
    '',
  ].join('\n')
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const version = (process.argv[2] ?? '').replace(/^v/, '')
  if (version === '') {
    process.stderr.write('Usage: node .ci/release-notes.mjs v<major>.<minor>.<patch>\n')
    process.exit(2)
  }
  try {
    const changelog = readFileSync(new URL('../CHANGELOG.md', import.meta.url), 'utf8')
    // The release workflow names the repository; a mirror's own name is right for its users.
    const repository = process.env.GITHUB_REPOSITORY || `<owner>/${PACKAGE}`
    process.stdout.write(releaseNotes(changelog, version, repository))
  } catch (error) {
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  }
}
