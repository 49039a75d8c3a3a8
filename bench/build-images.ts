// build-images against the hand-written alternatives, on a real-sized project (bench/fixture.ts)
// and the engine users have (Docker 24+ with BuildKit): (a) the build-images bundle, (b) the
// plain docker commands in sequence, (c) `docker buildx bake` of the three targets then the
// pushes. Each is measured cold, warm with nothing changed and warm with one frontend file
// changed, interleaved run by run, on an engine and registries of the bench's own.
import { mkdir, open, readdir, stat, writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { BASE_IMAGES, ensureBaseImages, startRegistry } from '../test/helpers/docker-env.js'
import type { Registry } from '../test/helpers/docker-registry.js'
import { run } from '../test/helpers/run-process.js'
import { startPrivateEngine, type PrivateEngine } from './engine.js'
import {
  changeOneFile,
  FIXTURE_DRAW_VERSION,
  generateFixture,
  restoreChangedFile,
  type Fixture,
} from './fixture.js'
import {
  actionEnv,
  bakeFile,
  bakeLabels,
  bakeScript,
  KINDS,
  NODE,
  PASSWORD,
  REPOSITORY,
  ROOT,
  USER,
} from './images-common.js'
import { CANDIDATES, CONDITIONS, type Candidate, type Condition } from './labels.js'
import { measureTree, median, type TreeSample } from './measure.js'

const SHA = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'
const TAG = 'main-1a2b3c4'

export interface Upload {
  bytes: number
  layerBytes: number
  layers: number
}

export interface ImagesFigure {
  candidate: Candidate
  condition: Condition
  runs: number
  /** Median and best wall time. */
  seconds: number
  bestSeconds: number
  allSeconds: number[]
  /** Median peak of the summed RSS of the candidate's process tree. */
  peakTreeRssMb: number
  /** Median of the largest single process's peak RSS (GNU time). */
  maxProcessRssMb: number
  cpuSeconds: number
  engineCpuSeconds: number
  enginePeakRssMb: number
  /** Median bytes the registry stored during the run: every blob, and the layers alone. */
  uploadedBytes: number
  uploadedLayerBytes: number
  uploadedLayers: number
}

export interface ImagesResult {
  fixture: { files: number; bytes: Fixture['bytes'] }
  engine: { server: string; buildx: string }
  /** /proc/loadavg (1 minute) before each run: how busy the machine was. */
  load: { min: number; median: number; max: number }
  figures: ImagesFigure[]
}

function plainScript(): string {
  return [
    'set -euo pipefail',
    `printf '%s' "$REGISTRY_PASSWORD" | docker login "$REGISTRY" -u "$REGISTRY_USER" --password-stdin >/dev/null`,
    'CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)"',
    ...KINDS.map(
      ([kind, sources]) =>
        `docker build -f docker/${kind}.Dockerfile --build-arg SOURCES_PATH=${sources} ${labelFlags()} -t "$REGISTRY/${REPOSITORY}/${kind}:${TAG}" . >/dev/null 2>&1`,
    ),
    ...KINDS.map(([kind]) => `docker push "$REGISTRY/${REPOSITORY}/${kind}:${TAG}" >/dev/null`),
  ].join('\n')
}

function labelFlags(): string {
  return [
    `--label draw_version=${FIXTURE_DRAW_VERSION}`,
    `--label org.opencontainers.image.source=https://github.com/${REPOSITORY}`,
    `--label org.opencontainers.image.revision=${SHA}`,
    '--label "org.opencontainers.image.created=$CREATED"',
  ].join(' ')
}

/** Every blob the registry stores (layers, configs and manifests alike), by digest. */
export async function blobs(
  registry: Registry,
): Promise<Map<string, { size: number; layer: boolean }>> {
  const found = new Map<string, { size: number; layer: boolean }>()
  const base = join(registry.storage, 'docker/registry/v2/blobs/sha256')
  for (const prefix of await readdir(base).catch(() => [] as string[])) {
    for (const digest of await readdir(join(base, prefix))) {
      const path = join(base, prefix, digest, 'data')
      const size = (await stat(path).catch(() => undefined))?.size
      if (size === undefined) continue
      // Layers are gzip streams; configs and manifests are JSON.
      const head = Buffer.alloc(2)
      const handle = await open(path)
      await handle.read(head, 0, 2, 0)
      await handle.close()
      found.set(digest, { size, layer: head[0] === 0x1f && head[1] === 0x8b })
    }
  }
  return found
}

export function uploaded(
  before: Map<string, unknown>,
  after: Awaited<ReturnType<typeof blobs>>,
): Upload {
  const upload: Upload = { bytes: 0, layerBytes: 0, layers: 0 }
  for (const [digest, blob] of after) {
    if (before.has(digest)) continue
    upload.bytes += blob.size
    if (blob.layer) {
      upload.layerBytes += blob.size
      upload.layers++
    }
  }
  return upload
}

/** Everything the bench made on its engine: the images but the bases, and the build cache. */
async function emptyEngine(env: NodeJS.ProcessEnv): Promise<void> {
  const docker = (args: string[]): Promise<string> =>
    run('docker', args, { env }).then((r) => r.stdout)
  const bases = new Set<string>(Object.values(BASE_IMAGES))
  const listing = await docker(['image', 'ls', '--format', '{{.ID}} {{.Repository}}:{{.Tag}}'])
  const remove = new Set<string>()
  for (const line of listing.split('\n')) {
    const [id = '', name = ''] = line.split(' ')
    if (id !== '' && !bases.has(name)) remove.add(id)
  }
  if (remove.size > 0) await docker(['image', 'rm', '--force', ...remove])
  await docker(['builder', 'prune', '--all', '--force'])
}

export async function benchBuildImages(runs: number, tmp: string): Promise<ImagesResult> {
  const engine = await startPrivateEngine(join(tmp, 'engine'))
  const saved = process.env.DOCKER_HOST
  // The test helpers (base images) run `docker` with this process's environment.
  process.env.DOCKER_HOST = engine.host
  try {
    return await benchOn(engine, runs, tmp)
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST
    else process.env.DOCKER_HOST = saved
    await engine.stop()
  }
}

async function benchOn(engine: PrivateEngine, runs: number, tmp: string): Promise<ImagesResult> {
  const env = { ...process.env, DOCKER_HOST: engine.host }
  await ensureBaseImages()
  const project = join(tmp, 'project')
  await mkdir(project, { recursive: true })
  console.log('  generating the real-sized project…')
  const fixture = await generateFixture(project)
  const dockerConfig = join(tmp, 'docker-config')
  await mkdir(dockerConfig, { recursive: true })
  await writeFile(join(tmp, 'plain.sh'), plainScript())
  const references = KINDS.map(([kind]) => `"$REGISTRY/${REPOSITORY}/${kind}:${TAG}"`)
  await writeFile(
    join(tmp, 'bake.hcl'),
    bakeFile(project, {
      variables: [],
      labels: bakeLabels(SHA),
      target: (kind) => [`  tags = ["\${REGISTRY}/${REPOSITORY}/${kind}:${TAG}"]`],
    }),
  )
  await writeFile(join(tmp, 'bake.sh'), bakeScript(join(tmp, 'bake.hcl'), references))
  await writeFile(
    join(tmp, 'event.json'),
    JSON.stringify({ repository: { default_branch: 'main' } }),
  )
  const common = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    DOCKER_HOST: engine.host,
    DOCKER_CONFIG: dockerConfig,
  }
  const commandOf = (
    candidate: Candidate,
    registry: Registry,
  ): [string, string[], Record<string, string>] => {
    const scriptEnv = {
      ...common,
      REGISTRY: registry.host,
      REGISTRY_USER: USER,
      REGISTRY_PASSWORD: PASSWORD,
    }
    if (candidate === 'b') return ['bash', [join(tmp, 'plain.sh')], scriptEnv]
    if (candidate === 'c') return ['bash', [join(tmp, 'bake.sh')], scriptEnv]
    return [
      NODE,
      [join(ROOT, 'dist/build-images/index.js')],
      actionEnv(common, registry, { tmp, project, sha: SHA, filePrefix: 'bi-' }),
    ]
  }

  const samples = new Map<string, Array<TreeSample & Upload>>()
  const loads: number[] = []
  const order: Candidate[] = ['a', 'b', 'c']
  let edit = 0
  for (let round = 0; round < runs; round++) {
    // Rotated each round, so that no candidate always runs first after a reset.
    const rotated = [...order.slice(round % 3), ...order.slice(0, round % 3)]
    for (const candidate of rotated) {
      await emptyEngine(env)
      await restoreChangedFile(fixture)
      const registry = await startRegistry({ user: USER, password: PASSWORD })
      try {
        for (const condition of Object.keys(CONDITIONS) as Condition[]) {
          if (condition === 'changed') await changeOneFile(fixture, ++edit)
          const before = await blobs(registry)
          loads.push(loadavg()[0] ?? 0)
          const [command, args, runEnv] = commandOf(candidate, registry)
          const sample = await measureTree(command, args, runEnv, project, () => engine.pids())
          if (sample.code !== 0)
            throw new Error(
              `${CANDIDATES[candidate]} (${condition}) failed in round ${round + 1}: ${sample.stderr ?? ''}`,
            )
          const upload = uploaded(before, await blobs(registry))
          const key = `${candidate} ${condition}`
          samples.set(key, [...(samples.get(key) ?? []), { ...sample, ...upload }])
          console.log(
            `  round ${round + 1}, (${candidate}) ${condition}: ${sample.seconds.toFixed(1)} s, ${(upload.layerBytes / 1e6).toFixed(1)} MB of layers uploaded, load ${loads.at(-1)?.toFixed(1) ?? ''}`,
          )
        }
      } finally {
        await registry.stop()
      }
    }
  }
  await emptyEngine(env)
  const figures: ImagesFigure[] = []
  for (const condition of Object.keys(CONDITIONS) as Condition[]) {
    for (const candidate of order) {
      const list = samples.get(`${candidate} ${condition}`) ?? []
      const med = (pick: (s: TreeSample & Upload) => number): number => median(list.map(pick))
      figures.push({
        candidate,
        condition,
        runs: list.length,
        seconds: med((s) => s.seconds),
        bestSeconds: Math.min(...list.map((s) => s.seconds)),
        allSeconds: list.map((s) => Number(s.seconds.toFixed(2))),
        peakTreeRssMb: med((s) => s.peakTreeRssKb) / 1024,
        maxProcessRssMb: med((s) => s.maxRssKb) / 1024,
        cpuSeconds: med((s) => s.cpuSeconds),
        engineCpuSeconds: med((s) => s.engineCpuSeconds),
        enginePeakRssMb: med((s) => s.enginePeakRssKb) / 1024,
        uploadedBytes: med((s) => s.bytes),
        uploadedLayerBytes: med((s) => s.layerBytes),
        uploadedLayers: med((s) => s.layers),
      })
    }
  }
  const versions = await run('docker', ['version', '--format', '{{.Server.Version}}'], { env })
  const buildx = await run('docker', ['buildx', 'version'], { env })
  return {
    fixture: { files: fixture.files, bytes: fixture.bytes },
    engine: { server: versions.stdout.trim(), buildx: buildx.stdout.trim() },
    load: { min: Math.min(...loads), median: median(loads), max: Math.max(...loads) },
    figures,
  }
}
