// Several backends on one runner: 1 frontend + N small backends of their own code bases
// (bench/fixture.ts generateBackendsFixture), the bases pulled from a registry of their own as a
// runner pulls them from Docker Hub, the images pushed to another. (a) one build-images step with
// `backends`, against (b) the seed's CI, `docker build` then `docker push` for each image in turn,
// and (c) `docker buildx bake` of every target with `--push`. On a fresh engine per run: cold
// for all three; for (a) also nothing changed and one backend changed, against its own cold run.
// On a warm engine (a persistent runner), one frontend file changed: (a) with the file-hash cache
// (OLYMPE_FILE_HASH_CACHE) and without it, against (c) on its own warm engine.
import { createHash } from 'node:crypto'
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { startActionsCacheServer } from '../test/helpers/actions-cache-server.js'
import { startRegistry } from '../test/helpers/docker-env.js'
import type { Registry } from '../test/helpers/docker-registry.js'
import { parseOutputFile } from '../test/helpers/run-action.js'
import { blobs, uploaded, type Upload } from './build-images.js'
import { startPrivateEngine, type PrivateEngine } from './engine.js'
import {
  changeOneFile,
  FIXTURE_DRAW_VERSION,
  generateBackendsFixture,
  type BackendsFixture,
} from './fixture.js'
import { pullFromBases, pushBases } from './fresh.js'
import { actionEnv, NODE, PASSWORD, REPOSITORY, ROOT, USER } from './images-common.js'
import {
  BACKENDS_CANDIDATES,
  BACKENDS_CONDITIONS,
  type BackendsCandidate,
  type BackendsCondition,
} from './labels.js'
import { measureTree, median, type TreeSample } from './measure.js'

export interface BackendsFigure {
  candidate: BackendsCandidate
  condition: BackendsCondition
  runs: number
  /** Median wall time, and every run's. */
  seconds: number
  allSeconds: number[]
  engineCpuSeconds: number
  /**
   * User + system CPU of the command and every process under it, outside the engine: the step
   * and its docker commands, or the script and its. Absent from results taken before it was.
   */
  clientCpuSeconds?: number
  peakTreeRssMb: number
  /** Medians of what the registry's storage grew by: every blob, and the layers alone. */
  uploadedBytes: number
  uploadedLayers: number
  /** (a) only: the images the step built, of all it was asked for (the others reused). */
  built?: number
}

export interface BackendsResult {
  backends: number
  rounds: number
  fixture: { files: number; bytes: BackendsFixture['bytes'] }
  engine: { server: string; buildx: string }
  /** The machine's facts: its processors, and its 1-minute load average before each run. */
  machine: { cpus: number; model: string }
  load: { min: number; median: number; max: number }
  figures: BackendsFigure[]
}

type Sample = TreeSample & Upload & { built?: number }

const TAG_OF = (sha: string): string => `main-${sha.slice(0, 7)}`
const BACKEND_FILE = (fixture: BackendsFixture): string =>
  join(
    fixture.root,
    fixture.backends[Math.floor(fixture.backends.length / 3)]?.sources ?? '',
    'main.js',
  )

export async function benchBackends(
  count: number,
  rounds: number,
  tmp: string,
): Promise<BackendsResult> {
  const project = join(tmp, 'project')
  await mkdir(project, { recursive: true })
  console.log(`  generating 1 frontend and ${count} backends…`)
  const fixture = await generateBackendsFixture(project, count)
  const bases = await startRegistry({ user: USER, password: PASSWORD })
  try {
    const engineFacts = await pushBases(bases, join(tmp, 'setup-engine'))
    const dockerConfig = await pullFromBases(project, ['frontend', 'backend'], bases, tmp)
    await writeFile(join(tmp, 'sequential.sh'), sequentialScript(fixture))
    await writeFile(join(tmp, 'bake.hcl'), bakeFile(fixture))
    await writeFile(join(tmp, 'bake.sh'), bakeScript(join(tmp, 'bake.hcl')))
    await writeFile(
      join(tmp, 'event.json'),
      JSON.stringify({ repository: { default_branch: 'main' } }),
    )
    const bench = new Bench(tmp, fixture, dockerConfig)
    const parts = [() => bench.ours(), () => bench.sequential(), () => bench.bake()]
    for (let round = 0; round < rounds; round++) {
      bench.round = round + 1
      // Rotated each round, so that no candidate always runs first.
      for (let i = 0; i < parts.length; i++) await parts[(i + round) % parts.length]?.()
    }
    return {
      backends: count,
      rounds,
      fixture: { files: fixture.files, bytes: fixture.bytes },
      engine: engineFacts,
      machine: { cpus: cpus().length, model: cpus()[0]?.model.trim() ?? 'unknown' },
      load: {
        min: Math.min(...bench.loads),
        median: median(bench.loads),
        max: Math.max(...bench.loads),
      },
      figures: bench.figures(),
    }
  } finally {
    await bases.stop()
  }
}

class Bench {
  round = 0
  readonly loads: number[] = []
  private readonly samples = new Map<string, Sample[]>()
  private runs = 0

  constructor(
    private readonly tmp: string,
    private readonly fixture: BackendsFixture,
    private readonly dockerConfig: string,
  ) {}

  private common(engine: PrivateEngine): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      DOCKER_HOST: engine.host,
      DOCKER_CONFIG: this.dockerConfig,
    }
  }

  /** (a): cold, nothing changed and one backend changed, each on a fresh engine; then warm. */
  async ours(): Promise<void> {
    const registry = await startRegistry({ user: USER, password: PASSWORD })
    // GitHub's Actions cache, which outlives the runner: the record of what the default branch
    // built, which reuse needs.
    const records = await startActionsCacheServer()
    const warm = await this.engine()
    try {
      const step = (engine: PrivateEngine, hashCache?: string): Command => {
        const sha = this.nextSha()
        const env = {
          ...actionEnv(
            this.common(engine),
            registry,
            { tmp: this.tmp, project: this.fixture.root, sha, filePrefix: 'backends-' },
            {
              INPUT_BACKENDS: JSON.stringify(this.fixture.backends),
              'INPUT_BACKEND-SOURCES': '',
              INPUT_CODEASDATA: 'false',
              'INPUT_CODEASDATA-SOURCES': '',
              'INPUT_REUSE-UNCHANGED': 'true',
            },
          ),
          ...records.env,
          RUNNER_TEMP: this.tmp,
          ...(hashCache === undefined ? {} : { OLYMPE_FILE_HASH_CACHE: hashCache }),
        }
        return [NODE, [join(ROOT, 'dist/build-images/index.js')], env]
      }
      await this.measure('a', 'cold', warm, registry, step(warm))
      await this.onFreshEngine((engine) =>
        this.measure('a', 'unchanged', engine, registry, step(engine)),
      )
      await appendFile(BACKEND_FILE(this.fixture), `\nexport const round${this.round} = 1;\n`)
      await this.onFreshEngine((engine) =>
        this.measure('a', 'one-backend', engine, registry, step(engine)),
      )
      // A persistent runner: the engine of the cold run, a hash cache filled by a first run.
      const cache = join(this.tmp, `hash-cache-${this.round}`)
      await this.measure('a+cache', 'warm-unchanged', warm, registry, step(warm, cache), false)
      // With and without the cache in turn, which first alternating by round: the first
      // frontend build after the cold one may find BuildKit's copy of the context colder.
      const both: Array<string | undefined> =
        this.round % 2 === 1 ? [cache, undefined] : [undefined, cache]
      for (const hashCache of both)
        await this.measure(
          hashCache ? 'a+cache' : 'a',
          'warm-unchanged',
          warm,
          registry,
          step(warm, hashCache),
        )
      for (const hashCache of both) {
        await changeOneFile(this.fixture, ++this.runs)
        await this.measure(
          hashCache ? 'a+cache' : 'a',
          'warm-frontend',
          warm,
          registry,
          step(warm, hashCache),
        )
      }
    } finally {
      await warm.stop()
      await records.stop()
      await registry.stop()
    }
  }

  /** (b): the seed's CI, cold. */
  async sequential(): Promise<void> {
    const registry = await startRegistry({ user: USER, password: PASSWORD })
    try {
      await this.onFreshEngine((engine) =>
        this.measure('b', 'cold', engine, registry, [
          'bash',
          [join(this.tmp, 'sequential.sh')],
          this.scriptEnv(engine, registry),
        ]),
      )
    } finally {
      await registry.stop()
    }
  }

  /** (c): bake, cold on a fresh engine, then one frontend file changed on that engine. */
  async bake(): Promise<void> {
    const registry = await startRegistry({ user: USER, password: PASSWORD })
    try {
      await this.onFreshEngine(async (engine) => {
        const command = (): Command => [
          'bash',
          [join(this.tmp, 'bake.sh')],
          this.scriptEnv(engine, registry),
        ]
        await this.measure('c', 'cold', engine, registry, command())
        await changeOneFile(this.fixture, ++this.runs)
        await this.measure('c', 'warm-frontend', engine, registry, command())
      })
    } finally {
      await registry.stop()
    }
  }

  private scriptEnv(engine: PrivateEngine, registry: Registry): Record<string, string> {
    const sha = this.nextSha()
    return {
      ...this.common(engine),
      REGISTRY: registry.host,
      REGISTRY_USER: USER,
      REGISTRY_PASSWORD: PASSWORD,
      TAG: TAG_OF(sha),
      SHA: sha,
    }
  }

  private nextSha(): string {
    return createHash('sha1').update(`backends ${++this.runs}`).digest('hex')
  }

  private async engine(): Promise<PrivateEngine> {
    return startPrivateEngine(join(this.tmp, `engine-${this.runs}-${Date.now()}`))
  }

  private async onFreshEngine(body: (engine: PrivateEngine) => Promise<void>): Promise<void> {
    const engine = await this.engine()
    try {
      await body(engine)
    } finally {
      await engine.stop()
    }
  }

  /** Runs one candidate, and keeps its sample unless `keep` is false (a run that fills a cache). */
  private async measure(
    candidate: BackendsCandidate,
    condition: BackendsCondition,
    engine: PrivateEngine,
    registry: Registry,
    [command, args, env]: Command,
    keep = true,
  ): Promise<void> {
    const before = await blobs(registry)
    this.loads.push(loadavg()[0] ?? 0)
    const sample = await measureTree(command, args, env, this.fixture.root, () => engine.pids())
    if (sample.code !== 0)
      throw new Error(
        `${BACKENDS_CANDIDATES[candidate]} (${condition}) failed in round ${this.round}: ${sample.stderr ?? ''}`,
      )
    const upload = uploaded(before, await blobs(registry))
    const built = candidate.startsWith('a') ? await this.built() : undefined
    if (keep) {
      const key = `${candidate} ${condition}`
      this.samples.set(key, [...(this.samples.get(key) ?? []), { ...sample, ...upload, built }])
    }
    console.log(
      `  round ${this.round}, (${candidate}) ${condition}${keep ? '' : ' (filling the cache)'}: ${sample.seconds.toFixed(1)} s, ${upload.layers} layers (${(upload.bytes / 1e6).toFixed(1)} MB) uploaded${built === undefined ? '' : `, ${built} built`}, load ${this.loads.at(-1)?.toFixed(1) ?? ''}`,
    )
  }

  /** The images the step built: all it was asked for but those its `reused` output names. */
  private async built(): Promise<number> {
    const outputs = parseOutputFile(await readFile(join(this.tmp, 'backends-output'), 'utf8'))
    const reused = JSON.parse(outputs.reused ?? '[]') as string[]
    return 1 + this.fixture.backends.length - reused.length
  }

  figures(): BackendsFigure[] {
    const figures: BackendsFigure[] = []
    for (const condition of Object.keys(BACKENDS_CONDITIONS) as BackendsCondition[]) {
      for (const candidate of Object.keys(BACKENDS_CANDIDATES) as BackendsCandidate[]) {
        const list = this.samples.get(`${candidate} ${condition}`)
        if (!list) continue
        const med = (pick: (s: Sample) => number): number => median(list.map(pick))
        const built = list.flatMap((s) => (s.built === undefined ? [] : [s.built]))
        figures.push({
          candidate,
          condition,
          runs: list.length,
          seconds: med((s) => s.seconds),
          allSeconds: list.map((s) => Number(s.seconds.toFixed(3))),
          engineCpuSeconds: med((s) => s.engineCpuSeconds),
          clientCpuSeconds: med((s) => s.cpuSeconds),
          peakTreeRssMb: med((s) => s.peakTreeRssKb) / 1024,
          uploadedBytes: med((s) => s.bytes),
          uploadedLayers: med((s) => s.layers),
          ...(built.length > 0 ? { built: Math.max(...built) } : {}),
        })
      }
    }
    return figures
  }
}

type Command = [string, string[], Record<string, string>]

/** Every image: the frontend, then each backend, each with its SOURCES_PATH and Dockerfile. */
function images(
  fixture: BackendsFixture,
): Array<{ name: string; dockerfile: string; sources: string }> {
  return [
    { name: 'frontend', dockerfile: 'docker/frontend.Dockerfile', sources: 'dist/web' },
    ...fixture.backends.map(({ name, sources }) => ({
      name: `backend-${name}`,
      dockerfile: 'docker/backend.Dockerfile',
      sources,
    })),
  ]
}

const LABELS = [
  ['draw_version', FIXTURE_DRAW_VERSION],
  ['org.opencontainers.image.source', `https://github.com/${REPOSITORY}`],
] as const

/** The seed's CI: log in, then for each image `docker build` and `docker push`, in turn. */
function sequentialScript(fixture: BackendsFixture): string {
  const labels = [
    ...LABELS.map(([name, value]) => `--label ${name}=${value}`),
    '--label "org.opencontainers.image.revision=$SHA"',
    '--label "org.opencontainers.image.created=$CREATED"',
  ].join(' ')
  return [
    'set -euo pipefail',
    `printf '%s' "$REGISTRY_PASSWORD" | docker login "$REGISTRY" -u "$REGISTRY_USER" --password-stdin >/dev/null`,
    'CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)"',
    ...images(fixture).flatMap(({ name, dockerfile, sources }) => [
      `docker build -f ${dockerfile} --build-arg SOURCES_PATH=${sources} ${labels} -t "$REGISTRY/${REPOSITORY}/${name}:$TAG" . >/dev/null 2>&1`,
      `docker push "$REGISTRY/${REPOSITORY}/${name}:$TAG" >/dev/null`,
    ]),
  ].join('\n')
}

/** One bake target per image, the same arguments, labels and tags. */
function bakeFile(fixture: BackendsFixture): string {
  const list = images(fixture)
  return [
    ...['REGISTRY', 'CREATED', 'TAG', 'SHA'].map((name) => `variable "${name}" { default = "" }`),
    `group "default" { targets = [${list.map(({ name }) => `"${name}"`).join(', ')}] }`,
    'target "common" {',
    `  context = "${fixture.root}"`,
    '  labels = {',
    ...LABELS.map(([name, value]) => `    "${name}" = "${value}"`),
    '    "org.opencontainers.image.revision" = "${SHA}"',
    '    "org.opencontainers.image.created" = "${CREATED}"',
    '  }',
    '}',
    ...list.flatMap(({ name, dockerfile, sources }) => [
      `target "${name}" {`,
      '  inherits = ["common"]',
      `  dockerfile = "${dockerfile}"`,
      `  args = { SOURCES_PATH = "${sources}" }`,
      `  tags = ["\${REGISTRY}/${REPOSITORY}/${name}:\${TAG}"]`,
      '}',
    ]),
  ].join('\n')
}

/** Log in, then bake every target and push them (`--push`: bake pushes them side by side). */
function bakeScript(file: string): string {
  return [
    'set -euo pipefail',
    `printf '%s' "$REGISTRY_PASSWORD" | docker login "$REGISTRY" -u "$REGISTRY_USER" --password-stdin >/dev/null`,
    'export CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)"',
    `docker buildx bake --file ${file} --push >/dev/null 2>&1`,
  ].join('\n')
}
