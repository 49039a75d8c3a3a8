// `npm run bench`: medians of repeated runs, each against its baseline measured in the same run.
// Writes bench/results.json only: `npm run build` renders its figures into docs/performance.md
// (bench/report.ts), docs/build-images.md (Buildah's cost) and gitlab/README.md (npx's cost)
// (scripts/render/bench-figures.ts). Not part of `npm test`.
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { format, resolveConfig } from 'prettier'
import { join } from 'node:path'
import { benchAttestations } from './attestations.js'
import { benchBackends } from './backends.js'
import { benchBuildah } from './buildah.js'
import { benchBuildImages } from './build-images.js'
import { benchBundles } from './bundles.js'
import { benchDeploy, benchLargeResponse } from './deploy.js'
import { benchSignatures } from './signatures.js'
import { benchFresh } from './fresh.js'
import { freshTargets, imageTargets, npxTargets } from './images-report.js'
import { benchNpx } from './npx.js'
import type { BenchResults } from './report.js'
import { benchSnapshot } from './snapshot.js'
import { benchWatch } from './watch.js'

const ROOT = join(import.meta.dirname, '..')
const RUNS = Number(process.env.BENCH_RUNS ?? 15)

// The baselines are the tools a hand-written pipeline uses; GNU time reads peak memory.
for (const tool of ['/usr/bin/time', '/usr/bin/jq', '/usr/bin/curl', '/usr/sbin/ip']) {
  if (!existsSync(tool)) {
    console.error(
      `bench needs ${tool}: apt-get install -y time jq curl (and .ci/setup.sh for Docker).`,
    )
    process.exit(1)
  }
}

// BENCH_ONLY=images,npx re-runs some parts and keeps the others' figures from results.json.
const PARTS = [
  'deploy',
  'signatures',
  'bundles',
  'large',
  'images',
  'fresh',
  'buildah',
  'attest',
  'backends',
  'snapshot',
  'npx',
  'watch',
] as const
type Part = (typeof PARTS)[number]
const only = process.env.BENCH_ONLY?.split(',').map((part) => part.trim())
const unknown = only?.filter((part) => part !== '' && !(PARTS as readonly string[]).includes(part))
if (unknown && unknown.length > 0) {
  console.error(
    `BENCH_ONLY: unknown part(s) ${unknown.join(', ')}; expected some of ${PARTS.join(', ')}.`,
  )
  process.exit(2)
}
const wanted = (part: Part): boolean => !only || only.includes(part)
const IMAGE_ROUNDS = Number(process.env.BENCH_IMAGE_ROUNDS ?? 3)
const FRESH_ROUNDS = Number(process.env.BENCH_FRESH_ROUNDS ?? 3)
const BUILDAH_ROUNDS = Number(process.env.BENCH_BUILDAH_ROUNDS ?? 3)
const ATTEST_ROUNDS = Number(process.env.BENCH_ATTEST_ROUNDS ?? 3)
const WATCH_ROUNDS = Number(process.env.BENCH_WATCH_ROUNDS ?? 3)
/** Backends beside the frontend, and rounds: BENCH_BACKENDS=3 tries the bench at a small scale. */
const BACKENDS = Number(process.env.BENCH_BACKENDS ?? 20)
const BACKENDS_ROUNDS = Number(process.env.BENCH_BACKENDS_ROUNDS ?? 2)

const resultsPath = join(ROOT, 'bench/results.json')
const previous = (
  existsSync(resultsPath) ? JSON.parse(await readFile(resultsPath, 'utf8')) : {}
) as Partial<BenchResults>
const tmp = await mkdtemp(join(tmpdir(), 'olympe-bench-'))
try {
  const state = { measured: false }
  const take = async <T>(part: Part, what: string, measure: () => Promise<T>): Promise<T> => {
    const kept = previous[part] as T | undefined
    if (!wanted(part) && kept !== undefined) return kept
    console.log(`${what}…`)
    state.measured = true
    return measure()
  }
  const deploy = await take('deploy', `deploy overhead, ${RUNS} runs each`, () =>
    benchDeploy(RUNS, tmp),
  )
  const signatures = await take(
    'signatures',
    `deploy with verify-signatures, ${RUNS} runs each`,
    () => benchSignatures(RUNS, tmp),
  )
  const bundles = await take('bundles', 'bundle size and load time', () => benchBundles(RUNS))
  const large = await take('large', 'deploy with a 10 MB response', () =>
    benchLargeResponse(Math.max(3, Math.floor(RUNS / 3)), tmp),
  )
  const images = await take(
    'images',
    'build-images against docker and bake, real-sized',
    async () => {
      const result = await benchBuildImages(IMAGE_ROUNDS, join(tmp, 'images'))
      return { ...result, targets: imageTargets(result) }
    },
  )
  const fresh = await take(
    'fresh',
    'build-images on a fresh engine per run, against bake',
    async () => {
      const result = await benchFresh(FRESH_ROUNDS, join(tmp, 'fresh'))
      return { ...result, targets: freshTargets(result) }
    },
  )
  const buildah = await take(
    'buildah',
    'build-images with Buildah against Docker, fresh runners, real-sized',
    () => benchBuildah(BUILDAH_ROUNDS, join(tmp, 'buildah')),
  )
  const attest = await take(
    'attest',
    'build-images attesting, cold then unchanged, real-sized',
    () => benchAttestations(ATTEST_ROUNDS, join(tmp, 'attest')),
  )
  const backends = await take(
    'backends',
    `1 frontend and ${BACKENDS} backends on one runner: build-images against docker and bake`,
    () => benchBackends(BACKENDS, BACKENDS_ROUNDS, join(tmp, 'backends')),
  )
  const snapshot = await take('snapshot', 'snapshot cost against history', () =>
    benchSnapshot(Math.max(3, Math.floor(RUNS / 2)), tmp),
  )
  const npx = await take('npx', 'npx cold and warm from verdaccio', async () => {
    const result = await benchNpx(Math.max(3, Math.floor(RUNS / 3)), tmp)
    return { ...result, targets: npxTargets(result) }
  })
  const watch = await take(
    'watch',
    `the rollout watch's verdict latency against a curl loop, ${WATCH_ROUNDS} rounds`,
    () => benchWatch(WATCH_ROUNDS),
  )
  const results: BenchResults = {
    date: state.measured ? new Date().toISOString() : (previous.date ?? new Date().toISOString()),
    runs: RUNS,
    node: 'node24',
    deploy,
    signatures,
    bundles,
    large,
    images,
    fresh,
    buildah,
    attest,
    backends,
    snapshot,
    npx,
    watch,
  }
  // Formatted as \`prettier --check\` wants it.
  await writeFile(
    resultsPath,
    await format(JSON.stringify(results), {
      ...((await resolveConfig(resultsPath)) ?? {}),
      filepath: resultsPath,
    }),
  )
  console.log(
    "Wrote bench/results.json: 'npm run build' renders its figures into docs/performance.md, docs/build-images.md and gitlab/README.md.",
  )
} finally {
  await rm(tmp, { recursive: true, force: true })
}
