// The generated GitLab templates against their one source, the action definitions: same input
// names, GitLab types, options and defaults; secrets only from CI/CD variables; nothing global.
import { describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { parseAllDocuments } from 'yaml'
import { ACTION_DEFINITIONS } from '../../../src/core/action-list.js'
import { dotenvKey, isWholeSecret, type InputDocs } from '../../../src/core/definition.js'
import { EXIT_CODES } from '../../../src/core/shared/exit-codes.js'
import { gitlabInput } from '../../../scripts/render/gitlab.js'
import { withCleanup } from '../../helpers/cleanup.js'
import { ROOT } from '../../helpers/run-action.js'
import { capture } from '../../helpers/run-process.js'

interface SpecInput {
  type?: string
  default?: unknown
  options?: string[]
  regex?: string
}
interface Template {
  inputs: Record<string, SpecInput>
  jobs: Record<string, Record<string, unknown>>
  text: string
}

async function template(name: string): Promise<Template> {
  const text = await readFile(join(ROOT, 'gitlab', `${name}.yml`), 'utf8')
  const [header, body] = parseAllDocuments(text).map((document) => document.toJS() as unknown)
  const spec = header as { spec: { inputs: Record<string, SpecInput> } }
  return { inputs: spec.spec.inputs, jobs: body as Template['jobs'], text }
}

type PipelineJobName = 'check' | 'build' | 'images' | 'backend' | 'codeasdata' | 'deploy'

/** pipeline.yml's jobs, without their prefix, read as a test's `Job` type says. */
async function pipelineJobs<Job>(): Promise<Record<PipelineJobName, Job>> {
  const { jobs } = await template('pipeline')
  const job = (name: string): Job => jobs[`$[[ inputs.job-prefix ]]-${name}`] as unknown as Job
  return {
    check: job('check'),
    build: job('build'),
    images: job('images'),
    backend: job('backend'),
    codeasdata: job('codeasdata-image'),
    deploy: job('deploy'),
  }
}

/** The line that picks the image's own olympe-deploy when it is the version asked, else npx. */
const RUNS_AS =
  'OLYMPE_DEPLOY="npx --yes olympe-deploy-actions@$[[ inputs.version ]]"; ' +
  '[ "$(olympe-deploy --version 2>/dev/null)" != $[[ inputs.version ]] ] || OLYMPE_DEPLOY=olympe-deploy; ' +
  'echo "olympe-deploy $[[ inputs.version ]] runs as: $OLYMPE_DEPLOY"'
const envName = (input: string): string => `INPUT_${input.toUpperCase().replace(/-/g, '_')}`
const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  version: string
}

describe('gitlabInput: a definition input in GitLab terms', () => {
  test.each<[string, InputDocs, object]>([
    [
      'boolean',
      { description: 'd', type: 'boolean', default: 'true' },
      { type: 'boolean', default: true },
    ],
    [
      'number',
      { description: 'd', type: 'number', default: '60' },
      { type: 'number', default: 60 },
    ],
    [
      'number without default stays a string',
      { description: 'd', type: 'number' },
      { default: '' },
    ],
    ['optional string', { description: 'd' }, { default: '' }],
    ['required string is mandatory', { description: 'd', required: true }, {}],
    [
      'options allow "not given"',
      { description: 'd', type: 'choice', options: ['auto', 'manual'] },
      { default: '', options: ['', 'auto', 'manual'] },
    ],
    [
      'options with a default',
      { description: 'd', type: 'choice', options: ['a', 'b'], default: 'a' },
      { default: 'a', options: ['a', 'b'] },
    ],
  ])('%s', (_name, spec, expected) => {
    expect(gitlabInput(spec)).toEqual({ description: 'd', ...expected })
  })
})

describe.each(ACTION_DEFINITIONS.map((definition) => [definition.id, definition] as const))(
  'gitlab/%s.yml',
  (id, definition) => {
    test('has every non-secret input of the action, typed as GitLab types them', async () => {
      const { inputs } = await template(id)
      for (const [name, spec] of Object.entries(definition.inputs)) {
        if (isWholeSecret(spec)) {
          expect({ name, input: inputs[name] }).toEqual({ name, input: undefined })
          continue
        }
        const input = inputs[name]
        expect({ name, present: input !== undefined }).toEqual({ name, present: true })
        if (spec.type === 'boolean') expect(input?.type).toBe('boolean')
        if (spec.type === 'number' && spec.default)
          expect(input?.default).toBe(Number(spec.default))
        if (spec.options) expect(input?.options).toEqual(expect.arrayContaining([...spec.options]))
      }
    })

    test('passes secrets from CI/CD variables and every input as INPUT_<NAME>', async () => {
      const { jobs } = await template(id)
      const job = Object.values(jobs)[0] as { variables: Record<string, string>; script: string[] }
      const script = job.script.join('\n')
      for (const [name, spec] of Object.entries(definition.inputs)) {
        const value = job.variables[envName(name)]
        if (isWholeSecret(spec)) expect(value).toMatch(/^\$[A-Z_]+$/)
        else if (spec.type === 'boolean')
          expect(script).toContain(`${envName(name)}=$[[ inputs.${name} ]]`)
        else expect(value).toBe(`$[[ inputs.${name} ]]`)
      }
    })

    test('runs the pinned package, from its image or with npx, and declares every input it uses', async () => {
      const { inputs, jobs, text } = await template(id)
      expect(inputs.version?.default).toBe(version)
      const { script } = Object.values(jobs)[0] as { script: string[] }
      const call = script.findIndex((line) => line.startsWith(`$OLYMPE_DEPLOY ${id} --dotenv `))
      expect(script[call - 1]).toBe(RUNS_AS)
      const body = text.slice(text.indexOf('\n---'))
      const used = new Set([...body.matchAll(/\$\[\[ inputs\.([\w-]+) \]\]/g)].map((m) => m[1]))
      expect([...used].sort()).toEqual(Object.keys(inputs).sort())
    })
  },
)

describe('every template', () => {
  const names = ['snapshot', 'build-images', 'deploy', 'pipeline']
  // Keywords that would change the consumer's whole pipeline (GitLab: "avoid global keywords").
  const GLOBAL = [
    'default',
    'stages',
    'variables',
    'workflow',
    'include',
    'image',
    'services',
    'cache',
    'before_script',
    'after_script',
  ]

  test.each(names)('%s.yml holds jobs only', async (name) => {
    const { jobs } = await template(name)
    expect(Object.keys(jobs).filter((key) => GLOBAL.includes(key))).toEqual([])
    for (const job of Object.values(jobs)) expect(job).toHaveProperty('script')
  })

  test.each(names)(
    '%s.yml: images and deploys never in merge requests or schedules',
    async (name) => {
      const { jobs } = await template(name)
      for (const [jobName, job] of Object.entries(jobs)) {
        const rules = job.rules as { if?: string; when?: string }[]
        // The project build alone runs off the default branch (see below).
        if (jobName === '$[[ inputs.job-prefix ]]-build') continue
        if (name === 'snapshot') {
          expect(rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "schedule"' }])
          continue
        }
        expect({ jobName, first: rules.slice(0, 2) }).toEqual({
          jobName,
          first: [
            { if: '$CI_PIPELINE_SOURCE == "merge_request_event"', when: 'never' },
            { if: '$CI_PIPELINE_SOURCE == "schedule"', when: 'never' },
          ],
        })
        expect(rules.at(-1)?.if).toBe('$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH')
      }
    },
  )

  test('the deploy jobs take a resource group, so two never run at once', async () => {
    for (const name of ['deploy', 'pipeline']) {
      const { jobs } = await template(name)
      const deploys = Object.entries(jobs).filter(([, job]) =>
        (job.script as string[]).some((line) => / deploy --dotenv /.test(line)),
      )
      expect(deploys.map(([, job]) => job.resource_group)).toEqual(['$[[ inputs.resource-group ]]'])
    }
  })

  test.each(names)('%s.yml: the version pattern keeps the command line safe', async (name) => {
    const { inputs } = await template(name)
    const pattern = new RegExp(inputs.version?.regex ?? '')
    for (const good of ['1.0.0', '1.2.3-rc.1', 'latest', '2.0.0+build.5'])
      expect(good).toMatch(pattern)
    for (const bad of ['1.0; rm -rf /', '$(id)', '', '-v', '1 2']) expect(bad).not.toMatch(pattern)
  })
})

test.each(['gitlab/README.md', 'README.md', 'docs/gitlab-on-premise.md'])(
  '%s pins the version being built in its GitLab examples',
  async (path) => {
    const readme = await readFile(join(ROOT, path), 'utf8')
    const pins = readme.matchAll(/olympe-deploy-actions\/[a-z-]+@([^\s`]+)|ref: v(\S+)/g)
    const versions = [...pins].map((match) => match[1] ?? match[2])
    expect(versions.length).toBeGreaterThan(0)
    expect([...new Set(versions)]).toEqual([version])
  },
)

// The official template ignores its lock file; teams that commit one get `npm ci`.
const NO_LOCK_FILE =
  'echo "No package-lock.json committed, so npm install (commit it to install the same versions every time, with npm ci)."'
const INSTALL = `if [ -f package-lock.json ] || [ -f npm-shrinkwrap.json ]; then npm ci; else ${NO_LOCK_FILE}; npm install; fi`
/** pipeline.yml's install (one block, shared by two jobs): `install-command`, else the same choice. */
const PIPELINE_INSTALL = `if [ -f package-lock.json ] || [ -f npm-shrinkwrap.json ]; then OLYMPE_INSTALL="npm ci"\n    else ${NO_LOCK_FILE}; OLYMPE_INSTALL="npm install"; fi`

interface Job {
  variables: Record<string, string>
  script: string[]
  environment?: unknown
  artifacts?: unknown
}
const jobOf = async (name: string, job: string): Promise<Job> =>
  (await template(name)).jobs[job] as unknown as Job
const INSTALLING_JOBS: [string, string, string][] = [
  ['pipeline', '$[[ inputs.job-prefix ]]-build', PIPELINE_INSTALL],
  ['pipeline', '$[[ inputs.job-prefix ]]-codeasdata-image', PIPELINE_INSTALL],
  ['snapshot', '$[[ inputs.job-name ]]', INSTALL],
]

describe('the jobs that install the project', () => {
  test.each(INSTALLING_JOBS)(
    '%s.yml %s: npm ci with a lock file, npm install without',
    async (name, job, install) => {
      const { script } = await jobOf(name, job)
      const installs = script.filter((line) => /\bnpm (ci|install)\b/.test(line))
      expect(installs).toHaveLength(1)
      expect(installs[0]).toContain(install)
    },
  )

  test('pipeline.yml: both jobs that install run one block, with install-command and bounded npm waits', async () => {
    const { inputs } = await template('pipeline')
    expect(inputs['install-command']?.default).toBe('')
    const [build, codeasdata] = await Promise.all(
      INSTALLING_JOBS.slice(0, 2).map(([name, job]) => jobOf(name, job)),
    )
    const blockOf = (job: Job): string =>
      job.script.find((line) => line.includes(PIPELINE_INSTALL)) ?? ''
    expect(blockOf(codeasdata as Job)).toBe(blockOf(build as Job))
    for (const job of [build, codeasdata] as Job[])
      expect(job.variables.OLYMPE_INSTALL_COMMAND).toBe('$[[ inputs.install-command ]]')
    const block = blockOf(build as Job)
    // npm's 5 minutes per request and two retries, bounded unless CI/CD variables say otherwise.
    expect(block).toContain('npm_config_fetch_timeout="${npm_config_fetch_timeout:-20000}"')
    expect(block).toContain('npm_config_fetch_retries="${npm_config_fetch_retries:-1}"')
  })

  test.each(INSTALLING_JOBS)(
    '%s.yml %s: the npmrc input, checked, becomes the user configuration before the install',
    async (name, job, install) => {
      const { inputs } = await template(name)
      expect(inputs.npmrc?.default).toBe('')
      const { variables, script } = await jobOf(name, job)
      expect(variables.OLYMPE_NPMRC_FILE).toBe('$[[ inputs.npmrc ]]')
      const check = script.findIndex((line) => line.includes('[ -f "$OLYMPE_NPMRC_FILE" ] ||'))
      const exported = script.indexOf(
        '[ -z "$OLYMPE_NPMRC_FILE" ] || export NPM_CONFIG_USERCONFIG="$OLYMPE_NPMRC_FILE"',
      )
      const installed = script.findIndex((line) => line.includes(install))
      expect(check).toBeGreaterThanOrEqual(0)
      expect([check < exported, exported < installed]).toEqual([true, true])
    },
  )

  test.each(['pipeline', 'snapshot'])(
    '%s.yml never prints the npmrc file or traces the shell',
    async (name) => {
      const body = (await template(name)).text.split('\n---\n')[1] ?? ''
      expect(body).not.toMatch(
        /\b(cat|head|tail|less|more)\b[^\n]*NPMRC|set -[a-z]*x|echo "?\$OLYMPE_NPMRC/,
      )
      // The one message about it names the input, never the variable's value.
      const messages = body.split('\n').filter((line) => line.includes('npmrc input'))
      for (const line of messages) expect(line).not.toMatch(/echo [^\n]*"\$OLYMPE_NPMRC_FILE"/)
    },
  )
})

describe('the deploy jobs record their deployments in a GitLab environment', () => {
  test.each([
    ['deploy', '$[[ inputs.job-name ]]'],
    ['pipeline', '$[[ inputs.job-prefix ]]-deploy'],
  ])('%s.yml %s: environment and environment-url inputs', async (name, job) => {
    const { inputs } = await template(name)
    expect(inputs.environment?.default).toBe('production')
    // The app's address without its credentials, from the job's own dotenv report.
    expect(inputs['environment-url']?.default).toBe(`$${dotenvKey('deploy', 'url')}`)
    const deploy = await jobOf(name, job)
    expect(deploy.environment).toEqual({
      name: '$[[ inputs.environment ]]',
      url: '$[[ inputs.environment-url ]]',
    })
    // The annotations report links the app and the images, even when the rollout failed.
    expect(deploy.artifacts).toEqual({
      when: 'always',
      reports: {
        dotenv: 'olympe-deploy.env',
        annotations: 'olympe-deploy-annotations.json',
      },
    })
    expect(deploy.script.at(-1)).toMatch(
      / deploy --dotenv olympe-deploy\.env --annotations olympe-deploy-annotations\.json$/,
    )
  })
})

describe('pipeline.yml: one job per set of images', () => {
  interface ImageJob {
    rules: { if?: string; when?: string; allow_failure?: boolean }[]
    variables: Record<string, string>
    script: string[]
    artifacts: { reports: { dotenv: string } }
  }
  const imageJobs = (): Promise<Record<PipelineJobName, ImageJob>> => pipelineJobs<ImageJob>()
  const exported = (job: ImageJob): string =>
    job.script.find((line) => line.startsWith('export INPUT_CODEASDATA=')) ?? ''

  test("the images job builds the frontend and backend only, whatever 'codeasdata' says", async () => {
    const { images } = await imageJobs()
    expect(images.variables.INPUT_IMAGES).toBe('frontend,backend')
    expect(exported(images)).toMatch(/^export INPUT_CODEASDATA=false /)
    expect(images.rules.at(-1)).toEqual({ if: '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH' })
  })

  test('the code-as-data job builds that image only: automatic when asked, else manual', async () => {
    const { codeasdata } = await imageJobs()
    expect(codeasdata.variables.INPUT_IMAGES).toBe('codeasdata')
    expect(codeasdata.rules.slice(2)).toEqual([
      {
        if: '"$[[ inputs.codeasdata ]]" == "true" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH',
      },
      { if: '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH', when: 'manual', allow_failure: true },
    ])
    // Run by hand, it installs the project and builds the code as data itself: the build job did not.
    const skip = codeasdata.script.indexOf('export OLYMPE_SKIP_INSTALL=$[[ inputs.codeasdata ]]')
    const install = codeasdata.script.findIndex((line) => line.includes(PIPELINE_INSTALL))
    const built = codeasdata.script.indexOf(
      'if [ "$[[ inputs.codeasdata ]]" != true ]; then (cd "$OLYMPE_PROJECT_DIR" && npx olympe buildCodeAsData); fi',
    )
    expect([skip >= 0, skip + 1 === install, install + 1 === built]).toEqual([true, true, true])
    expect(codeasdata.script[install]).toContain('[ "${OLYMPE_SKIP_INSTALL:-}" != true ] || exit 0')
  })

  test('their dotenv reports never name the same variable', async () => {
    const { images, codeasdata } = await imageJobs()
    const filter = (job: ImageJob): string | undefined =>
      job.script.find((line) => line.startsWith('sed -i'))
    // The lists go in the hand-over file, not in the dotenv report, which holds 5 KB by default.
    expect(filter(images)).toBe(
      `sed -i -e '/^OLYMPE_BUILD_IMAGES_CODEASDATA_/d' -e '/^OLYMPE_BUILD_IMAGES_IMAGES=/d' -e '/^OLYMPE_BUILD_IMAGES_MATRIX=/d' ${images.artifacts.reports.dotenv}`,
    )
    expect(filter(codeasdata)).toBe(
      `sed -i '/^OLYMPE_BUILD_IMAGES_CODEASDATA_/!d' ${codeasdata.artifacts.reports.dotenv}`,
    )
    expect(images.artifacts.reports.dotenv).not.toBe(codeasdata.artifacts.reports.dotenv)
  })

  test("the pipeline has no 'images' input: each image job sets its own", async () => {
    const { inputs } = await template('pipeline')
    expect(inputs.images).toBeUndefined()
    expect(inputs.codeasdata).toMatchObject({ type: 'boolean', default: false })
  })
})

describe('pipeline.yml: the check job, first', () => {
  interface PipelineJob {
    stage: string
    image: string
    needs?: (string | { job: string; optional?: boolean })[]
    rules: { if?: string; when?: string; variables?: Record<string, string> }[]
    variables: Record<string, string>
    script: string[]
    artifacts?: { paths: string[] }
  }
  const jobs = (): Promise<Record<PipelineJobName, PipelineJob>> => pipelineJobs<PipelineJob>()
  const exports = (job: PipelineJob): Record<string, string> => {
    const line = job.script.find((each) => each.startsWith('export INPUT_')) ?? ''
    const pairs = line.matchAll(/(INPUT_\w+)=(\$\[\[ [\w-. ]+ \]\]|\S+)/g)
    return Object.fromEntries([...pairs].map(([, name = '', value = '']) => [name, value]))
  }

  test('runs in .pre with the Node.js image, where the images and deploy jobs run', async () => {
    const { check, images, deploy } = await jobs()
    expect([check.stage, check.image]).toEqual(['.pre', '$[[ inputs.node-image ]]'])
    expect(check.rules).toEqual(images.rules)
    expect(check.rules).toEqual(deploy.rules)
  })

  test("checks the images job's and the deploy job's inputs, as those jobs get them", async () => {
    const { check, images, deploy } = await jobs()
    // The image references come later, from the image jobs' dotenv reports: absent at check time.
    const later = { INPUT_FRONTEND_IMAGE: '', INPUT_BACKEND_IMAGES: '', INPUT_CODEASDATA_IMAGE: '' }
    // The file the images job hands its images over from is its own.
    const { OLYMPE_IMAGES_ENV, ...imageInputs } = images.variables
    expect(OLYMPE_IMAGES_ENV).toBe('olympe-build-images.env')
    // The deploy job's is the backends list, which tells it to deploy those files.
    const { OLYMPE_BACKENDS, ...deployInputs } = deploy.variables
    expect(OLYMPE_BACKENDS).toBe('$[[ inputs.backends ]]')
    expect(check.variables).toEqual({ ...imageInputs, ...deployInputs, ...later })
    // The code-as-data image too when the pipeline builds it.
    expect(exports(check)).toEqual({
      ...exports(images),
      ...exports(deploy),
      INPUT_CODEASDATA: '$[[ inputs.codeasdata ]]',
      INPUT_CHECK_ONLY: 'true',
    })
  })

  test('runs both checks, the second even when the first fails, and then fails', async () => {
    const { check } = await jobs()
    const last = check.script.slice(-6)
    expect(last[0]).toBe(RUNS_AS)
    // Then the package alone: npm's failures are said as such, before any input is checked.
    expect(last[1]).toMatch(
      /^OLYMPE_NPM_SAID=\$\(\$OLYMPE_DEPLOY --version 2>&1 >\/dev\/null\) \|\| \{\n/,
    )
    expect(last[1]).toContain('Your inputs and variables were not checked yet')
    // build-images' plan, in a file, then the backend legs against it (below), then deploy.
    expect(last[2]).toBe(
      '$OLYMPE_DEPLOY build-images --check-only --dotenv olympe-plan.env || OLYMPE_CHECK_FAILED=true',
    )
    expect(last[3]).toContain("Invalid input 'backend-legs'")
    expect(last[4]).toBe('$OLYMPE_DEPLOY deploy --check-only || OLYMPE_CHECK_FAILED=true')
    expect(last[5]).toBe(
      '[ -z "$OLYMPE_CHECK_FAILED" ] || { echo "A check above failed, so the images and deploy jobs do not run: set what it names (a CI/CD variable or an input of the pipeline), then run the pipeline again." >&2; exit 1; }',
    )
  })

  test('the image jobs need it, so that nothing is pushed after a failed check', async () => {
    const { images, codeasdata } = await jobs()
    const check = { job: '$[[ inputs.job-prefix ]]-check', optional: true }
    expect(images.needs).toEqual([check, '$[[ inputs.job-prefix ]]-build'])
    expect(codeasdata.needs).toEqual([check, '$[[ inputs.job-prefix ]]-build'])
  })
})

describe('pipeline.yml: several backends, each on a runner of its own', () => {
  interface ImageJob {
    stage: string
    image: string
    services: string
    needs: unknown[]
    rules: unknown[]
    cache: unknown
    parallel?: { matrix: Record<string, string>[] }
    variables: Record<string, string>
    script: string[]
    artifacts: { paths?: string[]; reports?: { dotenv: string } }
  }
  /** A block of a job's script that holds `marker`, run by sh (dash: POSIX, as Alpine's ash). */
  async function runBlock(
    job: ImageJob,
    marker: string,
    env: Record<string, string>,
    after = '',
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const block = job.script.find((line) => line.includes(marker)) ?? ''
    expect(block).not.toBe('')
    const script = block.replace(/\$\[\[ inputs\.job-prefix \]\]/g, 'olympe') + after
    return withCleanup(async (cleanup) => {
      const cwd = await cleanup.tempDir('olympe-gitlab-block-')
      for (const [name, text] of Object.entries(env))
        if (name.includes('/') || name.endsWith('.env')) {
          await mkdir(dirname(join(cwd, name)), { recursive: true })
          await writeFile(join(cwd, name), text)
        }
      const vars = Object.fromEntries(
        Object.entries(env).filter(([name]) => !name.includes('/') && !name.endsWith('.env')),
      )
      const result = await capture('sh', ['-c', script], {
        cwd,
        env: { PATH: process.env.PATH ?? '', ...vars },
      })
      const files = existsSync(join(cwd, 'olympe-images'))
        ? Object.fromEntries(
            await Promise.all(
              (await readdir(join(cwd, 'olympe-images'))).map(
                async (file) =>
                  [file, await readFile(join(cwd, 'olympe-images', file), 'utf8')] as const,
              ),
            ),
          )
        : {}
      return { ...result, stdout: result.stdout + (after ? '' : JSON.stringify(files)) }
    })
  }

  test('backend-legs is an array input, empty by default', async () => {
    const { inputs } = await template('pipeline')
    expect(inputs['backend-legs']).toMatchObject({ type: 'array', default: [] })
    expect(inputs['build-output']).toMatchObject({ default: 'dist' })
  })

  test('the backend job: one per name of backend-legs, each building that backend alone, as the images job builds', async () => {
    const { images, backend } = await pipelineJobs<ImageJob | undefined>()
    expect(backend?.parallel).toEqual({
      matrix: [{ OLYMPE_BACKEND: '$[[ inputs.backend-legs ]]' }],
    })
    const same = ({ stage, image, services, needs, rules, cache }: ImageJob): object => ({
      stage,
      image,
      services,
      needs,
      rules,
      cache,
    })
    expect(same(backend as ImageJob)).toEqual(same(images as ImageJob))
    const { OLYMPE_BACKEND_LEGS, ...imageVariables } = images?.variables ?? {}
    expect(OLYMPE_BACKEND_LEGS).toBe('$[[ inputs.backend-legs ]]')
    expect(backend?.variables).toEqual({
      ...imageVariables,
      INPUT_IMAGES: 'backend:$OLYMPE_BACKEND',
      OLYMPE_IMAGES_ENV: 'olympe-backend.env',
    })
    const exported = (job: ImageJob | undefined): string | undefined =>
      job?.script.find((line) => line.startsWith('export INPUT_'))
    expect(exported(backend)).toBe(exported(images))
    // No dotenv report: every leg would write the same keys. Its SBOM, as every image job's.
    expect(backend?.artifacts).toEqual({
      paths: ['olympe-images/'],
      reports: { cyclonedx: 'olympe-sbom/gl-sbom-*.cdx.json' },
    })
  })

  test('every image job hands over its images as a file named after them; the deploy job gives their lines to built-images', async () => {
    const jobs = await pipelineJobs<ImageJob | undefined>()
    const HAND_OVER = "sed -n 's/^OLYMPE_BUILD_IMAGES_IMAGES=//p'"
    for (const name of ['images', 'backend', 'codeasdata'] as const) {
      const { script, artifacts } = jobs[name] as ImageJob
      const built = script.findIndex((line) => line.includes(' build-images --dotenv '))
      expect({ name, next: script[built + 1]?.includes(HAND_OVER) }).toEqual({ name, next: true })
      expect({ name, paths: artifacts.paths }).toEqual({ name, paths: ['olympe-images/'] })
    }
    const images = jobs.images as ImageJob
    const env = (images: string, line: string): Record<string, string> => ({
      INPUT_IMAGES: images,
      OLYMPE_IMAGES_ENV: 'leg.env',
      'leg.env': `OLYMPE_BUILD_IMAGES_FRONTEND_IMAGE=\nOLYMPE_BUILD_IMAGES_IMAGES=${line}\nOLYMPE_BUILD_IMAGES_SKIPPED=false\n`,
    })
    const line = '[{"kind":"backend","name":"api","reference":"r/shop/backend-api:main-1a2b3c4"}]'
    expect((await runBlock(images, HAND_OVER, env('backend:api', line))).stdout).toBe(
      JSON.stringify({ 'backend-api.json': `${line}\n` }),
    )
    expect((await runBlock(images, HAND_OVER, env('frontend,backend', '[]'))).stdout).toBe(
      JSON.stringify({ 'frontend+backend.json': '[]\n' }),
    )

    const BACKENDS_LIST = '- name: api\n  sources: dist/api\n'
    const shown =
      '\nprintf "%s|%s|%s" "$INPUT_BUILT_IMAGES" "$INPUT_FRONTEND_IMAGE" "$INPUT_BACKEND_IMAGES"'
    const gathered = await runBlock(
      jobs.deploy as ImageJob,
      'olympe-images/*.json',
      {
        OLYMPE_BACKENDS: BACKENDS_LIST,
        INPUT_FRONTEND_IMAGE: 'r/shop/frontend:main-1a2b3c4',
        INPUT_BACKEND_IMAGES: 'r/shop/backend-api:main-1a2b3c4',
        'olympe-images/frontend.json': '[{"kind":"frontend"}]\n',
        'olympe-images/backend-api.json': '[{"kind":"backend","name":"api"}]\n',
      },
      shown,
    )
    expect(gathered.stdout).toBe(
      'The images of backend-api frontend are deployed.\n[{"kind":"backend","name":"api"}]\n[{"kind":"frontend"}]||',
    )
    // Without the files (image jobs of a team's own), the dotenv references stay.
    const without = await runBlock(
      jobs.deploy as ImageJob,
      'olympe-images/*.json',
      { OLYMPE_BACKENDS: BACKENDS_LIST, INPUT_FRONTEND_IMAGE: 'r/shop/frontend:main-1a2b3c4' },
      shown,
    )
    expect(without.stdout).toBe('|r/shop/frontend:main-1a2b3c4|')
    // One unnamed backend (no backends list): the references, sent as given, as before; the
    // files would be sent by digest.
    const unnamed = await runBlock(
      jobs.deploy as ImageJob,
      'olympe-images/*.json',
      {
        INPUT_FRONTEND_IMAGE: 'r/shop/frontend:main-1a2b3c4',
        INPUT_BACKEND_IMAGES: 'r/shop/backend:main-1a2b3c4',
        'olympe-images/frontend+backend.json': '[{"kind":"frontend"},{"kind":"backend"}]\n',
      },
      shown,
    )
    expect(unnamed.stdout).toBe('|r/shop/frontend:main-1a2b3c4|r/shop/backend:main-1a2b3c4')
  })

  test('with backend-legs, the images job builds the frontend alone', async () => {
    const { images } = await pipelineJobs<ImageJob | undefined>()
    const shown = '\nprintf "%s" "$INPUT_IMAGES"'
    for (const [legs, expected] of [
      [
        '["api", "worker"]',
        'The backends are built each in a job of its own (olympe-backend), this job builds the frontend.\nfrontend',
      ],
      [
        'api,worker',
        'The backends are built each in a job of its own (olympe-backend), this job builds the frontend.\nfrontend',
      ],
      ['[]', 'frontend,backend'],
      ['', 'frontend,backend'],
    ])
      expect({
        legs,
        printed: (
          await runBlock(
            images as ImageJob,
            'export INPUT_IMAGES=frontend',
            { OLYMPE_BACKEND_LEGS: legs ?? '', INPUT_IMAGES: 'frontend,backend' },
            shown,
          )
        ).stdout,
      }).toEqual({ legs, printed: expected })
  })

  // GitLab writes a list in a string as JSON, gitlab-ci-local with commas: both are read.
  test.each([
    ['GitLab', (names: string[]): string => JSON.stringify(names).replace(/,/g, ', ')],
    ['gitlab-ci-local', (names: string[]): string => names.join(',')],
  ])(
    'the check job refuses backend-legs that do not name every backend once, as %s writes the list',
    async (_, written) => {
      const { check } = await pipelineJobs<ImageJob | undefined>()
      const plan = (matrix: string[]): string =>
        `OLYMPE_BUILD_IMAGES_FRONTEND_IMAGE=\nOLYMPE_BUILD_IMAGES_MATRIX=${JSON.stringify(matrix)}\n`
      const named = plan([
        'frontend',
        'backend:api',
        'backend:worker',
        'backend:admin',
        'codeasdata',
      ])
      const verdict = async (
        legs: string[],
        planned = named,
        failed = '',
      ): Promise<{ failed: string; said: string }> => {
        const result = await runBlock(
          check as ImageJob,
          "Invalid input 'backend-legs'",
          {
            OLYMPE_BACKEND_LEGS: written(legs),
            OLYMPE_CHECK_FAILED: failed,
            'olympe-plan.env': planned,
          },
          '\nprintf "%s" "$OLYMPE_CHECK_FAILED"',
        )
        return { failed: result.stdout, said: result.stderr.trim() }
      }
      expect(await verdict(['worker', 'api', 'admin'])).toEqual({ failed: '', said: '' })
      expect(await verdict([])).toEqual({ failed: '', said: '' })
      expect(await verdict(['api', 'worker'])).toEqual({
        failed: 'true',
        said: "Invalid input 'backend-legs' ([api, worker]): it must name every backend of 'backends' once ('api', 'worker', 'admin'). Missing: 'admin'. Set it to [api, worker, admin], or leave it empty to build every backend in olympe-images.",
      })
      expect(await verdict(['api', 'worker', 'admin', 'api', 'apy'])).toEqual({
        failed: 'true',
        said: "Invalid input 'backend-legs' ([api, worker, admin, api, apy]): it must name every backend of 'backends' once ('api', 'worker', 'admin'). Not in 'backends': 'apy'. Twice: 'api'. Set it to [api, worker, admin], or leave it empty to build every backend in olympe-images.",
      })
      expect(await verdict(['api'], plan(['frontend', 'backend']))).toEqual({
        failed: 'true',
        said: "Invalid input 'backend-legs' ([api]): it names backends, but 'backends' lists none. Give 'backends' the list of your backends (name, sources and dockerfile of each), or leave 'backend-legs' empty to build the one backend in olympe-images.",
      })
      // After a failed build-images check, its plan is not there to compare with.
      expect(await verdict(['api'], '', 'true')).toEqual({ failed: 'true', said: '' })
    },
  )
})

describe('pipeline.yml: the project build off the default branch', () => {
  interface BuildJob {
    rules: { if?: string; when?: string; variables?: Record<string, string> }[]
    variables: Record<string, string>
    script: string[]
    artifacts: { paths: string[]; expire_in: string }
  }
  const build = async (): Promise<BuildJob> =>
    (await template('pipeline')).jobs['$[[ inputs.job-prefix ]]-build'] as unknown as BuildJob
  const NOTE = {
    OLYMPE_FRONTEND_OUTPUT: 'olympe-build-only.txt',
    OLYMPE_BUILD_OUTPUT: 'olympe-build-only.txt',
    OLYMPE_CODEASDATA_OUTPUT: 'olympe-build-only.txt',
    OLYMPE_LOCK_FILE: 'olympe-build-only.txt',
  }

  test('runs on the default branch, merge requests and other branches, never on a schedule', async () => {
    expect((await build()).rules).toEqual([
      { if: '$CI_PIPELINE_SOURCE == "schedule"', when: 'never' },
      { if: '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH' },
      { if: '$CI_PIPELINE_SOURCE == "merge_request_event"', variables: NOTE },
      // Not twice: a branch with an open merge request is built by its merge request's pipeline.
      { if: '$CI_COMMIT_BRANCH && $CI_OPEN_MERGE_REQUESTS', when: 'never' },
      { if: '$CI_COMMIT_BRANCH', variables: NOTE },
    ])
  })

  test('keeps the build output and the lock file for the image jobs on the default branch, one line elsewhere', async () => {
    const { variables, artifacts, script } = await build()
    expect(artifacts.paths.map((path) => variables[path.slice(1)])).toEqual([
      '$[[ inputs.working-directory ]]/$[[ inputs.frontend-sources ]]',
      // The backends' outputs: `backends` is a YAML text, which no artifacts path can read.
      '$[[ inputs.working-directory ]]/$[[ inputs.build-output ]]',
      '$[[ inputs.working-directory ]]/$[[ inputs.codeasdata-sources ]]',
      // Where the images job, which gets no node_modules, reads Draw's version.
      '$[[ inputs.working-directory ]]/package-lock.json',
    ])
    expect(script[0]).toContain('| tee olympe-build-only.txt')
  })
})

test.each([
  ['deploy', '$[[ inputs.job-name ]]'],
  ['pipeline', '$[[ inputs.job-prefix ]]-deploy'],
])(
  "%s.yml: the deploy job allows the command line's not-live exit code, and only it",
  async (name, job) => {
    const { jobs, text } = await template(name)
    expect(jobs[job]?.allow_failure).toEqual({ exit_codes: [EXIT_CODES.notLive] })
    // No other job allows a failure by its exit code; no script exits with that code itself.
    const others = Object.entries(jobs).filter(
      ([other, body]) => other !== job && typeof body.allow_failure === 'object',
    )
    expect(others).toEqual([])
    expect(text).not.toMatch(new RegExp(`exit ${EXIT_CODES.notLive}\\b`))
  },
)

test('the exit codes are distinct, and clash with neither Node.js (1, 3 to 14) nor shells (126 up)', () => {
  const codes = Object.values(EXIT_CODES)
  expect(new Set(codes).size).toBe(codes.length)
  const notLive: number = EXIT_CODES.notLive
  expect(notLive).toBeGreaterThan(14)
  expect(notLive).toBeLessThan(126)
})

test.each(['build-images', 'deploy'])(
  '%s.yml: check-only is an input, documented in gitlab/README.md',
  async (name) => {
    const { inputs } = await template(name)
    expect(inputs['check-only']).toMatchObject({ type: 'boolean', default: false })
    const readme = await readFile(join(ROOT, 'gitlab/README.md'), 'utf8')
    const section = readme.slice(readme.indexOf(`### \`${name}\``))
    expect(section).toMatch(/^\| `check-only` +\| boolean \| `false` /m)
  },
)
