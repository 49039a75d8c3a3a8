// The built bundle dist/build-images/index.js, run as the GitHub runner runs it, against the real
// engine and a registry with basic auth: what is pushed, with which tags and labels, what a
// container of the frontend image holds, and what happens when the run must not build.
import { describe, expect, test } from '@jest/globals'
import { REGISTRY_LOGIN_HELP } from '../../src/platform/context.js'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { withCleanup } from '../helpers/cleanup.js'
import { docker, dockerRun } from '../helpers/docker-env.js'
import {
  githubPush,
  SAMPLE_PROJECT,
  sampleLabels,
  useDockerSuite,
} from '../helpers/docker-suite.js'
import { runAsGithub, type RunOptions, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'

const suite = useDockerSuite()

const TAG = 'main-1a2b3c4'
const WRONG_PASSWORD = 'wrong-Pa55word-4f1c'

interface Run {
  repository: string
  inputs?: Record<string, string>
  event?: RunOptions['event']
  env?: Record<string, string>
  cwd?: string
}

async function buildImages(run: Run): Promise<RunResult> {
  await suite.spy.reset()
  const result = await runAsGithub('build-images', {
    cwd: run.cwd ?? SAMPLE_PROJECT,
    inputs: {
      ...suite.pushInputs,
      ...run.inputs,
    },
    env: {
      ...suite.env,
      ...githubPush(run.repository),
      GITHUB_SERVER_URL: 'https://github.example',
      ...run.env,
    },
    event: {
      name: 'push',
      payload: { repository: { default_branch: 'main' } },
      ...run.event,
    },
  })
  expectNoSecrets(await suite.seenIn(result), [suite.registry.password, WRONG_PASSWORD])
  // The step logs in inside its own DOCKER_CONFIG: the job's stays as it was.
  expect(await suite.storedAuths()).toEqual([])
  return result
}

/** The repositories of one test in the registry's catalog, without the registry host. */
async function pushedRepositories(repository: string): Promise<string[]> {
  const catalog = await suite.registry.catalog()
  return catalog.filter((name) => name.startsWith(`${repository}/`)).sort()
}

function ownersOf(listing: string): string[] {
  return listing
    .split('\n')
    .filter((line) => line.startsWith('-'))
    .map((line) => {
      const cols = line.trim().split(/\s+/)
      return `${cols.at(-1) ?? ''} ${cols[2] ?? ''}:${cols[3] ?? ''}`
    })
}

describe('build-images on GitHub', () => {
  test('builds, logs in and pushes the frontend and backend with tags and labels', async () => {
    const repository = `Acme/Shop-${Date.now()}`
    const name = repository.toLowerCase()
    const started = Date.now()
    const result = await buildImages({ repository })
    expect(result.code).toBe(0)

    const host = suite.registry.host
    expect(result.outputs).toMatchObject({
      skipped: 'false',
      'frontend-image': `${host}/${name}/frontend:${TAG}`,
      'backend-image': `${host}/${name}/backend:${TAG}`,
      'codeasdata-image': '',
      'codeasdata-digest': '',
    })
    expect(await pushedRepositories(name)).toEqual([`${name}/backend`, `${name}/frontend`])

    for (const kind of ['frontend', 'backend']) {
      // The run's tag, and the branch's moving tag, where the next run looks for it.
      expect((await suite.registry.tags(`${name}/${kind}`)).sort()).toEqual(['main', TAG])
      expect((await suite.registry.manifest(`${name}/${kind}`, 'main')).digest).toBe(
        result.outputs[`${kind}-digest`],
      )
      const manifest = await suite.registry.manifest(`${name}/${kind}`, TAG)
      expect(result.outputs[`${kind}-digest`]).toBe(manifest.digest)
      const labels = manifest.config.Labels ?? {}
      expect(labels).toMatchObject(sampleLabels(`https://github.example/${repository}`))
      const created = Date.parse(labels['org.opencontainers.image.created'] ?? '')
      expect(created).toBeGreaterThanOrEqual(started - 1000)
      expect(created).toBeLessThanOrEqual(Date.now())
    }
    const images = JSON.parse(result.outputs.images ?? '') as Array<{ kind: string; size: number }>
    expect(images.map((image) => image.kind)).toEqual(['frontend', 'backend'])
    expect(images.every((image) => image.size > 0)).toBe(true)

    // Spec 1.3 rule 3: the web files belong to nginx, group root.
    const listing = await dockerRun(result.outputs['frontend-image'] ?? '', [
      'ls',
      '-ln',
      '/usr/share/nginx/html',
    ])
    expect(ownersOf(listing)).toEqual(['index.html 101:0', 'version.json 101:0'])

    const commands = await suite.spy.commands()
    expect(commands.filter((line) => line.startsWith('login'))).toEqual([
      `login ${host} --username ci-user --password-stdin`,
    ])
    // BuildKit through buildx, with output a log can show and redact line by line.
    expect(commands.filter((line) => line === 'buildx inspect')).toHaveLength(1)
    expect(
      commands.filter((line) => line.startsWith('buildx build --progress=plain --file ')),
    ).toHaveLength(2)
    expect(result.stdout).toContain(
      "Builder: BuildKit, builder 'default' (docker driver): the images go into the engine, then docker push sends them.",
    )
    // One docker push an image; the moving tag is given the pushed manifest through the API.
    expect(commands.filter((line) => line.startsWith('push')).sort()).toEqual([
      `push ${host}/${name}/backend:${TAG}`,
      `push ${host}/${name}/frontend:${TAG}`,
    ])
    for (const kind of ['frontend', 'backend'])
      expect(result.stdout).toContain(
        `[${kind}] tagged ${host}/${name}/${kind}:main: the manifest pushed as ${host}/${name}/${kind}:${TAG} (${result.outputs[`${kind}-digest`]})`,
      )
    for (const group of ['Branch check', 'Plan', 'Pre-flight checks', 'Build and push'])
      expect(result.stdout).toContain(`::group::${group}`)
    expect(result.stdout).toContain('Docker client ')
    expect(result.summary).toContain('### Olympe images built and pushed')
    expect(result.summary).toContain(`| Frontend | \`${host}/${name}/frontend:${TAG}\``)
  })

  test('codeasdata true builds the third image and warns about the database', async () => {
    const repository = suite.uniqueRepository('cad')
    const result = await buildImages({
      repository,
      inputs: { codeasdata: 'true', 'extra-tags': 'latest' },
    })
    expect(result.code).toBe(0)
    expect(await pushedRepositories(repository)).toEqual([
      `${repository}/backend`,
      `${repository}/codeasdata`,
      `${repository}/frontend`,
    ])
    expect((await suite.registry.tags(`${repository}/codeasdata`)).sort()).toEqual([
      'latest',
      'main',
      TAG,
    ])
    expect(result.outputs['codeasdata-image']).toBe(
      `${suite.registry.host}/${repository}/codeasdata:${TAG}`,
    )
    expect(result.outputs['codeasdata-digest']).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(result.stdout).toMatch(/::warning title=Code as data::The code-as-data image is built/)
    expect(result.summary).toContain('briefly interrupt')
  })

  test.each<[string, RunOptions['event'], string]>([
    [
      'a non-default branch',
      { name: 'push', ref: 'refs/heads/feature/login' },
      "branch 'feature/login'",
    ],
    [
      'a pull request',
      { name: 'pull_request', ref: 'refs/pull/7/merge', payload: { repository: {} } },
      "pull or merge request (event 'pull_request')",
    ],
  ])(
    '%s is skipped with a notice, empty outputs, and no docker at all',
    async (_name, event, why) => {
      const repository = suite.uniqueRepository('skip')
      const result = await buildImages({ repository, event, env: { GITHUB_HEAD_REF: 'main' } })
      expect(result.code).toBe(0)
      expect(result.outputs).toEqual({
        skipped: 'true',
        'frontend-image': '',
        'frontend-digest': '',
        'backend-image': '',
        'backend-digest': '',
        'codeasdata-image': '',
        'codeasdata-digest': '',
        'backend-images': '',
        images: '[]',
        matrix: '[]',
        version: '',
        reused: '[]',
        'sbom-folder': '',
      })
      expect(result.stdout).toContain('Skipped, nothing is built:')
      expect(result.stdout).toContain(why)
      expect(result.summary).toContain('Olympe images: skipped')
      expect(await suite.spy.commands()).toEqual([])
    },
  )

  test('a wrong registry password fails clearly, builds nothing and leaks nothing', async () => {
    const repository = suite.uniqueRepository('badpw')
    const result = await buildImages({
      repository,
      inputs: { 'registry-password': WRONG_PASSWORD },
    })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      `::error title=olympe build-images failed::Logging in to the registry '${suite.registry.host}' as 'ci-user' failed: docker login exited with 1`,
    )
    expect(result.stdout).toMatch(/unauthorized/i)
    // In GitHub's words: the step's inputs, and what GITHUB_TOKEN needs.
    expect(result.stdout).toContain(`${REGISTRY_LOGIN_HELP.github}. Nothing was built.`)
    expect(await suite.spy.subcommands()).toEqual(['version', 'login'])
    expect(await pushedRepositories(repository)).toEqual([])
  })

  test('a missing dist folder fails before any build', async () => {
    const project = await suite.copyProject()
    await rm(join(project, 'dist/node'), { recursive: true })
    const result = await buildImages({ repository: suite.uniqueRepository('nodist'), cwd: project })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('The pre-flight checks failed, so no image was built:')
    expect(result.stdout).toContain("The backend sources folder 'dist/node' does not exist")
    expect(result.stdout).toContain("Run 'npm run build:node' before this step")
    expect(await suite.spy.subcommands()).toEqual(['version'])
  })

  test('a docker-container builder chosen in an earlier step is used, with --push', async () => {
    // As docker/setup-buildx-action leaves the job: the builder selected in the job's buildx
    // state. Its BuildKit image exists nowhere, so it fails to boot the same way everywhere.
    await withCleanup(async (testCleanup) => {
      const jobConfig = await testCleanup.tempDir('olympe-job-docker-config-')
      const name = `olympe-e2e-${Date.now()}`
      const env = { ...process.env, DOCKER_CONFIG: jobConfig }
      testCleanup.add(`builder ${name}`, () =>
        docker(['buildx', 'rm', name], { env }).catch(() => ''),
      )
      await docker(
        ['buildx', 'create', '--name', name, '--driver', 'docker-container', '--use'].concat([
          '--driver-opt',
          'image=olympe-test/no-such-buildkit:never',
        ]),
        { env },
      )
      const result = await buildImages({
        repository: suite.uniqueRepository('container'),
        env: { DOCKER_CONFIG: jobConfig },
      })
      expect(result.code).toBe(1)
      expect(result.stdout).toContain(
        `Builder: BuildKit, builder '${name}' (docker-container driver)`,
      )
      const builds = (await suite.spy.commands()).filter((line) => line.startsWith('buildx build'))
      expect(builds).toHaveLength(2)
      for (const line of builds) expect(line).toMatch(/ --push --metadata-file \S+ \S+$/)
      expect(await suite.spy.subcommands()).not.toContain('push')
      expect(result.stdout).toContain('The current buildx builder could not start BuildKit')
    })
  })
})
