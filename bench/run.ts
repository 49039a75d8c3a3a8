// `npm run bench`: medians of repeated runs, each against its baseline measured in the same run.
// Writes bench/results.json and the README's performance section. Not part of `npm test`.
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { format, resolveConfig } from 'prettier'
import { join } from 'node:path'
import { replaceBetweenMarkers } from '../scripts/render/readme.js'
import { benchBuildImages } from './build-images.js'
import { benchBundles, type BundleFigure } from './bundles.js'
import { benchDeploy, benchLargeResponse } from './deploy.js'
import type { Figure } from './measure.js'
import { benchSnapshot } from './snapshot.js'

const ROOT = join(import.meta.dirname, '..')
const RUNS = Number(process.env.BENCH_RUNS ?? 15)

// The baselines are the tools a hand-written pipeline uses; GNU time reads peak memory.
for (const tool of ['/usr/bin/time', '/usr/bin/jq', '/usr/bin/curl']) {
  if (!existsSync(tool)) {
    console.error(
      `bench needs ${tool}: apt-get install -y time jq curl (and .ci/setup.sh for Docker).`,
    )
    process.exit(1)
  }
}

const tmp = await mkdtemp(join(tmpdir(), 'olympe-bench-'))
try {
  console.log(`deploy overhead, ${RUNS} runs each…`)
  const deploy = await benchDeploy(RUNS, tmp)
  console.log('bundle size and load time…')
  const bundles = await benchBundles(RUNS)
  console.log('deploy with a 10 MB response…')
  const large = await benchLargeResponse(Math.max(3, Math.floor(RUNS / 3)), tmp)
  console.log('build-images against plain docker commands…')
  const images = await benchBuildImages(Math.max(3, Math.floor(RUNS / 3)), tmp)
  console.log('snapshot cost against history…')
  const snapshot = await benchSnapshot(Math.max(3, Math.floor(RUNS / 2)), tmp)
  const results = {
    date: new Date().toISOString(),
    runs: RUNS,
    node: 'node24',
    deploy,
    bundles,
    large,
    images,
    snapshot,
  }
  await writeFile(join(ROOT, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`)
  const readmePath = join(ROOT, 'README.md')
  const readme = await readFile(readmePath, 'utf8')
  const tables = renderTables(deploy, bundles, large, images, snapshot)
  // Formatted as the generator and \`prettier --check\` want it.
  const updated = replaceBetweenMarkers(readme, 'performance', tables)
  await writeFile(
    readmePath,
    await format(updated, { ...((await resolveConfig(readmePath)) ?? {}), filepath: readmePath }),
  )
  console.log(renderTables(deploy, bundles, large, images, snapshot))
} finally {
  await rm(tmp, { recursive: true, force: true })
}

function renderTables(
  deploy: Record<string, Figure>,
  bundles: BundleFigure[],
  large: Figure,
  images: { cold: Record<string, Figure>; warm: Record<string, Figure> },
  snapshot: Record<string, Figure>,
): string {
  const floor = deploy['(a) node:http script'] as Figure
  const ratio = (value: number, base: number): string => `${(value / base).toFixed(2)}×`
  const deployRows = Object.values(deploy).map(
    (f) =>
      `| ${f.name} | ${(f.seconds * 1000).toFixed(0)} ms | ${ratio(f.seconds, floor.seconds)} | ${f.maxRssMb.toFixed(1)} MB | ${ratio(f.maxRssMb, floor.maxRssMb)} |`,
  )
  const bundleRows = bundles.map(
    (b) =>
      `| \`dist/${b.action}/index.js\` | ${(b.bytes / 1024).toFixed(0)} KB | ${(b.gzipBytes / 1024).toFixed(0)} KB | ${b.loadMs.toFixed(0)} ms | ${b.maxRssMb.toFixed(1)} MB |`,
  )
  return [
    `Medians of ${RUNS} interleaved runs on this project's CI machine (2 cores), Node 24; ratios against baseline (a) measured in the same run. Targets: deploy at most 1.3× (a) in time and memory; bundles under 400 KB, load under 60 ms; peak RSS under 100 MB.`,
    '',
    '| Deploy, one POST to a loopback webhook | Time | vs (a) | Peak RSS | vs (a) |',
    '|---|---|---|---|---|',
    ...deployRows,
    '',
    '| Bundle (with its lazy chunks) | Size (minified) | gzip | Load (over empty `node`) | Peak RSS |',
    '|---|---|---|---|---|',
    ...bundleRows,
    '',
    `Deploy when the webhook answers with a 10 MB body: ${(large.seconds * 1000).toFixed(0)} ms, peak RSS ${large.maxRssMb.toFixed(1)} MB (only 64 KiB of the body is kept).`,
    '',
    '| Three images, build and push | Time | vs plain docker | Peak RSS of the step |',
    '|---|---|---|---|',
    ...pairRows(images.cold),
    ...pairRows(images.warm),
    '',
    '| Snapshot (clone, export, compare; nothing to commit) | Time | vs 1 commit | Peak RSS |',
    '|---|---|---|---|',
    ...pairRows(snapshot, true),
  ].join('\n')
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
