// The GitLab CI/CD catalog release: .ci/catalog-layout.mjs lays out the catalog project from
// gitlab/, gitlab-ci-local runs that project's own tag pipeline (the deploy component from
// templates/ as a dry run, then the release job), and a consumer project includes the released
// components with `include: component: …@<version>`, fetched by tag from a real git remote.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals'
import { readFileSync, readdirSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { Cleanup } from '../helpers/cleanup.js'
import {
  createGitlabProject,
  listJobs,
  logsOf,
  outcome,
  runPipeline,
  type GitlabProject,
  type PipelineRun,
} from '../helpers/gitlab-ci-local.js'
import { basicAuth, git, startGitServer, type GitServer } from '../helpers/git-server.js'
import { NODE24 } from '../helpers/node-binaries.js'
import { ROOT } from '../helpers/run-action.js'
import { capture } from '../helpers/run-process.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { publishProject, startVerdaccio, type Verdaccio } from '../helpers/verdaccio.js'

const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version
const COMPONENTS = readdirSync(join(ROOT, 'gitlab'))
  .filter((file) => file.endsWith('.yml'))
  .map((file) => file.slice(0, -'.yml'.length))
  .sort()
const CATALOG_PATH = 'acme/olympe-deploy-actions'

type Outcome = { code: number | null; stdout: string; stderr: string }
/** A release script of .ci/ under Node 24, for `toEqual`. */
async function ciScript(script: string, args: string[]): Promise<Outcome> {
  const { code, stdout, stderr } = await capture(NODE24, [join(ROOT, '.ci', script), ...args], {
    env: ENV,
    cwd: ROOT,
    timeoutMs: 120_000,
  })
  return { code, stdout, stderr }
}
const layout = (folder: string): Promise<Outcome> => ciScript('catalog-layout.mjs', [folder])

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort()
}

let work: string
let catalog: string
// Everything the suite's tests start and make, servers and projects included.
const cleanup = new Cleanup()
beforeAll(async () => {
  work = await cleanup.tempDir('olympe-catalog-')
  catalog = join(work, 'catalog')
})
afterAll(() => cleanup.run())

describe('.ci/catalog-layout.mjs', () => {
  test('lays out templates/<name>/template.yml and a README.md per component', async () => {
    const run = await layout(catalog)
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout:
        `Laid out the catalog project for ${VERSION} in ${catalog}: components ` +
        `${COMPONENTS.join(', ')}. Commit it and tag the commit '${VERSION}'.\n`,
    })
    expect(await filesUnder(catalog)).toEqual(
      [
        '.gitlab-ci.yml',
        'LICENSE.md',
        'README.md',
        'RELEASE-NOTES.md',
        ...COMPONENTS.flatMap((name) => [
          `templates/${name}/README.md`,
          `templates/${name}/template.yml`,
        ]),
      ].sort(),
    )
    const read = (path: string): Promise<string> => readFile(join(catalog, path), 'utf8')
    for (const name of COMPONENTS) {
      expect(await read(`templates/${name}/template.yml`)).toBe(
        readFileSync(join(ROOT, 'gitlab', `${name}.yml`), 'utf8'),
      )
      const readme = await read(`templates/${name}/README.md`)
      expect(readme.startsWith(`# Component \`${name}\`\n`)).toBe(true)
      expect(readme).toContain(
        `- component: $CI_SERVER_FQDN/<group>/olympe-deploy-actions/${name}@${VERSION}`,
      )
    }
    expect(await read('README.md')).toBe(readFileSync(join(ROOT, 'gitlab/README.md'), 'utf8'))
    expect(await read('LICENSE.md')).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'))
    const notes = await ciScript('release-notes.mjs', [VERSION])
    expect(await read('RELEASE-NOTES.md')).toBe(notes.stdout)
  })

  test('lays out again over a clone of the catalog project: .git stays, the old layout goes', async () => {
    const clone = join(work, 'clone')
    await git(['init', '-q', clone])
    await mkdir(join(clone, 'templates/retired'), { recursive: true })
    await writeFile(join(clone, 'templates/retired/template.yml'), 'spec: {}\n---\nold: {}\n')
    await writeFile(join(clone, 'README.md'), '# An earlier layout\n')
    expect((await layout(clone)).code).toBe(0)
    expect(await readdir(join(clone, 'templates'))).toEqual(COMPONENTS)
    expect(await readFile(join(clone, 'README.md'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'gitlab/README.md'), 'utf8'),
    )
    expect((await git(['rev-parse', '--git-dir'], { cwd: clone })).trim()).toBe('.git')
  })

  test('refuses a folder holding anything else, and writes nothing there', async () => {
    const folder = join(work, 'busy')
    await mkdir(folder)
    await writeFile(join(folder, 'notes.txt'), 'mine\n')
    expect(await layout(folder)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `'${folder}' holds 'notes.txt', which no catalog layout made: lay out into a new folder ` +
        'or a clone of the catalog project.\n',
    })
    expect(await readdir(folder)).toEqual(['notes.txt'])
  })
})

describe('the laid-out catalog project run by gitlab-ci-local', () => {
  let registry: Verdaccio
  let server: GitServer
  let npmCache: string
  const TOKEN = 'catalog-git-token-6b2f0d'
  const WEBHOOK_TOKEN = 'catalog-webhook-token-93ad4e'
  const runs: PipelineRun[] = []
  const laidOut = (): string => join(work, 'laid-out')

  beforeAll(async () => {
    registry = cleanup.track('verdaccio', await startVerdaccio())
    await publishProject(registry)
    server = cleanup.track('git server', await startGitServer({ token: TOKEN }))
    npmCache = await cleanup.tempDir('olympe-catalog-npm-')
    expect((await layout(laidOut())).code).toBe(0)
    // The release: the layout committed and tagged with the version in the catalog project.
    await server.createRepo(CATALOG_PATH, { commits: 0 })
    const tagged = join(work, 'tagged')
    expect((await layout(tagged)).code).toBe(0)
    const inTagged = (...args: string[]): Promise<string> =>
      git(['-c', 'user.name=Release', '-c', 'user.email=release@example.invalid', ...args], {
        cwd: tagged,
      })
    await inTagged('init', '-q', '-b', 'main')
    await inTagged('add', '-A')
    await inTagged('commit', '-q', '-m', `Release ${VERSION}`)
    await inTagged('tag', VERSION)
    await inTagged('push', '-q', server.urlFor(CATALOG_PATH), 'main', VERSION)
  }, 120_000)

  async function project(
    files: Record<string, string>,
    options: Parameters<typeof createGitlabProject>[1],
  ): Promise<GitlabProject> {
    const created = await createGitlabProject(files, { templates: false, ...options })
    return cleanup.track(`GitLab project ${created.dir}`, created)
  }

  const catalogProject = (): Promise<GitlabProject> =>
    project(
      {},
      { origin: `https://gitlab.example.com/${CATALOG_PATH}.git`, copyFrom: { '.': laidOut() } },
    )

  test('its tag pipeline runs the deploy component from templates/ as a dry run, then the release job', async () => {
    const target = await catalogProject()
    const run = await runPipeline(target, {
      variables: { CI_COMMIT_TAG: VERSION, CATALOG_NPM_REGISTRY: registry.url },
      env: { npm_config_cache: npmCache },
    })
    runs.push(run)
    expect(outcome(run)).toEqual({ code: 0, tail: '' })
    const dryRun = run.jobLogs['catalog-deploy-dry-run'] ?? ''
    expect(dryRun).toContain(`npx --yes olympe-deploy-actions@${VERSION} deploy --dotenv`)
    expect(dryRun).toContain('"image": "registry.example.com/catalog-check/frontend:1.0.0"')
    expect(run.jobLogs['create-release']).toContain(
      `Releasing ${CATALOG_PATH} ${VERSION} to the CI/CD catalog`,
    )
  }, 180_000)

  test('no release without the package: a failed dry run stops the pipeline before the release job', async () => {
    const target = await catalogProject()
    const run = await runPipeline(target, {
      // A registry that answers nothing: the package the components pin cannot be fetched.
      variables: { CI_COMMIT_TAG: VERSION, CATALOG_NPM_REGISTRY: 'http://127.0.0.1:9/' },
      env: { npm_config_cache: npmCache, npm_config_fetch_retries: '0' },
    })
    runs.push(run)
    expect(run.code).not.toBe(0)
    expect(run.jobLogs['catalog-deploy-dry-run']).toContain('http://127.0.0.1:9/')
    expect(run.jobLogs['create-release']).toBeUndefined()
  }, 180_000)

  test('it has no job outside tag pipelines', async () => {
    expect(await listJobs(await catalogProject())).toEqual([])
  }, 120_000)

  describe('a project that includes the released components by tag', () => {
    // gitlab-ci-local fetches a component of another project with `git clone --branch <version>`
    // from the host of the including project's origin: both live on the loopback git server.
    const host = (): string => new URL(server.baseUrl).host
    const consumer = (gitlabCi: string): Promise<GitlabProject> =>
      project({ '.gitlab-ci.yml': gitlabCi }, { origin: `${server.baseUrl}/acme/shop.git` })
    const gitAuth = (): Record<string, string> => ({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.extraHeader',
      GIT_CONFIG_VALUE_0: `Authorization: ${basicAuth('x-access-token', TOKEN)}`,
    })
    const include = (name: string, inputs: Record<string, string | boolean>): string =>
      [
        `  - component: ${host()}/${CATALOG_PATH}/${name}@${VERSION}`,
        '    inputs:',
        ...Object.entries(inputs).map(([key, value]) => `      ${key}: ${JSON.stringify(value)}`),
        '',
      ].join('\n')

    test('every component resolves from the tag', async () => {
      const target = await consumer(
        'stages: [build, deploy]\ninclude:\n' +
          include('snapshot', { 'job-name': 'nightly-snapshot' }) +
          include('build-images', { 'job-name': 'images' }) +
          include('deploy', { 'job-name': 'deploy-only' }) +
          include('pipeline', { 'job-prefix': 'full' }),
      )
      const jobs = await listJobs(target, { env: gitAuth() })
      expect(jobs.map((job) => job.name).sort()).toEqual(
        [
          'deploy-only',
          'full-build',
          'full-check',
          'full-codeasdata-image',
          'full-deploy',
          'full-images',
          'images',
        ].sort(),
      )
      const clones = server.requests.filter((request) =>
        request.path.startsWith(`/${CATALOG_PATH}.git/`),
      )
      expect(clones.length).toBeGreaterThan(0)
    }, 120_000)

    test('its deploy job runs the package version the release pins', async () => {
      const target = await consumer(
        'stages: [deploy]\ninclude:\n' +
          include('deploy', {
            'frontend-image': 'registry.example.com/shop/frontend:2.0.0',
            'backend-images': 'registry.example.com/shop/backend:2.0.0',
            'dry-run': true,
            // Placeholders that no registry holds: the image check has tests of its own.
            'verify-images': 'false',
            'npm-registry': registry.url,
          }),
      )
      const run = await runPipeline(target, {
        variables: {
          WEBHOOK_URL: 'https://deploy.example.invalid/hooks/catalog-consumer',
          WEBHOOK_TOKEN,
        },
        env: { npm_config_cache: npmCache, ...gitAuth() },
      })
      runs.push(run)
      expect(outcome(run)).toEqual({ code: 0, tail: '' })
      const log = run.jobLogs['olympe-deploy'] ?? ''
      expect(log).toContain(`npx --yes olympe-deploy-actions@${VERSION} deploy --dotenv`)
      expect(log).toContain('"image": "registry.example.com/shop/frontend:2.0.0"')
    }, 180_000)
  })

  // Last on purpose: it reads what every run above printed.
  test('no job log or output holds a secret', () => {
    expect(runs.length).toBe(3)
    expectNoSecrets(logsOf(runs), [TOKEN, WEBHOOK_TOKEN])
  })
})
