// docs/performance.md's figures, rendered from bench/results.json. Pure: `npm run bench` writes the
// file, and the generator (scripts/generated-files.ts) is the one writer of the page's region.
import { renderAttestations, type AttestationsResult } from './attestations-report.js'
import type { BackendsResult } from './backends.js'
import { renderBackends } from './backends-report.js'
import type { BuildahResult } from './buildah.js'
import type { BundleFigure } from './bundles.js'
import type { ImagesResult } from './build-images.js'
import type { FreshResult } from './fresh.js'
import {
  renderBuildah,
  renderFresh,
  renderImages,
  renderNpx,
  type TargetCheck,
} from './images-report.js'
import { BENCH_CORES } from './labels.js'
import type { Figure } from './measure.js'
import { FRESH_MISSED_NOTES, MISSED_TARGET_NOTES, NPX_MISSED_NOTES } from './notes.js'
import type { NpxResult } from './npx.js'
import type { WatchResult } from './watch.js'

/** bench/results.json. */
export interface BenchResults {
  date: string
  runs: number
  node: string
  deploy: Record<string, Figure>
  /** Deploy against a loopback registry: no image check, the check, and `verify-signatures`. */
  signatures?: Record<string, Figure>
  bundles: BundleFigure[]
  large: Figure
  images: ImagesResult & { targets: TargetCheck[] }
  fresh: FreshResult & { targets: TargetCheck[] }
  /** build-images with Buildah against Docker, each on a fresh runner. */
  buildah: BuildahResult
  /** build-images' attestation phase against its cold build (bench/attestations.ts). */
  attest?: AttestationsResult
  /** 1 frontend and N backends on one runner (bench/backends.ts). */
  backends?: BackendsResult
  snapshot: Record<string, Figure>
  npx: NpxResult & { targets: TargetCheck[] }
  /** The rollout watch's verdict latency against a curl loop (bench/watch.ts). */
  watch?: WatchResult
}

/**
 * The deploy bundle's time against (a) when each action had a bundle of its own (1.78×,
 * 2026-11-24).
 */
const DEPLOY_RATIO_BEFORE_ONE_BUNDLE = 1.78

/** The region between the `performance` markers of docs/performance.md. */
export function renderPerformance({
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
}: BenchResults): string {
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
    `Medians of ${floor.runs} interleaved runs on this project's CI machine (${BENCH_CORES} cores), Node 24; ratios against baseline (a) measured in the same run. One bundle, \`dist/index.js\`, holds the three actions and \`@actions/http-client\`; \`@actions/core\` loads only on the GitHub runner, \`@actions/exec\` only when a tool runs, \`@actions/github\` only on GitHub.`,
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
    ...renderWatch(watch),
    ...renderSignatures(signatures),
    ...renderImages(images, MISSED_TARGET_NOTES),
    ...renderFresh(fresh, FRESH_MISSED_NOTES),
    ...renderBuildah(buildah),
    ...renderAttestations(attest),
    ...renderBackends(backends),
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

/** Deploy against a loopback registry: no check, the image check, and the signatures too. */
function renderSignatures(signatures: Record<string, Figure> | undefined): string[] {
  const floor = signatures?.['(a) node:http script']
  const checked = signatures?.['deploy bundle, image check']
  const signed = signatures?.['deploy bundle, image check + verify-signatures']
  if (!signatures || !floor || !checked || !signed) return []
  const ratio = (value: number, base: number): string => `${(value / base).toFixed(2)}×`
  const rows = Object.values(signatures).map(
    (f) =>
      `| ${f.name} | ${(f.seconds * 1000).toFixed(0)} ms | ${ratio(f.seconds, floor.seconds)} | ${f.maxRssMb.toFixed(1)} MB |`,
  )
  return [
    '| Deploy, one image in a loopback registry (basic auth), one POST | Time | vs (a) | Peak RSS |',
    '|---|---|---|---|',
    ...rows,
    '',
    `\`verify-signatures\` adds ${((signed.seconds - checked.seconds) * 1000).toFixed(0)} ms to the image check (${ratio(signed.seconds, checked.seconds)}): the signature code is a chunk loaded only when the input is set, and the \`.sig\` manifest and its payload are two more requests per image.`,
    '',
  ]
}

/** The rollout watch: how soon the verdict comes once the app serves the new build. */
function renderWatch(watch: WatchResult | undefined): string[] {
  if (!watch || watch.figures.length === 0) return []
  const s = (value: number): string => `${value.toFixed(1)} s`
  const rows = watch.figures.map((f) => {
    const ours = f.bundleSeconds
    const theirs = f.baselineSeconds
    return `| +${f.switchSeconds} s | ${s(ours)} (${s(Math.max(...f.bundle))}) | ${s(theirs)} (${s(Math.max(...f.baseline))}) | ${(ours / theirs).toFixed(2)}× |`
  })
  const firstMinute = watch.figures.filter((f) => f.switchSeconds < 60)
  const worst = Math.max(...firstMinute.flatMap((f) => f.bundle))
  const polls = Math.max(...watch.figures.map((f) => f.pollsPerSecond))
  const requests = Math.max(...watch.figures.map((f) => f.requestsPerSecond))
  return [
    `The rollout watch, through the deploy bundle as the runner runs it with the default \`poll-seconds\` (${watch.pollSeconds}) and \`wait-minutes\`, against an app on loopback that starts serving the new build a set time after the webhook's answer: at five places of the 2 s between two polls of the first minute, and once after it. The version is the evidence (with the served-files label, a poll also revalidates each labelled file, a conditional request each). From then to the verdict (the step's end): medians of ${watch.rounds} rounds (the worst in brackets), against (a) a hand-written watch, curl every ${watch.pollSeconds} s until two polls in a row give the new version (the step's own watch before it polled every 2 s in its first minute), run in turn in the same rounds.`,
    '',
    "| The app serves the new build, after the webhook's answer | Deploy bundle: verdict after it | (a) curl every 15 s | vs (a) |",
    '|---|---|---|---|',
    ...rows,
    '',
    '| Target | Measured | Met |',
    '|---|---|---|',
    `| Verdict within 5 s of the app serving the new build, when it switches within the first minute | worst ${s(worst)} | ${worst <= 5 ? 'yes' : 'no'} |`,
    `| At most one poll a second on average | ${polls.toFixed(2)} polls a second at most (${requests.toFixed(2)} requests with the status route's) | ${polls <= 1 ? 'yes' : 'no'} |`,
    '',
  ]
}
