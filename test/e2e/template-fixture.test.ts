// The official project template (test/fixtures/olympe-project-template) as a team adopts it: its
// @olympeio packages come from a registry that wants a token, `npm install` (no lock file),
// `build:draw`, `build:node` and `npx olympe buildCodeAsData` lay out dist/ as the template's
// webpack config and the toolkit do, and build-images labels the three images with the Draw
// version (2.15.3), not the app's version that the template writes into dist/web/version.json.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { filesUnder as filesBelow } from '../helpers/file-tree.js'
import { useCleanup } from '../helpers/suite.js'
import { dockerRun, run } from '../helpers/docker-env.js'
import { startDockerSuite, type DockerSuite } from '../helpers/docker-suite.js'
import { runAsGithub, runOutcome, type RunResult } from '../helpers/run-action.js'
import { expectNoSecrets } from '../helpers/secrets.js'
import { ensureTemplateBaseImages, useBaseFlavour } from '../helpers/template-base-images.js'
import {
  createTemplateProject,
  installAndBuild,
  NPM_TOKEN_VARIABLE,
  outcomes,
  runStep,
  STAND_IN_VERSIONS,
  startTemplateRegistry,
  type StepRun,
  type TemplateProject,
  type TemplateRegistry,
} from '../helpers/template-project.js'
import { expectToSay } from '../helpers/assertions.js'

const APP_VERSION = '1.4.0'

let registry: TemplateRegistry
let suite: DockerSuite
let project: TemplateProject
let builds: StepRun[]
// The servers, then each project and variant: undone after the suite, even when beforeAll
// stopped halfway.
const cleanup = useCleanup(120_000)

beforeAll(async () => {
  ;({ registry, suite } = await cleanup.startAll({
    registry: startTemplateRegistry(),
    suite: startDockerSuite(),
  }))
  await ensureTemplateBaseImages()
  project = await adopt({ appVersion: APP_VERSION, files: { '.npmrc': registry.npmrc('env') } })
  builds = await installAndBuild(project, registry.token)
}, 180_000)

async function adopt(
  options: Parameters<typeof createTemplateProject>[0],
): Promise<TemplateProject> {
  const created = await createTemplateProject(options)
  return cleanup.track(`template project ${created.dir}`, created)
}

async function json(...path: string[]): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(project.dir, ...path), 'utf8')) as Record<string, unknown>
}

/** The files under a folder of the project, relative to that folder. */
const filesUnder = (folder: string): Promise<string[]> => filesBelow(join(project.dir, folder))

/** The steps' output and npm's debug logs (what a CI job shows or keeps as artifacts). */
async function captured(runs: StepRun[], home: string): Promise<Record<string, string>> {
  const texts = Object.fromEntries(
    runs.map((step) => [step.step, `${step.stdout}\n${step.stderr}`]),
  )
  const logs = join(home, '.npm/_logs')
  for (const name of existsSync(logs) ? await readdir(logs) : [])
    texts[`npm log ${name}`] = await readFile(join(logs, name), 'utf8')
  return texts
}

describe('the project template through an authenticated registry', () => {
  test('npm install without the token is refused with E401 and installs nothing', async () => {
    const bare = await adopt({ files: { '.npmrc': registry.npmrc('none') } })
    const install = await runStep(bare, 'npm', ['install'])
    expect(install.code).not.toBe(0)
    expect(install.stderr).toMatch(/npm error code E401/)
    expect(existsSync(join(bare.dir, 'node_modules/@olympeio/draw'))).toBe(false)
  })

  test('with the token: install, build:draw, build:node and buildCodeAsData all succeed', async () => {
    expect(outcomes(builds)).toEqual([
      { step: 'npm install', code: 0, tail: '' },
      { step: 'npm run build:draw', code: 0, tail: '' },
      { step: 'npm run build:node', code: 0, tail: '' },
      { step: 'npx olympe buildCodeAsData', code: 0, tail: '' },
    ])
    const texts = await captured(builds, project.home)
    expect(Object.keys(texts).some((name) => name.startsWith('npm log '))).toBe(true)
    expectNoSecrets(texts, registry.secrets)
  })

  test('the ~ ranges resolve to the stand-ins, and git sees no build output', async () => {
    const draw = await json('node_modules/@olympeio/draw/package.json')
    const toolkit = await json('node_modules/@olympeio/toolkit/package.json')
    expect([draw.version, toolkit.version]).toEqual([
      STAND_IN_VERSIONS.draw,
      STAND_IN_VERSIONS.toolkit,
    ])
    // The template ignores its lock file, dist/ and node_modules/.
    expect(existsSync(join(project.dir, 'package-lock.json'))).toBe(true)
    const status = await run('git', ['status', '--porcelain'], { cwd: project.dir })
    expect(status.stdout).toBe('')
  })

  test("dist/web: res/, Draw's files, $VERSION and version.json rewritten with the app's version", async () => {
    expect(await filesUnder('dist/web')).toEqual([
      'css/main.css',
      'doc/index.html',
      'fonts/README.txt',
      'images/logo.svg',
      'index.html',
      'main.js',
      'maintenance/index.html',
      'oConfig.json',
      'oConfigNode.json',
      'version.json',
    ])
    const index = await readFile(join(project.dir, 'dist/web/index.html'), 'utf8')
    expectToSay(index, `href="css/main.css?v=${APP_VERSION}"`, `src="main.js?v=${APP_VERSION}"`)
    expect(index).not.toContain('$VERSION')
    // Draw's own file, whose "version" the template overwrites: a trap for the draw_version label.
    expect(await json('dist/web/version.json')).toEqual({
      version: APP_VERSION,
      'olympe-framework': STAND_IN_VERSIONS.runtime,
      'olympe-composer': STAND_IN_VERSIONS.draw,
      tag: `v${STAND_IN_VERSIONS.draw}`,
    })
    const bundle = await readFile(join(project.dir, 'dist/web/main.js'), 'utf8')
    expect(bundle).toContain(`olympe: @olympeio/draw@${STAND_IN_VERSIONS.draw}`)
  })

  test('dist/node: the bundle, oConfigNode.json as oConfig.json, and version.json', async () => {
    expect(await filesUnder('dist/node')).toEqual(['main.js', 'oConfig.json', 'version.json'])
    expect(await json('dist/node/oConfig.json')).toEqual(await json('res/oConfigNode.json'))
    expect((await json('dist/node/version.json')).version).toBe(APP_VERSION)
  })

  test('dist/codeAsData: patches in import order, and the Draw and runtime versions', async () => {
    expect(await filesUnder('dist/codeAsData')).toEqual([
      'import_order.json',
      'olympeio.draw/0183c5e6f7a8b9c0d1e2.json',
      'olympeio.runtime/0170a1b2c3d4e5f60718.json',
      'version.json',
    ])
    const order = JSON.parse(
      await readFile(join(project.dir, 'dist/codeAsData/import_order.json'), 'utf8'),
    ) as unknown
    expect(order).toEqual([
      { name: '@olympeio/runtime', rootTag: '10000000000000000000', path: 'olympeio.runtime' },
      { name: '@olympeio/draw', rootTag: '10000000000000000000', path: 'olympeio.draw' },
    ])
    expect(await json('dist/codeAsData/version.json')).toEqual({
      drawVersion: STAND_IN_VERSIONS.draw,
      runtimeVersion: STAND_IN_VERSIONS.runtime,
    })
  })
})

/**
 * build-images as the runner runs it on a push to the project's default branch, to the suite's
 * registry, with the npm token in the environment as a CI variable puts it in every job's (the
 * project's .npmrc reads it there); what it prints and writes, and docker's argv, are scanned for
 * the registry password and the npm token.
 */
async function buildImagesOn(
  dir: string,
  repository: string,
  inputs: Record<string, string>,
  builder: 'buildkit' | 'legacy' = 'buildkit',
): Promise<RunResult> {
  await suite.spy.reset()
  const result = await runAsGithub('build-images', {
    cwd: dir,
    inputs: {
      ...suite.pushInputs,
      ...inputs,
    },
    env: {
      ...suite.env,
      ...(builder === 'legacy' ? { DOCKER_BUILDKIT: '0' } : {}),
      [NPM_TOKEN_VARIABLE]: registry.token,
      GITHUB_SHA: project.sha,
      GITHUB_REPOSITORY: repository,
      GITHUB_SERVER_URL: 'https://github.example',
    },
    event: {
      name: 'push',
      ref: `refs/heads/${project.branch}`,
      payload: { repository: { default_branch: project.branch } },
    },
  })
  expectNoSecrets(await suite.seenIn(result), [suite.registry.password, registry.token])
  return result
}

describe('build-images on the built template', () => {
  test("the three images carry draw_version 2.15.3, Draw's, and the log names its file", async () => {
    const repository = suite.uniqueRepository('template')
    const result = await buildImagesOn(project.dir, repository, { codeasdata: 'true' })
    const tail = result.code === 0 ? '' : `${result.stdout}\n${result.stderr}`.slice(-3000)
    expect({ code: result.code, tail }).toEqual({ code: 0, tail: '' })
    expect(result.stdout).toContain(
      `draw_version ${STAND_IN_VERSIONS.draw} (from 'version' in node_modules/@olympeio/draw/package.json)`,
    )
    // The template's Dockerfiles lack 'ARG SOURCES_PATH'; its ONBUILD base declares it: no alarm.
    expect(result.stdout).not.toMatch(/::warning[^\n]*SOURCES_PATH/)

    const tag = `${project.branch}-${project.sha.slice(0, 7)}`
    for (const kind of ['frontend', 'backend', 'codeasdata']) {
      const image = result.outputs[`${kind}-image`]
      expect(image).toBe(`${suite.registry.host}/${repository}/${kind}:${tag}`)
      const manifest = await suite.registry.manifest(`${repository}/${kind}`, tag)
      expect(manifest.config.Labels?.draw_version).toBe(STAND_IN_VERSIONS.draw)
      // Built FROM the template's own base names, which declare `ONBUILD ARG SOURCES_PATH`.
      expect(manifest.config.Labels?.['olympe.test.flavour']).toBe('onbuild')
    }
    // What nginx serves is dist/web, app version and all.
    const served = await dockerRun(result.outputs['frontend-image'] ?? '', [
      'cat',
      '/usr/share/nginx/html/version.json',
    ])
    expect((JSON.parse(served) as { version: string }).version).toBe(APP_VERSION)
  }, 120_000)
})

/**
 * The built template, copied, with its FROM lines on the bases that declare nothing, and
 * `changes` applied to its docker/*.Dockerfile; plus 4 MB outside dist/ that must never ship.
 */
async function variant(changes: (dockerfile: string) => string): Promise<string> {
  const dir = await cleanup.tempDir('olympe-template-variant-')
  await cp(project.dir, dir, { recursive: true, verbatimSymlinks: true })
  await useBaseFlavour(dir, 'plain')
  for (const name of await readdir(join(dir, 'docker'))) {
    const file = join(dir, 'docker', name)
    await writeFile(file, changes(await readFile(file, 'utf8')))
  }
  await mkdir(join(dir, 'recordings'))
  await writeFile(join(dir, 'recordings/demo.bin'), Buffer.alloc(4_000_000, 7))
  return dir
}

describe.each(['buildkit', 'legacy'] as const)(
  'SOURCES_PATH that nothing declares, with the %s builder',
  (builder) => {
    test('a base without ONBUILD ARG: refused before any build, nothing pushed', async () => {
      const dir = await variant((dockerfile) => dockerfile)
      const repository = suite.uniqueRepository(`undeclared-${builder}`)
      const result = await buildImagesOn(dir, repository, { images: 'frontend' }, builder)
      expect(result.code).toBe(1)
      expect(result.stdout).toContain(
        "'docker/frontend.Dockerfile' uses $SOURCES_PATH but nothing declares it: it has no 'ARG SOURCES_PATH' line, and its base image 'olympeio/frontend-base:latest-plain' has no 'ONBUILD ARG SOURCES_PATH'. The build would expand $SOURCES_PATH to nothing and copy the whole build context (.git, node_modules, .env files…) into the image, where it expects 'dist/web'. Fix it either way: add the line 'ARG SOURCES_PATH' after the FROM line, or build FROM a base image that declares it",
      )
      expect(result.stdout).not.toContain('$ docker')
      expect(await suite.registry.catalog()).not.toContain(`${repository}/frontend`)
    }, 120_000)

    test('the fix the message gives, ARG SOURCES_PATH after FROM, builds and pushes', async () => {
      const dir = await variant((dockerfile) =>
        dockerfile.replace(/^(FROM .*)$/m, '$1\nARG SOURCES_PATH'),
      )
      const repository = suite.uniqueRepository(`declared-${builder}`)
      const result = await buildImagesOn(dir, repository, { images: 'frontend' }, builder)
      expect(runOutcome(result)).toEqual({ code: 0, tail: '' })
      const served = await dockerRun(result.outputs['frontend-image'] ?? '', [
        'ls',
        '/usr/share/nginx/html',
      ])
      expect(served.split('\n')).not.toContain('recordings')
    }, 180_000)

    test('COPY of the whole context: built, then stopped before the push by its size', async () => {
      const dir = await variant((dockerfile) =>
        dockerfile
          .replace(/^(FROM .*)$/m, '$1\nARG SOURCES_PATH')
          .replace('COPY --chown=nginx:root $SOURCES_PATH ', 'COPY --chown=nginx:root . '),
      )
      const repository = suite.uniqueRepository(`whole-context-${builder}`)
      const result = await buildImagesOn(dir, repository, { images: 'frontend' }, builder)
      expect(result.code).toBe(1)
      expect(result.stdout).toMatch(
        /The frontend image was built but not pushed: its step 'COPY (--chown=nginx:root \. |.*dir:\w+ in )\/usr\/share\/nginx\/html' added \d+\.\d MB, while 'dist\/web' holds \d+\.\d MB\. It copied more than the build output, most likely the whole build context/,
      )
      expect(result.stdout).not.toContain('$ docker push')
      expect(await suite.registry.catalog()).not.toContain(`${repository}/frontend`)
    }, 180_000)
  },
)
