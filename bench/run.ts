// `npm run bench`: medians of repeated runs, each against its baseline measured in the same run.
// Writes bench/results.json and the README's performance section. Not part of `npm test`.
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { format, resolveConfig } from 'prettier'
import { join } from 'node:path'
import { replaceBetweenMarkers } from '../scripts/render/readme.js'
import { benchBuildah, type BuildahResult } from './buildah.js'
import { benchBuildImages, type ImagesResult } from './build-images.js'
import { benchBundles, type BundleFigure } from './bundles.js'
import { benchDeploy, benchLargeResponse } from './deploy.js'
import { benchFresh, type FreshResult } from './fresh.js'
import {
  freshTargets,
  imageTargets,
  npxTargets,
  renderBuildah,
  renderFresh,
  renderImages,
  renderNpx,
  type TargetCheck,
} from './images-report.js'
import type { Figure } from './measure.js'
import { FRESH_MISSED_NOTES, MISSED_TARGET_NOTES, NPX_MISSED_NOTES } from './notes.js'
import { benchNpx, type NpxResult } from './npx.js'
import { benchSnapshot } from './snapshot.js'

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
  'bundles',
  'large',
  'images',
  'fresh',
  'buildah',
  'snapshot',
  'npx',
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

interface Results {
  date: string
  runs: number
  node: string
  deploy: Record<string, Figure>
  bundles: BundleFigure[]
  large: Figure
  images: ImagesResult & { targets: TargetCheck[] }
  fresh: FreshResult & { targets: TargetCheck[] }
  buildah: BuildahResult
  snapshot: Record<string, Figure>
  npx: NpxResult & { targets: TargetCheck[] }
}

/**
 * The deploy bundle's time against (a) when each action had a bundle of its own (1.78×,
 * 2026-11-24). Declared before the top-level code that renders the tables reads it.
 */
const DEPLOY_RATIO_BEFORE_ONE_BUNDLE = 1.78

const resultsPath = join(ROOT, 'bench/results.json')
const previous = (
  existsSync(resultsPath) ? JSON.parse(await readFile(resultsPath, 'utf8')) : {}
) as Partial<Results>
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
  const snapshot = await take('snapshot', 'snapshot cost against history', () =>
    benchSnapshot(Math.max(3, Math.floor(RUNS / 2)), tmp),
  )
  const npx = await take('npx', 'npx cold and warm from verdaccio', async () => {
    const result = await benchNpx(Math.max(3, Math.floor(RUNS / 3)), tmp)
    return { ...result, targets: npxTargets(result) }
  })
  const results: Results = {
    date: state.measured ? new Date().toISOString() : (previous.date ?? new Date().toISOString()),
    runs: RUNS,
    node: 'node24',
    deploy,
    bundles,
    large,
    images,
    fresh,
    buildah,
    snapshot,
    npx,
  }
  // Formatted as \`prettier --check\` wants it.
  await writeFile(
    resultsPath,
    await format(JSON.stringify(results), {
      ...((await resolveConfig(resultsPath)) ?? {}),
      filepath: resultsPath,
    }),
  )
  const readmePath = join(ROOT, 'README.md')
  const readme = await readFile(readmePath, 'utf8')
  const tables = renderTables(results)
  // Formatted as the generator and \`prettier --check\` want it.
  const updated = replaceBetweenMarkers(readme, 'performance', tables)
  await writeFile(
    readmePath,
    await format(updated, { ...((await resolveConfig(readmePath)) ?? {}), filepath: readmePath }),
  )
  console.log(tables)
} finally {
  await rm(tmp, { recursive: true, force: true })
}

function renderTables({
  deploy,
  bundles,
  large,
  images,
  fresh,
  buildah,
  snapshot,
  npx,
}: Results): string {
  const floor = deploy['(a) node:http script'] as Figure
  const ratio = (value: number, base: number): string => `${(value / base).toFixed(2)}×`
  const deployRows = Object.values(deploy).map(
    (f) =>
      `| ${f.name} | ${(f.seconds * 1000).toFixed(0)} ms | ${ratio(f.seconds, floor.seconds)} | ${f.maxRssMb.toFixed(1)} MB | ${ratio(f.maxRssMb, floor.maxRssMb)} |`,
  )
  const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`
  const bundleRows = bundles.map(
    (b) =>
      `| \`olympe-deploy ${b.action} --help\` | ${kb(b.entryBytes)} | ${kb(b.bytes)} | ${kb(b.gzipBytes)} | ${b.loadMs.toFixed(0)} ms | ${b.maxRssMb.toFixed(1)} MB |`,
  )
  const bundled = deploy['deploy bundle'] as Figure
  const entry = Math.max(...bundles.map((b) => b.entryBytes))
  const startUpLimit = DEPLOY_RATIO_BEFORE_ONE_BUNDLE * 1.1
  const targetRows = [
    targetRow(
      `Deploy: time within 10% of the three-bundle build's ${DEPLOY_RATIO_BEFORE_ONE_BUNDLE}× (a), so at most ${startUpLimit.toFixed(2)}×`,
      bundled.seconds / floor.seconds,
      startUpLimit,
    ),
    targetRow('Deploy: peak RSS at most 2.0× (a)', bundled.maxRssMb / floor.maxRssMb, 2),
    `| dist/index.js under 900 KB | ${kb(entry)} | ${entry < 900 * 1024 ? 'yes' : 'no'} |`,
  ]
  return [
    `Medians of ${RUNS} interleaved runs on this project's CI machine (2 cores), Node 24; ratios against baseline (a) measured in the same run. One bundle, \`dist/index.js\`, holds the three actions and \`@actions/http-client\`; \`@actions/core\` loads only on the GitHub runner, \`@actions/exec\` only when a tool runs, \`@actions/github\` only on GitHub.`,
    '',
    '| Deploy, one POST to a loopback webhook | Time | vs (a) | Peak RSS | vs (a) |',
    '|---|---|---|---|---|',
    ...deployRows,
    '',
    '| Bundle | index.js (minified) | With its lazy chunks | gzip (all) | Load (over empty `node`) | Peak RSS |',
    '|---|---|---|---|---|---|',
    ...bundleRows,
    '',
    '| Target | Measured | Met |',
    '|---|---|---|',
    ...targetRows,
    '',
    'The runner loads dist/index.js; a chunk is read only when its code runs (`@actions/core` on the GitHub runner, `@actions/exec` when a tool runs, `@actions/github` on GitHub, the YAML parser when `deploy-rules` are YAML rather than JSON).',
    '',
    `Deploy when the webhook answers with a 10 MB body: ${(large.seconds * 1000).toFixed(0)} ms, peak RSS ${large.maxRssMb.toFixed(1)} MB (only 64 KiB of the body is kept).`,
    '',
    ...renderImages(images, MISSED_TARGET_NOTES),
    ...renderFresh(fresh, FRESH_MISSED_NOTES),
    ...renderBuildah(buildah),
    ...renderNpx(npx, NPX_MISSED_NOTES),
    '| Snapshot (clone, export, compare; nothing to commit) | Time | vs 1 commit | Peak RSS |',
    '|---|---|---|---|',
    ...pairRows(snapshot, true),
  ].join('\n')
}

function targetRow(target: string, ratio: number, limit: number): string {
  return `| ${target} | ${ratio.toFixed(2)}× | ${ratio <= limit ? 'yes' : 'no'} |`
}

/** Rows for a pair measured together: the second is the baseline of the first, or the reverse. */
function pairRows(figures: Record<string, Figure>, firstIsBaseline = false): string[] {
  const list = Object.values(figures)
  const base = (firstIsBaseline ? list[0] : list[list.length - 1]) as Figure
  return list.map(
    (f) =>
      `| ${f.name} | ${f.seconds.toFixed(2)} s | ${(f.seconds / base.seconds).toFixed(2)}× | ${f.maxRssMb.toFixed(1)} MB |`,
  )
}
