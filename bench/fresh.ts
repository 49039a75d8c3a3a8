// build-images on fresh runners: every run on a Docker engine started empty for it and thrown
// away after it (as GitHub-hosted and autoscaled GitLab runners give), the base images pulled from
// a registry of their own, the images pushed to another. Cold, then one frontend file changed,
// then nothing changed, each on a new engine, for (a) build-images and (c) `docker buildx bake`
// with the registry cache a user would write by hand (`cache-to type=inline`, `cache-from
// type=registry` naming the previous images), then `docker push`.
import { createHash, generateKeyPairSync } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { startActionsCacheServer } from '../test/helpers/actions-cache-server.js'
import { BASE_IMAGES, makeMissingBaseImages, startRegistry } from '../test/helpers/docker-env.js'
import type { Registry } from '../test/helpers/docker-registry.js'
import { run } from '../test/helpers/run-process.js'
import { blobs, uploaded, type Upload } from './build-images.js'
import { startPrivateEngine } from './engine.js'
import {
  changeOneFile,
  FIXTURE_DRAW_VERSION,
  freshCheckout,
  generateFixture,
  restoreChangedFile,
  type Fixture,
} from './fixture.js'
import {
  actionEnv,
  bakeFile,
  basesFrom,
  bakeLabels,
  bakeScript,
  KINDS,
  NODE,
  PASSWORD,
  REPOSITORY,
  ROOT,
  USER,
} from './images-common.js'
import {
  FRESH_CANDIDATES,
  FRESH_CONDITIONS,
  type FreshCandidate,
  type FreshCondition,
} from './labels.js'
import { measureTree, median, type TreeSample } from './measure.js'

/**
 * BENCH_FRESH_SIGNING=1: (a) with 'signing-key' too (every image signed, reuse proven by the
 * signature), for a one-off comparison with the figures of results.json, which are without it.
 */
const SIGNING: Record<string, string> =
  process.env.BENCH_FRESH_SIGNING === '1'
    ? {
        'INPUT_SIGNING-KEY': generateKeyPairSync('ec', { namedCurve: 'P-256' })
          .privateKey.export({ type: 'sec1', format: 'pem' })
          .toString(),
      }
    : {}

export interface FreshFigure {
  candidate: FreshCandidate
  condition: FreshCondition
  runs: number
  /** Median wall time, and every run's. */
  seconds: number
  allSeconds: number[]
  peakTreeRssMb: number
  engineCpuSeconds: number
  /** Medians of what the registry's storage grew by: everything, and the layers alone. */
  uploadedBytes: number
  uploadedLayerBytes: number
  uploadedLayers: number
  allUploadedBytes: number[]
  /** Median size of the frontend image's top layer, the one a changed frontend file changes. */
  frontendLayerBytes: number
}

export interface FreshResult {
  fixture: { files: number; bytes: Fixture['bytes'] }
  engine: { server: string; buildx: string }
  load: { min: number; median: number; max: number }
  figures: FreshFigure[]
}

type Sample = TreeSample & Upload & { frontendLayerBytes: number }

export async function benchFresh(rounds: number, tmp: string): Promise<FreshResult> {
  const project = join(tmp, 'project')
  await mkdir(project, { recursive: true })
  console.log('  generating the real-sized project…')
  const fixture = await generateFixture(project)
  const bases = await startRegistry({ user: USER, password: PASSWORD })
  try {
    const engineFacts = await pushBases(bases, join(tmp, 'setup-engine'))
    const dockerConfig = await pullFromBases(
      project,
      KINDS.map(([kind]) => kind),
      bases,
      tmp,
    )
    await writeFile(join(tmp, 'bake.hcl'), freshBakeFile(project))
    const references = KINDS.flatMap(([kind]) => [
      `"$REGISTRY/${REPOSITORY}/${kind}:$TAG"`,
      `"$REGISTRY/${REPOSITORY}/${kind}:main"`,
    ])
    await writeFile(join(tmp, 'bake.sh'), bakeScript(join(tmp, 'bake.hcl'), references))
    await writeFile(
      join(tmp, 'event.json'),
      JSON.stringify({ repository: { default_branch: 'main' } }),
    )
    const samples = new Map<string, Sample[]>()
    const loads: number[] = []
    const order: FreshCandidate[] = ['a', 'c']
    let runs = 0
    for (let round = 0; round < rounds; round++) {
      const rotated = round % 2 === 0 ? order : [...order].reverse()
      for (const candidate of rotated) {
        await restoreChangedFile(fixture)
        const registry = await startRegistry({ user: USER, password: PASSWORD })
        // GitHub's Actions cache, which outlives the runner: build-images keeps there the
        // record of what the default branch built, which its reuse needs.
        const cache = await startActionsCacheServer()
        try {
          for (const condition of Object.keys(FRESH_CONDITIONS) as FreshCondition[]) {
            runs++
            if (condition === 'changed') await changeOneFile(fixture, runs)
            await freshCheckout(project, runs)
            const sha = createHash('sha1').update(`run ${runs}`).digest('hex')
            const engine = await startPrivateEngine(join(tmp, `engine-${runs}`))
            try {
              const before = await blobs(registry)
              loads.push(loadavg()[0] ?? 0)
              const common = {
                PATH: process.env.PATH ?? '',
                HOME: process.env.HOME ?? '/root',
                DOCKER_HOST: engine.host,
                DOCKER_CONFIG: dockerConfig,
              }
              const [command, args, env] =
                candidate === 'a'
                  ? [
                      NODE,
                      [join(ROOT, 'dist/build-images/index.js')],
                      {
                        ...actionEnv(
                          common,
                          registry,
                          { tmp, project, sha, filePrefix: 'fresh-' },
                          { 'INPUT_REUSE-UNCHANGED': 'true', ...SIGNING },
                        ),
                        ...cache.env,
                        RUNNER_TEMP: tmp,
                      },
                    ]
                  : ['bash', [join(tmp, 'bake.sh')], bakeEnv(common, registry, sha)]
              const sample = await measureTree(command, args, env, project, () => engine.pids())
              if (sample.code !== 0)
                throw new Error(
                  `${FRESH_CANDIDATES[candidate]} (${condition}) failed in round ${round + 1}: ${sample.stderr ?? ''}`,
                )
              const upload = uploaded(before, await blobs(registry))
              const frontendLayerBytes = await topLayerBytes(
                registry,
                `${REPOSITORY}/frontend`,
                tagOf(sha),
              )
              const key = `${candidate} ${condition}`
              samples.set(key, [
                ...(samples.get(key) ?? []),
                { ...sample, ...upload, frontendLayerBytes },
              ])
              console.log(
                `  round ${round + 1}, (${candidate}) ${condition}: ${sample.seconds.toFixed(1)} s, ${(upload.bytes / 1e6).toFixed(1)} MB uploaded (${upload.layers} layers), load ${loads.at(-1)?.toFixed(1) ?? ''}`,
              )
            } finally {
              await engine.stop()
            }
          }
        } finally {
          await cache.stop()
          await registry.stop()
        }
      }
    }
    await restoreChangedFile(fixture)
    const figures: FreshFigure[] = []
    for (const condition of Object.keys(FRESH_CONDITIONS) as FreshCondition[]) {
      for (const candidate of order) {
        const list = samples.get(`${candidate} ${condition}`) ?? []
        const med = (pick: (s: Sample) => number): number => median(list.map(pick))
        figures.push({
          candidate,
          condition,
          runs: list.length,
          seconds: med((s) => s.seconds),
          allSeconds: list.map((s) => Number(s.seconds.toFixed(2))),
          peakTreeRssMb: med((s) => s.peakTreeRssKb) / 1024,
          engineCpuSeconds: med((s) => s.engineCpuSeconds),
          uploadedBytes: med((s) => s.bytes),
          uploadedLayerBytes: med((s) => s.layerBytes),
          uploadedLayers: med((s) => s.layers),
          allUploadedBytes: list.map((s) => s.bytes),
          frontendLayerBytes: med((s) => s.frontendLayerBytes),
        })
      }
    }
    return {
      fixture: { files: fixture.files, bytes: fixture.bytes },
      engine: engineFacts,
      load: { min: Math.min(...loads), median: median(loads), max: Math.max(...loads) },
      figures,
    }
  } finally {
    await bases.stop()
  }
}

/**
 * The Dockerfiles of `kinds` made to build FROM the bases' registry, as a runner pulls them from
 * Docker Hub; and the job's Docker config, holding the login to that registry as
 * docker/login-action leaves it (each candidate logs in to the images' registry itself).
 */
export async function pullFromBases(
  project: string,
  kinds: readonly string[],
  bases: Registry,
  tmp: string,
): Promise<string> {
  await basesFrom(project, bases.host, kinds)
  const dockerConfig = join(tmp, 'docker-config')
  await mkdir(dockerConfig, { recursive: true })
  const auth = Buffer.from(`${USER}:${PASSWORD}`).toString('base64')
  await writeFile(
    join(dockerConfig, 'config.json'),
    JSON.stringify({ auths: { [bases.host]: { auth } } }),
  )
  return dockerConfig
}

/**
 * The three base images, made on an engine of their own (the machine's stays untouched) and
 * pushed to the bases' registry; that engine's versions, which every later engine shares.
 */
export async function pushBases(
  bases: Registry,
  dir: string,
): Promise<{ server: string; buildx: string }> {
  const engine = await startPrivateEngine(dir)
  const saved = process.env.DOCKER_HOST
  // The test helpers (base images) run `docker` with this process's environment.
  process.env.DOCKER_HOST = engine.host
  try {
    await makeMissingBaseImages()
    const env = { ...process.env, DOCKER_HOST: engine.host }
    await run('docker', ['login', bases.host, '-u', USER, '--password-stdin'], {
      env,
      input: PASSWORD,
    })
    for (const base of Object.values(BASE_IMAGES)) {
      await run('docker', ['tag', base, `${bases.host}/${base}`], { env })
      await run('docker', ['push', `${bases.host}/${base}`], { env })
    }
    await run('docker', ['logout', bases.host], { env })
    const server = await run('docker', ['version', '--format', '{{.Server.Version}}'], { env })
    const buildx = await run('docker', ['buildx', 'version'], { env })
    return { server: server.stdout.trim(), buildx: buildx.stdout.trim() }
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST
    else process.env.DOCKER_HOST = saved
    await engine.stop()
  }
}

const tagOf = (sha: string): string => `main-${sha.slice(0, 7)}`

/** The size of the top layer of an image in the registry (its COPY of the sources). */
async function topLayerBytes(registry: Registry, name: string, tag: string): Promise<number> {
  const headers = {
    Authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
    Accept: 'application/vnd.docker.distribution.manifest.v2+json',
  }
  const response = await fetch(`${registry.url}/v2/${name}/manifests/${tag}`, { headers })
  const manifest = (await response.json()) as { layers?: Array<{ size: number }> }
  return manifest.layers?.at(-1)?.size ?? 0
}

function bakeEnv(
  common: Record<string, string>,
  registry: Registry,
  sha: string,
): Record<string, string> {
  return {
    ...common,
    REGISTRY: registry.host,
    REGISTRY_USER: USER,
    REGISTRY_PASSWORD: PASSWORD,
    TAG: tagOf(sha),
    SHA: sha,
  }
}

/**
 * The bake file a user would write for a registry cache by hand: inline cache metadata in each
 * image, and the previous images (their `main` tag) as the cache to start from.
 */
function freshBakeFile(project: string): string {
  return bakeFile(project, {
    variables: ['TAG', 'SHA'],
    labels: bakeLabels('${SHA}', [
      `    "org.opencontainers.image.version" = "${FIXTURE_DRAW_VERSION}"`,
    ]),
    common: ['  cache-to = ["type=inline"]'],
    target: (kind) => [
      `  tags = ["\${REGISTRY}/${REPOSITORY}/${kind}:\${TAG}", "\${REGISTRY}/${REPOSITORY}/${kind}:main"]`,
      `  cache-from = ["type=registry,ref=\${REGISTRY}/${REPOSITORY}/${kind}:main"]`,
    ],
  })
}
