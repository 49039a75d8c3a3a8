// The official project template adopted on GitHub, end to end, through the example workflows
// as they are written (test/helpers/workflow-runner.ts runs their jobs and steps; our actions
// are the committed bundles): install through Olympe's registry (a verdaccio that wants a
// token), build, buildCodeAsData, the three images pushed to a registry with a password, and the
// deployment webhook on loopback, one per GitHub environment. Then what teams do next: promote
// the same images by digest from staging to production, and roll back to a tag without building
// anything.
// One whole chain only (workflow_dispatch on `master`, no lock file, as the template comes); the
// promotion combines the other variants (a lock file, a default branch called `main`), and the
// two pairs left (`master` with a lock file, `main` without) run the workflow up to its install
// step. What does not depend on the project (the lint, every install line and cache) is checked
// statically in workflows.test.ts.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { deploys, rollout, startAppServer, version } from '../helpers/app-server.js'
import { deployedTo, type DeployRule } from '../helpers/deploy-rules.js'
import { CHECKED, fixture } from '../helpers/run-action.js'
import { runnerCommands } from '../helpers/runner-commands.js'
import { useCleanup, useServers } from '../helpers/suite.js'
import { startDockerSuite } from '../helpers/docker-suite.js'
import { expectNoSecrets, keySecrets } from '../helpers/secrets.js'
import { ensureTemplateBaseImages } from '../helpers/template-base-images.js'
import {
  BACKEND_FILES,
  BACKENDS,
  backendCode,
  installedDraw,
  npmInstalls,
  npmLogs,
  ociLabels,
  webRootOwners,
} from '../helpers/template-chain.js'
import {
  createTemplateProject,
  STAND_IN_VERSIONS,
  startTemplateRegistry,
  templateLockFile,
  type TemplateProject,
} from '../helpers/template-project.js'
import { startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js'
import { condition, evaluate, type ExpressionScope } from '../helpers/workflow-expressions.js'
import {
  jobResults,
  runWorkflow,
  stepTexts,
  type StepRecord,
  type WorkflowRun,
  type WorkflowRunOptions,
} from '../helpers/workflow-runner.js'

const TOKENS = { staging: 'gh-staging-token-5d1f0c7a', production: 'gh-production-token-9e2b4a61' }
const PATHS = {
  staging: '/hooks/3c5e7a9b1d2f-staging',
  production: '/hooks/8a6c4e2f0b1d-production',
}
// On two cores shared with other suites, a whole chain (install, build, buildCodeAsData, three
// images, deploy) took 4 to 7 s and an install alone under a second; the limits leave room for a
// much slower machine, and the runner bounds each step on its own as well.
const CHAIN_MS = 180_000
const INSTALL_MS = 60_000
const ROLLBACK_MS = 60_000

let lockFile: string
const runs: WorkflowRun[] = []
const homes: string[] = []
// The servers, then each project (its work tree, HOME and npm cache); the images go with the
// registry's own folder, and the docker suite removes their local copies.
const cleanup = useCleanup(120_000)
const servers = useServers(
  {
    registry: startTemplateRegistry,
    suite: startDockerSuite,
    stagingHook: () => startWebhookServer(undefined, PATHS.staging),
    productionHook: () => startWebhookServer(undefined, PATHS.production),
    app: startAppServer,
    stagingApp: startAppServer,
  },
  cleanup,
  120_000,
)
const { registry, suite, stagingApp } = servers
/** The production app, whose version.json follows the production webhook's POST. */
const app = servers.app
const hooks = { staging: servers.stagingHook, production: servers.productionHook }

beforeAll(async () => {
  await ensureTemplateBaseImages()
  lockFile = await templateLockFile(registry)
}, 180_000)

async function adopt(
  options: { branch?: string; lock?: boolean; files?: Record<string, string> } = {},
): Promise<TemplateProject> {
  const project = await createTemplateProject({
    appVersion: '1.4.0',
    branch: options.branch,
    lockFile: options.lock ? lockFile : undefined,
    files: options.files,
  })
  return cleanup.track(`template project ${project.dir}`, project)
}

/** A repository of the team's, its variables and secrets, and this machine's tools. */
function github(
  project: TemplateProject,
  event: WorkflowRunOptions['event'],
  repository = suite.uniqueRepository('template-gh'),
): WorkflowRunOptions {
  homes.push(project.home)
  return {
    workspace: project.dir,
    event,
    sha: project.sha,
    repository,
    actor: suite.registry.user,
    vars: { OLYMPE_NPM_REGISTRY: registry.url, OLYMPE_REGISTRY: suite.registry.host },
    secrets: {
      WEBHOOK_URL: hooks.production.url,
      WEBHOOK_TOKEN: TOKENS.production,
      OLYMPE_NPM_TOKEN: registry.token,
      // ghcr.io takes the workflow's GITHUB_TOKEN: here, the registry's password.
      GITHUB_TOKEN: suite.registry.password,
    },
    environments: {
      staging: { WEBHOOK_URL: hooks.staging.url, WEBHOOK_TOKEN: TOKENS.staging },
      production: { WEBHOOK_URL: hooks.production.url, WEBHOOK_TOKEN: TOKENS.production },
    },
    env: {
      ...suite.env,
      HOME: project.home,
      LANG: 'C.UTF-8',
      npm_config_cache: join(project.home, '.npm'),
      // The public registry, which this machine cannot reach: the same verdaccio stands in.
      npm_config_registry: registry.url,
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    },
  }
}

async function run(file: string, options: WorkflowRunOptions): Promise<WorkflowRun> {
  // Each run starts with no request received.
  hooks.staging.respondWith(deploys(stagingApp))
  hooks.production.respondWith(deploys(app))
  const result = await runWorkflow(file, options)
  runs.push(result)
  return result
}

/** `{job: result}`, and for a failed job the end of its failing step's output. */
function results(result: WorkflowRun): Record<string, string> {
  const failed = result.steps.find((step) => step.code !== 0)
  const tail = failed
    ? ` (${failed.step}: ${Object.values(failed.texts).join('\n').slice(-2500)})`
    : ''
  return Object.fromEntries(
    Object.entries(result.jobs).map(([id, job]) => [
      id,
      job.result === 'failure' ? `failure${tail}` : job.result,
    ]),
  )
}

const payloadOf = (hook: WebhookServer): Record<string, unknown> => {
  expect(hook.requests).toHaveLength(1)
  return JSON.parse(hook.requests[0]?.body ?? '') as Record<string, unknown>
}

/** `<host>/<repository>/<kind>:<tag>` split into the name in the registry and the tag. */
function nameAndTag(reference: string): [string, string] {
  const [, name = '', tag = ''] = /^[^/]+\/(.+):([^:@]+)(?:@.*)?$/.exec(reference) ?? []
  return [name, tag]
}

describe('the workflow runner reads expressions as GitHub does', () => {
  const scope: ExpressionScope = {
    contexts: {
      github: { ref_name: 'master', event: { repository: { default_branch: 'master' } } },
      inputs: { codeasdata: true },
      vars: {},
    },
    workspace: '/nonexistent',
  }
  test.each([
    ['github.ref_name == github.event.repository.default_branch', true],
    ["github.ref_name == 'MASTER'", true],
    ["vars.OLYMPE_REGISTRY || 'ghcr.io'", 'ghcr.io'],
    ["hashFiles('package-lock.json') != '' && 'npm' || ''", ''],
    ["inputs.codeasdata && 'yes'", 'yes'],
    ["format('refs/heads/{0}', github.ref_name)", 'refs/heads/master'],
  ])('%s', (expression, expected) => {
    expect(evaluate(expression, scope)).toBe(expected)
  })

  test.each<[string, 'success' | 'failure', boolean]>([
    // A condition without a status function holds only while everything succeeded.
    ['inputs.codeasdata', 'success', true],
    ['inputs.codeasdata', 'failure', false],
    ['!cancelled()', 'failure', true],
    ['${{ !cancelled() }}', 'success', true],
    ["!cancelled() && needs.check.result != 'failure'", 'failure', true],
    ['failure()', 'success', false],
    ['failure()', 'failure', true],
    ['success()', 'failure', false],
  ])('if: %s, after a %s, holds: %s', (expression, status, expected) => {
    const contexts = { ...scope.contexts, needs: { check: { result: 'skipped' } } }
    expect(condition(expression, { ...scope, contexts, status })).toBe(expected)
  })

  test('an unknown context or function is an error, not a guess', () => {
    expect(() => evaluate('env.X', scope)).toThrow("Unknown context 'env'")
    expect(() => evaluate("contains('a', 'b')", scope)).toThrow("Unsupported function 'contains()'")
  })
})

describe('deploy.yml on the template, as the team runs it', () => {
  test(
    '"Run workflow" with codeasdata on master: install, build, three images, deploy',
    async () => {
      const project = await adopt()
      const options = github(project, {
        name: 'workflow_dispatch',
        branch: 'master',
        defaultBranch: 'master',
        inputs: { codeasdata: 'true' },
      })
      // Production's app serves the new version once the platform accepted it; its address is
      // the environment's APP_URL variable.
      app.play(rollout('1.3.9', () => version(project.appVersion)))
      const result = await run('deploy.yml', {
        ...options,
        environmentVars: { production: { APP_URL: app.url } },
      })

      expect(results(result)).toEqual({
        'build-and-deploy/check': 'success',
        'build-and-deploy/images': 'success',
        'build-and-deploy/legs': 'skipped',
        'build-and-deploy/deploy': 'success',
        'build-and-deploy': 'success',
      })
      // The first job checked out the repository, then both actions' inputs and the files they
      // name, and only that: it ran nothing else.
      const checks = result.steps.filter((step) => step.job === 'build-and-deploy/check')
      expect(
        checks.map((step) => [step.step, step.code, step.texts.stdout?.includes(CHECKED)]),
      ).toEqual([
        [expect.stringMatching(/^actions\/checkout@/), 0, undefined],
        ['Check the inputs of build-images', 0, true],
        ['Check the inputs of deploy', 0, true],
      ])
      // No lock file in the template: no npm cache (setup-node would fail), npm install.
      const images = result.jobs['build-and-deploy/images']
      expect(images?.setupNode).toEqual({
        cache: '',
        npmrc: `${registry.url.replace('http:', '')}:_authToken=\${NODE_AUTH_TOKEN}\n@olympeio:registry=${registry.url}`,
      })
      expect(await npmInstalls(join(project.home, '.npm'))).toEqual(['install'])
      expect(await installedDraw(project)).toBe(STAND_IN_VERSIONS.draw)
      expect(existsSync(join(project.dir, 'dist/codeAsData/import_order.json'))).toBe(true)

      const tag = `master-${project.sha.slice(0, 7)}`
      const outputs = images?.outputs ?? {}
      for (const kind of ['frontend', 'backend', 'codeasdata']) {
        const reference = outputs[`${kind}-image`] ?? ''
        expect(reference).toBe(`${suite.registry.host}/${options.repository}/${kind}:${tag}`)
        const manifest = await suite.registry.manifest(...nameAndTag(reference))
        expect({ kind, draw: manifest.config.Labels?.draw_version }).toEqual({
          kind,
          draw: STAND_IN_VERSIONS.draw,
        })
        expect(ociLabels(manifest.config.Labels)).toEqual({
          // The app's own version, which its dist/web/version.json serves.
          'org.opencontainers.image.version': project.appVersion,
          'org.opencontainers.image.source': `https://github.example/${options.repository}`,
          'org.opencontainers.image.revision': project.sha,
        })
        expect(manifest.config.Labels?.['org.opencontainers.image.created']).toMatch(/^\d{4}-/)
      }
      const owners = await webRootOwners(outputs['frontend-image'] ?? '')
      expect(Object.keys(owners)).toEqual(['101:0'])
      expect(owners['101:0']).toBeGreaterThanOrEqual(10)

      expect(result.jobs['build-and-deploy/deploy']).toMatchObject({
        environment: 'production',
        // The deploy step's url output: the app it watched until the new version served.
        environmentUrl: app.url,
      })
      expect(app.served.slice(-2)).toEqual([project.appVersion, project.appVersion])
      expect(hooks.production.requests[0]?.headers.authorization).toBe(
        `Bearer ${TOKENS.production}`,
      )
      expect(payloadOf(hooks.production)).toMatchObject({
        frontend: { image: outputs['frontend-image'] },
        backends: { images: [outputs['backend-image']] },
        codeAsData: { image: outputs['codeasdata-image'] },
      })
      expect(hooks.staging.requests).toHaveLength(0)
    },
    CHAIN_MS,
  )

  // The whole chain above is master without a lock file, the promotion below main with one.
  test.each([
    ['a lock file', 'master', true],
    ['no lock file', 'main', false],
  ])(
    'a push with %s to %s, the default branch, installs through the registry (up to the install)',
    async (_, branch, lock) => {
      const project = await adopt({ branch, lock })
      const options = github(project, { name: 'push', branch, defaultBranch: branch })
      const result = await run('deploy.yml', { ...options, untilStep: 'Install the project' })

      expect(results(result)).toEqual({
        'build-and-deploy/check': 'success',
        'build-and-deploy/images': 'success',
        'build-and-deploy/legs': 'skipped',
        'build-and-deploy/deploy': 'skipped',
        'build-and-deploy': 'success',
      })
      expect(result.steps.map((step) => step.step)).toEqual([
        expect.stringMatching(/^actions\/checkout@[0-9a-f]{40}$/),
        'Check the inputs of build-images',
        'Check the inputs of deploy',
        // Pinned by commit SHA (workflows.test.ts checks the pins).
        expect.stringMatching(/^actions\/checkout@[0-9a-f]{40}$/),
        expect.stringMatching(/^actions\/setup-node@[0-9a-f]{40}$/),
        'Install the project',
      ])
      // setup-node's npm cache only with a lock file: without one, it would fail the job.
      expect(result.jobs['build-and-deploy/images']?.setupNode?.cache).toBe(lock ? 'npm' : '')
      expect(await npmInstalls(join(project.home, '.npm'))).toEqual([lock ? 'ci' : 'install'])
      expect(await installedDraw(project)).toBe(STAND_IN_VERSIONS.draw)
      expect(existsSync(join(project.dir, 'dist'))).toBe(false)
      expect(hooks.production.requests).toHaveLength(0)
    },
    INSTALL_MS,
  )

  test(
    'a missing WEBHOOK_TOKEN and a mistyped registry fail the check job, each named; the images job never starts',
    async () => {
      const project = await adopt()
      const options = github(project, { name: 'push', branch: 'master', defaultBranch: 'master' })
      // Set nowhere: neither for the repository nor for the production environment.
      const withoutToken = (given: Record<string, string> = {}): Record<string, string> =>
        Object.fromEntries(Object.entries(given).filter(([name]) => name !== 'WEBHOOK_TOKEN'))
      const secrets = withoutToken(options.secrets)
      const production = withoutToken(options.environments?.production)
      const before = (await suite.spy.commands()).length
      const result = await run('deploy.yml', {
        ...options,
        vars: { ...options.vars, OLYMPE_REGISTRY: 'https://registry.example.com' },
        secrets,
        environments: { ...options.environments, production },
      })

      expect(jobResults(result)).toEqual({
        'build-and-deploy/check': 'failure',
        'build-and-deploy/images': 'skipped',
        'build-and-deploy/legs': 'skipped',
        'build-and-deploy/deploy': 'skipped',
        'build-and-deploy': expect.stringMatching(/^failure/) as unknown,
      })
      // Both steps ran, the second after the first had failed, and each named its problem.
      expect(result.steps.map((step) => [step.step, step.code])).toEqual([
        [expect.stringMatching(/^actions\/checkout@/), 0],
        ['Check the inputs of build-images', 1],
        ['Check the inputs of deploy', 1],
      ])
      const [images, deploy] = result.steps.slice(1).map((step) => step.texts.stdout ?? '')
      expect(images).toContain(
        "::error title=olympe build-images%3A invalid input 'registry'::Invalid input 'registry' 'https://registry.example.com': has a scheme; expected a registry host with an optional port and namespace, such as 'ghcr.io', 'registry.example.com:5000' or 'ghcr.io/acme' (no scheme, no tag).",
      )
      expect(deploy).toContain(
        "::error title=olympe deploy%3A invalid input 'webhook-token'::Invalid input 'webhook-token' (value hidden: secret): is required: set it from the secret the platform operator gave you (WEBHOOK_TOKEN).",
      )
      expect(existsSync(join(project.dir, 'node_modules'))).toBe(false)
      expect((await suite.spy.commands()).length).toBe(before)
      expect(hooks.production.requests).toHaveLength(0)
    },
    INSTALL_MS,
  )

  test('a push to another branch runs no job: nothing installed, built or deployed', async () => {
    const project = await adopt()
    const options = github(project, { name: 'push', branch: 'feature/x', defaultBranch: 'master' })
    const result = await run('deploy.yml', options)

    expect(results(result)).toEqual({ 'build-and-deploy': 'skipped' })
    expect(result.steps).toEqual([])
    expect(hooks.production.requests).toHaveLength(0)
  })
})

describe('deploy.yml with signed images', () => {
  // cosign generate-key-pair's own files (test/fixtures/cosign), as a team keeps them: the
  // private key and its password in the `release` environment, the public key in the repository.
  const SIGNING = {
    key: readFileSync(fixture('cosign', 'cosign.key'), 'utf8'),
    password: 'secretpw',
    publicKey: readFileSync(fixture('cosign', 'cosign.pub'), 'utf8'),
  }

  /** A push to master, with the signing environment and the public key as repository variables. */
  function signed(
    project: TemplateProject,
    publicKey: string,
    release: Record<string, string> = {
      SIGNING_KEY: SIGNING.key,
      SIGNING_KEY_PASSWORD: SIGNING.password,
    },
  ): WorkflowRunOptions {
    const options = github(project, { name: 'push', branch: 'master', defaultBranch: 'master' })
    return {
      ...options,
      vars: {
        ...options.vars,
        OLYMPE_SIGNING_ENVIRONMENT: 'release',
        OLYMPE_COSIGN_PUBLIC_KEY: publicKey,
      },
      environments: { ...options.environments, release },
    }
  }

  test.each([
    ['its text, from a repository variable', false],
    ['its path, cosign.pub committed: the deploy job checks out first', true],
  ])(
    'the images job signs with the key of its environment, and the deploy job verifies every image with the public key: %s',
    async (_name, byPath) => {
      const project = await adopt(byPath ? { files: { 'cosign.pub': SIGNING.publicKey } } : {})
      const result = await run(
        'deploy.yml',
        signed(project, byPath ? 'cosign.pub' : SIGNING.publicKey),
      )

      expect(results(result)).toEqual({
        'build-and-deploy/check': 'success',
        'build-and-deploy/images': 'success',
        'build-and-deploy/legs': 'skipped',
        'build-and-deploy/deploy': 'success',
        'build-and-deploy': 'success',
      })
      expect(result.jobs['build-and-deploy/images']?.environment).toBe('release')
      const stepsOf = (job: string): StepRecord[] =>
        result.steps.filter((step) => step.job === `build-and-deploy/${job}`)
      const images = stepsOf('images')
      expect(images[0]).toMatchObject({
        step: 'Check that the signing key reached this job',
        code: 0,
      })
      const built = images.find((step) => step.step === 'images')?.texts.stdout ?? ''
      for (const kind of ['frontend', 'backend'])
        expect(built).toMatch(
          new RegExp(
            `^${kind}: signed sha256:[0-9a-f]{64} \\(sha256-[0-9a-f]{64}\\.sig[^)]*\\)\\.$`,
            'm',
          ),
        )
      // A job starts with an empty workspace: the deploy job checks out whenever a key is given,
      // so that a path finds its file.
      const deploy = stepsOf('deploy')
      expect(deploy.map((step) => step.step.replace(/@.*/, ''))).toEqual([
        'actions/checkout',
        'deploy',
      ])
      const outputs = result.jobs['build-and-deploy/images']?.outputs ?? {}
      const checked = deploy.at(-1)?.texts.stdout ?? ''
      // Each image the images job pushed, found in the registry and signed under the key.
      for (const kind of ['frontend', 'backend']) {
        const reference = outputs[`${kind}-image`] ?? ''
        const line = checked.split('\n').find((each) => each.startsWith(`${kind} ${reference}`))
        expect({ kind, line }).toEqual({
          kind,
          line: expect.stringMatching(/: found, sha256:[0-9a-f]{64}; signed$/) as unknown,
        })
      }
      expect(hooks.production.requests).toHaveLength(1)
    },
    CHAIN_MS,
  )

  test(
    'no key reached the images job: it fails before anything is installed, built or pushed, saying where to put it',
    async () => {
      const project = await adopt()
      const before = (await suite.spy.commands()).length
      const result = await run('deploy.yml', signed(project, SIGNING.publicKey, {}))

      expect(results(result)).toMatchObject({
        'build-and-deploy/check': 'success',
        'build-and-deploy/deploy': 'skipped',
        'build-and-deploy': expect.stringMatching(/^failure/) as unknown,
      })
      const images = result.steps.filter((step) => step.job === 'build-and-deploy/images')
      expect(images.map((step) => [step.step, step.code])).toEqual([
        ['Check that the signing key reached this job', 1],
      ])
      expect(runnerCommands(images[0]?.texts.stdout ?? '')).toEqual([
        {
          command: 'error',
          properties: '',
          data: "Signing is asked for ('signing-environment' or 'verify-signatures' is set), but SIGNING_KEY is empty in the images job (environment 'release'): the images would be pushed unsigned, and a deploy that checks signatures would refuse them. Give that environment the secrets SIGNING_KEY and SIGNING_KEY_PASSWORD, or pass them from repository secrets (a caller that passes secrets by name may need 'secrets: inherit' for an environment's to arrive).",
        },
      ])
      expect(existsSync(join(project.dir, 'node_modules'))).toBe(false)
      expect((await suite.spy.commands()).length).toBe(before)
      expect(hooks.production.requests).toHaveLength(0)
    },
    INSTALL_MS,
  )
})

// Several backends with different code bases (BACKENDS: two share backend.Dockerfile, one has its
// own), each image on a runner of its own: the check job plans the legs (build-images' `matrix`
// output), the legs job runs one matrix leg per image, and each leg hands its images over as an
// artifact, which the deploy job gathers into built-images: a matrix job's outputs keep one
// leg's values (actions/runner#1835), so nothing rests on them.
describe('deploy.yml with several backends, one runner per image (fan-out)', () => {
  test(
    'the check job plans one leg per image, each leg builds its image alone and hands it over, and one POST deploys them all, each backend its own image',
    async () => {
      const project = await adopt({ files: BACKEND_FILES })
      const options = github(project, { name: 'push', branch: 'master', defaultBranch: 'master' })
      // What a team sets: the backends' list in YAML, and fan-out, as repository variables.
      const vars = { ...options.vars, OLYMPE_BACKENDS: stringify(BACKENDS), OLYMPE_FAN_OUT: 'true' }
      const result = await run('deploy.yml', { ...options, vars })

      const LEGS = ['frontend', ...BACKENDS.map(({ name }) => `backend:${name}`)]
      const legJobs = LEGS.map((leg) => `build-and-deploy/image ${leg}`)
      expect(results(result)).toEqual({
        'build-and-deploy/check': 'success',
        'build-and-deploy/images': 'skipped',
        ...Object.fromEntries(legJobs.map((job) => [job, 'success'])),
        'build-and-deploy/legs': 'success',
        'build-and-deploy/deploy': 'success',
        'build-and-deploy': 'success',
      })
      // The plan: build-images' `matrix` output, set by its check.
      expect(result.jobs['build-and-deploy/check']?.outputs).toEqual({
        matrix: JSON.stringify(LEGS),
      })
      expect(result.jobs['build-and-deploy/legs']?.legs).toEqual(legJobs)
      // Each leg built the part of the project its image holds, then that image alone.
      const built = (job: string): string =>
        result.steps.find(
          (step) => step.job === job && step.step === "Build the project's part of this image",
        )?.texts.stdout ?? ''
      expect(built(legJobs[0] ?? '')).toContain('webpack')

      const tag = `master-${project.sha.slice(0, 7)}`
      const reference = (image: string): string =>
        `${suite.registry.host}/${options.repository}/${image}:${tag}`
      const digest = expect.stringMatching(/^sha256:[0-9a-f]{64}$/)
      // One artifact per leg, named from the leg, holding its `images` output on one line.
      const handedOver = Object.fromEntries(
        Object.entries(result.artifacts).map(([name, files]) => [
          name,
          Object.fromEntries(
            Object.entries(files).map(([file, text]) => [file, JSON.parse(text) as unknown]),
          ),
        ]),
      )
      const entry = (kind: string, name?: string): unknown => [
        expect.objectContaining({
          kind,
          ...(name === undefined ? {} : { name }),
          reference: reference(name === undefined ? kind : `backend-${name}`),
          digest,
        }),
      ]
      expect(handedOver).toEqual({
        'olympe-images-frontend': { 'olympe-images-frontend.json': entry('frontend') },
        ...Object.fromEntries(
          BACKENDS.map(({ name }) => [
            `olympe-images-backend-${name}`,
            { [`olympe-images-backend-${name}.json`]: entry('backend', name) },
          ]),
        ),
      })
      // Each backend's image holds its own code: the services theirs, api the template's build.
      const names = BACKENDS.map(({ name }) => name)
      expect(await backendCode(names.map((name) => reference(`backend-${name}`)))).toEqual([
        expect.stringContaining('Olympe project (node)'),
        BACKEND_FILES['services/worker/main.js']?.trim(),
        BACKEND_FILES['services/admin/main.js']?.trim(),
      ])

      // One request, with every image; each backend gets exactly its own, a name outside the
      // list nothing.
      const payload = payloadOf(hooks.production)
      // Each image sent by the digest its leg pushed and handed over.
      const sent = (leg: string): string => {
        const files = handedOver[`olympe-images-${leg}`] ?? {}
        const [image] = files[`olympe-images-${leg}.json`] as {
          reference: string
          digest: string
        }[]
        return `${image?.reference ?? ''}@${image?.digest ?? ''}`
      }
      expect(payload.frontend).toEqual({ image: sent('frontend') })
      const { images } = payload.backends as { images: string[] }
      expect([...images].sort()).toEqual(names.map((name) => sent(`backend-${name}`)).sort())
      const { deployRules, images: sentImages } = payload.backends as {
        deployRules: DeployRule[]
        images: string[]
      }
      expect(deployedTo(deployRules, sentImages, [...names, 'api2', 'billing'])).toEqual({
        ...Object.fromEntries(names.map((name) => [name, [sent(`backend-${name}`)]])),
        api2: [],
        billing: [],
      })
      expect(result.jobs['build-and-deploy']?.outputs).toEqual({
        'frontend-image': reference('frontend'),
      })
    },
    CHAIN_MS,
  )

  test(
    'a leg that fails: the other legs run to their end, and nothing is deployed',
    async () => {
      // The worker's sources are not in the repository.
      const files = Object.fromEntries(
        Object.entries(BACKEND_FILES).filter(([path]) => !path.startsWith('services/worker/')),
      )
      const project = await adopt({ files })
      const options = github(project, { name: 'push', branch: 'master', defaultBranch: 'master' })
      const vars = { ...options.vars, OLYMPE_BACKENDS: stringify(BACKENDS), OLYMPE_FAN_OUT: 'true' }
      const result = await run('deploy.yml', { ...options, vars })

      const leg = (image: string): string => `build-and-deploy/image ${image}`
      expect(jobResults(result)).toEqual({
        'build-and-deploy/check': 'success',
        'build-and-deploy/images': 'skipped',
        [leg('frontend')]: 'success',
        [leg('backend:api')]: 'success',
        [leg('backend:worker')]: 'failure',
        [leg('backend:admin')]: 'success',
        'build-and-deploy/legs': 'failure',
        'build-and-deploy/deploy': 'skipped',
        'build-and-deploy': 'failure',
      })
      const failed = result.steps.find((step) => step.code !== 0)
      expect(failed?.job).toBe(leg('backend:worker'))
      expect(failed?.texts.stdout).toContain("'services/worker'")
      expect(Object.keys(result.artifacts).sort()).toEqual([
        'olympe-images-backend-admin',
        'olympe-images-backend-api',
        'olympe-images-frontend',
      ])
      expect(hooks.production.requests).toHaveLength(0)
    },
    CHAIN_MS,
  )
})

describe('promote.yml and rollback.yml', () => {
  let repository: string
  let pinned: { frontend: string; backend: string }
  let tag: string
  /** rollback.yml dispatched on main, to production, with `tagInput` as its tag. */
  const rollbackDispatch = (project: TemplateProject, tagInput: string): WorkflowRunOptions =>
    github(
      project,
      {
        name: 'workflow_dispatch',
        branch: 'main',
        defaultBranch: 'main',
        inputs: { tag: tagInput, environment: 'production' },
      },
      repository,
    )

  // A team that committed its lock file and calls its default branch main.
  test(
    'one build, staging, then the same images pinned by digest to production',
    async () => {
      const project = await adopt({ branch: 'main', lock: true })
      const options = github(project, { name: 'push', branch: 'main', defaultBranch: 'main' })
      repository = options.repository
      tag = `main-${project.sha.slice(0, 7)}`
      // Each environment's app serves the new version once its webhook accepted it; each
      // environment's APP_URL names it.
      for (const each of [stagingApp, app]) each.play(rollout('1.3.9', () => version('1.4.0')))
      const result = await run('promote.yml', {
        ...options,
        environmentVars: { staging: { APP_URL: stagingApp.url }, production: { APP_URL: app.url } },
      })

      expect(results(result)).toEqual({
        images: 'success',
        staging: 'success',
        production: 'success',
      })
      // Watched as shipped: the version to expect read from the frontend image's label with the
      // registry login, and live in staging before production started.
      expect(result.jobs.staging?.outputs).toEqual({ rollout: 'live' })
      const deploys = result.steps.filter((step) => step.step === 'deploy')
      expect(deploys.map((step) => [step.job, step.code])).toEqual([
        ['staging', 0],
        ['production', 0],
      ])
      for (const step of deploys)
        expect(step.texts.stdout).toContain(
          `Expected version: 1.4.0 (from the org.opencontainers.image.version label of '${suite.registry.host}/`,
        )
      expect(stagingApp.served.slice(-2)).toEqual(['1.4.0', '1.4.0'])
      expect(app.served.slice(-2)).toEqual(['1.4.0', '1.4.0'])
      expect(result.jobs.images?.setupNode?.cache).toBe('npm')
      expect(await npmInstalls(join(project.home, '.npm'))).toEqual(['ci'])
      expect(await installedDraw(project)).toBe(STAND_IN_VERSIONS.draw)
      expect([result.jobs.staging?.environment, result.jobs.production?.environment]).toEqual([
        'staging',
        'production',
      ])
      const outputs = result.jobs.images?.outputs ?? {}
      pinned = { frontend: outputs.frontend ?? '', backend: outputs.backend ?? '' }
      for (const kind of ['frontend', 'backend'] as const) {
        const name = `${repository}/${kind}`
        const { digest } = await suite.registry.manifest(name, tag)
        expect(pinned[kind]).toBe(`${suite.registry.host}/${name}:${tag}@${digest}`)
      }
      for (const stage of ['staging', 'production'] as const) {
        expect(hooks[stage].requests[0]?.headers.authorization).toBe(`Bearer ${TOKENS[stage]}`)
        expect(payloadOf(hooks[stage])).toMatchObject({
          frontend: { image: pinned.frontend },
          backends: { images: [pinned.backend] },
        })
      }
    },
    CHAIN_MS,
  )

  test(
    'a rollback to that tag deploys those images by digest and builds nothing',
    async () => {
      const project = await adopt({ branch: 'main' })
      const options = rollbackDispatch(project, tag)
      const before = (await suite.spy.commands()).length
      const result = await run('rollback.yml', options)

      expect(results(result)).toEqual({ rollback: 'success' })
      expect(result.jobs.rollback?.environment).toBe('production')
      expect(payloadOf(hooks.production)).toMatchObject({
        frontend: { image: pinned.frontend },
        backends: { images: [pinned.backend] },
      })
      expect(hooks.staging.requests).toHaveLength(0)
      const commands = (await suite.spy.commands()).slice(before)
      const host = suite.registry.host
      expect(commands.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
        `login ${host}`,
        'buildx imagetools',
        'buildx imagetools',
        `logout ${host}`,
      ])
      expect(existsSync(join(project.dir, 'node_modules'))).toBe(false)
    },
    ROLLBACK_MS,
  )

  test.each([
    [
      'a tag that was never pushed',
      'main-0000000',
      (image: string) =>
        `::error::${image}:main-0000000 was not found: check the tag (the build-images summary of the run names it).`,
    ],
    [
      'a tag with a shell character',
      'main;id',
      () =>
        "::error::The 'tag' input is not an image tag: letters, digits, '_', '.' and '-' only, not starting with '.' or '-', such as master-1a2b3c4.",
    ],
  ])(
    'a rollback to %s stops before the webhook, saying why',
    async (_, badTag, message) => {
      const project = await adopt({ branch: 'main' })
      const options = rollbackDispatch(project, badTag)
      const result = await run('rollback.yml', options)

      expect(results(result).rollback).toMatch(/^failure \(Find the images of that tag: /)
      expect(result.steps.map((step) => [step.step, step.code])).toEqual([
        ['Find the images of that tag', 1],
      ])
      const printed = (result.steps[0]?.texts.stdout ?? '').split('\n')
      expect(printed).toContain(message(`${suite.registry.host}/${repository}/frontend`))
      expect(hooks.production.requests).toHaveLength(0)
    },
    ROLLBACK_MS,
  )
})

// Last on purpose: it reads what every run above printed and wrote.
test('no output, log or file of any run holds a token, a password or a webhook address', async () => {
  expect(runs.length).toBeGreaterThanOrEqual(11)
  const captured: Record<string, string> = {
    ...stepTexts(runs),
    'docker argv': (await suite.spy.commands()).join('\n'),
  }
  for (const [index, home] of homes.entries())
    for (const [name, text] of Object.entries(await npmLogs(join(home, '.npm'))))
      captured[`home ${index} ${name}`] = text
  expect(Object.keys(captured).length).toBeGreaterThan(20)
  expectNoSecrets(captured, [
    ...keySecrets(readFileSync(fixture('cosign', 'cosign.key'), 'utf8')),
    'secretpw',
    ...registry.secrets,
    suite.registry.password,
    TOKENS.staging,
    TOKENS.production,
    hooks.staging.url,
    hooks.production.url,
    PATHS.staging,
    PATHS.production,
  ])
})
