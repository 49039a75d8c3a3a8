// The GitLab CI/CD catalog release: .ci/catalog-layout.mjs lays out the catalog project from
// gitlab/ (its components run in the job image), its release pipeline pins the templates to the
// digest of the image it pushed (release/catalog-pin.mjs), and a consumer project includes the
// released components with `include: component: …@<version>`, fetched by tag from a real git
// remote. The release pipeline itself, which builds the job image, runs in
// gitlab-job-image.test.ts.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { readFileSync, readdirSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseAllDocuments } from 'yaml'
import { filesUnder } from '../helpers/file-tree.js'
import { useCleanup } from '../helpers/suite.js'
import {
  createGitlabProject,
  listJobs,
  pipelineRecord,
  type GitlabProject,
} from '../helpers/gitlab-ci-local.js'
import { basicAuth, git, startGitServer, type GitServer } from '../helpers/git-server.js'
import { NODE24 } from '../helpers/node-binaries.js'
import { ROOT } from '../helpers/run-action.js'
import { capture } from '../helpers/run-process.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { publishProject, startVerdaccio, type Verdaccio } from '../helpers/verdaccio.js'
import { PACKAGE_VERSION } from '../helpers/job-image.js'
import { expectToSay } from '../helpers/assertions.js'

const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }
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
const layout = (folder: string, path = CATALOG_PATH): Promise<Outcome> =>
  ciScript('catalog-layout.mjs', [folder, '--project-path', path])
/** The layout with the npm package `tarball` put in job-image/. */
const layoutWithPackage = (folder: string, tarball: string): Promise<Outcome> =>
  ciScript('catalog-layout.mjs', [folder, '--project-path', CATALOG_PATH, '--package', tarball])
const PREFIX = `$CI_REGISTRY/${CATALOG_PATH}`
const JOB_IMAGE = '$[[ inputs.job-image-prefix ]]/olympe-deploy:$[[ component.version ]]'
/** A digest as the release pipeline's push gives one. */
const DIGEST = `sha256:${'5e'.repeat(32)}`
/** release/catalog-pin.mjs of a laid-out folder, as the release pipeline runs it. */
async function pin(folder: string, args: string[]): Promise<Outcome> {
  const { code, stdout, stderr } = await capture(
    NODE24,
    [join(folder, 'release/catalog-pin.mjs'), ...args],
    { env: ENV, cwd: folder, timeoutMs: 60_000 },
  )
  return { code, stdout, stderr }
}
const PIN_ARGS = ['--version', PACKAGE_VERSION, '--digest', DIGEST, '--project-path', CATALOG_PATH]

/** What npm packs: the files the job image holds in /opt/olympe-deploy-actions. */
async function packedFiles(): Promise<string[]> {
  const { stdout } = await capture('npm', ['pack', '--dry-run', '--json'], { env: ENV, cwd: ROOT })
  const [packed] = JSON.parse(stdout) as { files: { path: string }[] }[]
  return (packed?.files ?? []).map((file) => file.path)
}

type Spec = { component?: string[]; inputs: Record<string, Record<string, unknown>> }
type Job = Record<string, unknown> & { variables?: Record<string, string> }
/** A template's header and jobs, parsed. */
function parts(text: string): { spec: Spec; jobs: Record<string, Job> } {
  const [header, body] = parseAllDocuments(text).map((document) => document.toJS() as unknown)
  return { spec: (header as { spec: Spec }).spec, jobs: body as Record<string, Job> }
}

let work: string
let catalog: string
// Everything the suite's tests start and make, servers and projects included.
const cleanup = useCleanup()
beforeAll(async () => {
  work = await cleanup.tempDir('olympe-catalog-')
  catalog = join(work, 'catalog')
})

describe('.ci/catalog-layout.mjs', () => {
  test('lays out templates/<name>/template.yml, a README.md per component, and job-image/', async () => {
    const run = await layout(catalog)
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout:
        `Laid out the catalog project ${CATALOG_PATH} for ${PACKAGE_VERSION} in ${catalog}: components ` +
        `${COMPONENTS.join(', ')}, which run in the job image ${PREFIX}/olympe-deploy:<release>. ` +
        'Commit it and push it to the default branch: its pipeline builds that image, names it by ' +
        `digest in the templates, and tags and releases '${PACKAGE_VERSION}'.\n`,
    })
    expect(await filesUnder(catalog)).toEqual(
      [
        '.gitlab-ci.yml',
        'LICENSE.md',
        'README.md',
        'RELEASE-NOTES.md',
        'job-image/Dockerfile',
        'job-image/install-tools.sh',
        ...(await packedFiles()).map((file) => `job-image/package/${file}`),
        'release/catalog-pin.mjs',
        'release/catalog-template.mjs',
        ...COMPONENTS.map((name) => `release/gitlab/${name}.yml`),
        ...COMPONENTS.flatMap((name) => [
          `templates/${name}/README.md`,
          `templates/${name}/template.yml`,
        ]),
      ].sort(),
    )
    const read = (path: string): Promise<string> => readFile(join(catalog, path), 'utf8')
    for (const name of COMPONENTS) {
      const readme = await read(`templates/${name}/README.md`)
      expect(readme.startsWith(`# Component \`${name}\`\n`)).toBe(true)
      expect(readme).toContain(
        `- component: $CI_SERVER_FQDN/<group>/olympe-deploy-actions/${name}@${PACKAGE_VERSION}`,
      )
    }
    for (const file of ['Dockerfile', 'install-tools.sh'])
      expect(await read(`job-image/${file}`)).toBe(
        readFileSync(join(ROOT, '.ci/job-image', file), 'utf8'),
      )
    for (const file of ['catalog-pin.mjs', 'catalog-template.mjs'])
      expect(await read(`release/${file}`)).toBe(readFileSync(join(ROOT, '.ci', file), 'utf8'))
    for (const name of COMPONENTS)
      expect(await read(`release/gitlab/${name}.yml`)).toBe(
        readFileSync(join(ROOT, 'gitlab', `${name}.yml`), 'utf8'),
      )
    expect(await read('job-image/package/dist/index.js')).toBe(
      readFileSync(join(ROOT, 'dist/index.js'), 'utf8'),
    )
    expect(await read('README.md')).toBe(readFileSync(join(ROOT, 'gitlab/README.md'), 'utf8'))
    expect(await read('LICENSE.md')).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'))
    const notes = await ciScript('release-notes.mjs', [PACKAGE_VERSION])
    expect(await read('RELEASE-NOTES.md')).toBe(notes.stdout)
    // The project's pipeline knows the version it releases.
    expect(await read('.gitlab-ci.yml')).toBe(
      readFileSync(join(ROOT, '.ci/catalog-gitlab-ci.yml'), 'utf8').replace(
        "  CATALOG_VERSION: ''\n",
        `  CATALOG_VERSION: "${PACKAGE_VERSION}"\n`,
      ),
    )
  })

  test.each(COMPONENTS)(
    'templates/%s/template.yml: the template of gitlab/, run in the job image of its release',
    async (name) => {
      const source = parts(readFileSync(join(ROOT, 'gitlab', `${name}.yml`), 'utf8'))
      const laid = parts(await readFile(join(catalog, 'templates', name, 'template.yml'), 'utf8'))
      // GitLab 18.6 and later give the component's version to a template that asks for it.
      expect(laid.spec.component).toEqual(['version'])
      expect(source.spec.component).toBeUndefined()
      const images = ['image', 'node-image', 'docker-image'].filter(
        (input) => input in source.spec.inputs,
      )
      expect(images.length).toBeGreaterThan(0)
      const { 'job-image-prefix': prefix, ...inputs } = laid.spec.inputs
      expect(prefix?.default).toBe(PREFIX)
      expect(inputs).toEqual({
        ...source.spec.inputs,
        ...Object.fromEntries(
          images.map((input) => [
            input,
            { ...source.spec.inputs[input], default: '$OLYMPE_DEPLOY_JOB_IMAGE' },
          ]),
        ),
      })
      // Every job names its release's job image, and is otherwise the same.
      for (const [jobName, job] of Object.entries(laid.jobs)) {
        const { OLYMPE_DEPLOY_JOB_IMAGE: image, ...variables } = job.variables ?? {}
        expect({ jobName, image }).toEqual({ jobName, image: JOB_IMAGE })
        expect({ ...job, variables }).toEqual(source.jobs[jobName])
      }
      expect(Object.keys(laid.jobs)).toEqual(Object.keys(source.jobs))
    },
  )

  test.each(COMPONENTS)(
    "release/catalog-pin.mjs: templates/%s/template.yml names the job image by the digest pushed, in the pipeline's own registry",
    async (name) => {
      const folder = join(work, `pinned-${name}`)
      expect((await layout(folder)).code).toBe(0)
      const before = await readFile(join(folder, 'templates', name, 'template.yml'), 'utf8')
      // A copy of the catalog project at another path pins its own build.
      const pinned = await pin(folder, [
        ...PIN_ARGS.slice(0, 4),
        '--project-path',
        'Tools/Olympe-Deploy-Actions',
      ])
      const image = `$CI_REGISTRY/tools/olympe-deploy-actions/olympe-deploy:${PACKAGE_VERSION}@${DIGEST}`
      expect(pinned).toEqual({
        code: 0,
        stderr: '',
        stdout: `Pinned the components ${COMPONENTS.join(', ')} to the job image ${image}.\n`,
      })
      const after = await readFile(join(folder, 'templates', name, 'template.yml'), 'utf8')
      // Every job names the image by its digest (and its version, for people), and the prefix is
      // the copy's; nothing else differs from the layout.
      expect(after).toBe(
        before
          .replaceAll(
            JOB_IMAGE,
            `$[[ inputs.job-image-prefix ]]/olympe-deploy:${PACKAGE_VERSION}@${DIGEST}`,
          )
          .replace(
            `default: ${JSON.stringify(PREFIX)}`,
            `default: ${JSON.stringify('$CI_REGISTRY/tools/olympe-deploy-actions')}`,
          ),
      )
      expect(parts(after).spec.inputs['job-image-prefix']?.default).toBe(
        '$CI_REGISTRY/tools/olympe-deploy-actions',
      )
      const jobs = Object.values(parts(after).jobs)
      expect(jobs.length).toBeGreaterThan(0)
      for (const job of jobs)
        expect(job.variables?.OLYMPE_DEPLOY_JOB_IMAGE).toBe(
          `$[[ inputs.job-image-prefix ]]/olympe-deploy:${PACKAGE_VERSION}@${DIGEST}`,
        )
    },
  )

  test.each<[string, string[], string]>([
    [
      'a digest that is no sha256 digest',
      ['--version', PACKAGE_VERSION, '--digest', 'latest', '--project-path', CATALOG_PATH],
      "The digest 'latest' is not a sha256 digest (sha256: and 64 hex digits).",
    ],
    [
      'a version that is no release number',
      ['--version', 'main', '--digest', DIGEST, '--project-path', CATALOG_PATH],
      "The version 'main' is not a release number such as 1.2.3.",
    ],
    [
      'no project path',
      ['--version', PACKAGE_VERSION, '--digest', DIGEST],
      "--project-path '' is not a GitLab project path such as 'acme/olympe-deploy-actions'.",
    ],
  ])('release/catalog-pin.mjs refuses %s, and writes nothing', async (_, args, message) => {
    const folder = join(work, `pin-refused-${args.join('-').length}`)
    expect((await layout(folder)).code).toBe(0)
    const before = await readFile(join(folder, 'templates/deploy/template.yml'), 'utf8')
    expect(await pin(folder, args)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `${message}\nusage: node release/catalog-pin.mjs --version <X.Y.Z> --digest sha256:<hex> ` +
        '--project-path <group>/<project>\n',
    })
    expect(await readFile(join(folder, 'templates/deploy/template.yml'), 'utf8')).toBe(before)
  })

  test('lowercases the project path, as GitLab names its registry path', async () => {
    const folder = join(work, 'upper')
    expect((await layout(folder, 'Acme/Olympe-Deploy')).code).toBe(0)
    const template = await readFile(join(folder, 'templates/deploy/template.yml'), 'utf8')
    expect(parts(template).spec.inputs['job-image-prefix']?.default).toBe(
      '$CI_REGISTRY/acme/olympe-deploy',
    )
  })

  test.each([[[]], [['--project-path', 'olympe-deploy-actions']]])(
    'refuses to lay out without the project path (%j), and writes nothing',
    async (args) => {
      const folder = join(work, 'no-path')
      const run = await ciScript('catalog-layout.mjs', [folder, ...args])
      const given = args[1] ?? ''
      expect(run).toEqual({
        code: 2,
        stdout: '',
        stderr:
          `--project-path '${given}' is not a GitLab project path such as ` +
          `'acme/olympe-deploy-actions': give the path of the catalog project, whose registry ` +
          'holds the job image.\nusage: node .ci/catalog-layout.mjs [folder] --project-path ' +
          '<group>/<project> [--package <tarball>]\n',
      })
      await expect(readdir(folder)).rejects.toThrow(/ENOENT/)
    },
  )

  test('puts the npm package given with --package in job-image/, and only of its version', async () => {
    const packs = await cleanup.tempDir('olympe-catalog-pack-')
    const packed = await capture('npm', ['pack', '--json', '--pack-destination', packs], {
      env: ENV,
      cwd: ROOT,
    })
    const [{ filename = '' } = {}] = JSON.parse(packed.stdout) as { filename?: string }[]
    const folder = join(work, 'given-package')
    const given = await layoutWithPackage(folder, join(packs, filename))
    expect(given.code).toBe(0)
    expect(await readFile(join(folder, 'job-image/package/package.json'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'package.json'), 'utf8'),
    )
    // A tarball of another version: refused before anything is written.
    const other = join(packs, 'other')
    await mkdir(join(other, 'package'), { recursive: true })
    await writeFile(
      join(other, 'package/package.json'),
      JSON.stringify({ name: 'olympe-deploy-actions', version: '0.9.0' }),
    )
    const tarball = join(packs, 'olympe-deploy-actions-0.9.0.tgz')
    await capture('tar', ['-czf', tarball, '-C', other, 'package'], { env: ENV })
    const refusedFolder = join(work, 'other-package')
    const refused = await layoutWithPackage(refusedFolder, tarball)
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `'${tarball}' holds olympe-deploy-actions@0.9.0, not olympe-deploy-actions@${PACKAGE_VERSION}: ` +
        'give the tarball of the version being laid out.\n',
    })
    await expect(readdir(refusedFolder)).rejects.toThrow(/ENOENT/)
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
  const pipelines = pipelineRecord()
  const laidOut = (): string => join(work, 'laid-out')

  beforeAll(async () => {
    registry = cleanup.track('verdaccio', await startVerdaccio())
    await publishProject(registry)
    server = cleanup.track('git server', await startGitServer({ token: TOKEN }))
    npmCache = await cleanup.tempDir('olympe-catalog-npm-')
    expect((await layout(laidOut())).code).toBe(0)
    // The release: the layout with its templates pinned, as the release pipeline pins them,
    // committed and tagged with the version in the catalog project.
    await server.createRepo(CATALOG_PATH, { commits: 0 })
    const tagged = join(work, 'tagged')
    expect((await layout(tagged)).code).toBe(0)
    expect((await pin(tagged, PIN_ARGS)).code).toBe(0)
    const inTagged = (...args: string[]): Promise<string> =>
      git(['-c', 'user.name=Release', '-c', 'user.email=release@example.invalid', ...args], {
        cwd: tagged,
      })
    await inTagged('init', '-q', '-b', 'main')
    await inTagged('add', '-A')
    await inTagged('commit', '-q', '-m', `Release ${PACKAGE_VERSION}`)
    await inTagged('tag', PACKAGE_VERSION)
    await inTagged('push', '-q', server.urlFor(CATALOG_PATH), 'main', PACKAGE_VERSION)
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

  test('its pipeline runs on a push to the default branch, and none for a tag or a merge request', async () => {
    const project = await catalogProject()
    expect((await listJobs(project)).map((job) => `${job.stage} ${job.name}`).sort()).toEqual([
      'build job-image',
      'release create-release',
      'release pin-templates',
      'test catalog-deploy-dry-run',
    ])
    expect(await listJobs(project, { variables: { CI_COMMIT_TAG: PACKAGE_VERSION } })).toEqual([])
    expect(
      await listJobs(project, { variables: { CI_PIPELINE_SOURCE: 'merge_request_event' } }),
    ).toEqual([])
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
        `  - component: ${host()}/${CATALOG_PATH}/${name}@${PACKAGE_VERSION}`,
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

    test('its deploy job, in an image without the package, fetches the version the release pins with npx', async () => {
      const target = await consumer(
        'stages: [deploy]\ninclude:\n' +
          include('deploy', {
            // The npx path: an image of the user's choice, not the job image.
            image: 'node:24-slim',
            'frontend-image': 'registry.example.com/shop/frontend:2.0.0',
            'backend-images': 'registry.example.com/shop/backend:2.0.0',
            'dry-run': true,
            // Placeholders that no registry holds: the image check has tests of its own.
            'verify-images': 'false',
            'npm-registry': registry.url,
          }),
      )
      const run = await pipelines.passing(target, {
        variables: {
          WEBHOOK_URL: 'https://deploy.example.invalid/hooks/catalog-consumer',
          WEBHOOK_TOKEN,
        },
        env: { npm_config_cache: npmCache, ...gitAuth() },
      })
      const log = run.jobLogs['olympe-deploy'] ?? ''
      expectToSay(
        log,
        `olympe-deploy ${PACKAGE_VERSION} runs as: npx --yes olympe-deploy-actions@${PACKAGE_VERSION}\n`,
        '"image": "registry.example.com/shop/frontend:2.0.0"',
      )
    }, 180_000)
  })

  // Last on purpose: it reads what every run above printed.
  test('no job log or output holds a secret', () => {
    expect(pipelines.runs.length).toBe(1)
    expectNoSecrets(pipelines.logs(), [TOKEN, WEBHOOK_TOKEN])
  })
})
