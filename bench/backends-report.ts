// The several-backends figures of docs/performance.md, rendered from bench/results.json's
// `backends` (bench/backends.ts): the table, the targets (figures, not gates) and the machine's
// facts. Pure: bench/report.ts renders with it.
import type { BackendsFigure, BackendsResult } from './backends.js'
import {
  BACKENDS_CANDIDATES,
  BACKENDS_CONDITIONS,
  BENCH_CORES,
  type BackendsCandidate,
  type BackendsCondition,
} from './labels.js'

const s = (seconds: number): string => `${seconds.toFixed(1)} s`
const mb = (bytes: number): string =>
  bytes < 1e6 ? `${(bytes / 1e3).toFixed(0)} KB` : `${(bytes / 1e6).toFixed(1)} MB`

/** What each condition's times are compared with, in the table. */
const BASELINES: Record<BackendsCondition, [BackendsCandidate, BackendsCondition]> = {
  cold: ['b', 'cold'],
  unchanged: ['a', 'cold'],
  'one-backend': ['a', 'cold'],
  'warm-unchanged': ['a', 'warm-unchanged'],
  'warm-frontend': ['c', 'warm-frontend'],
}

export interface BackendsTarget {
  target: string
  measured: string
  met: boolean
}

function at(
  result: BackendsResult,
  candidate: BackendsCandidate,
  condition: BackendsCondition,
): BackendsFigure | undefined {
  return result.figures.find((f) => f.candidate === candidate && f.condition === condition)
}

/** The targets of issue "several backends", each checked against the run's medians. */
export function backendsTargets(result: BackendsResult): BackendsTarget[] {
  const images = result.backends + 1
  const targets: BackendsTarget[] = []
  const ratio = (
    target: string,
    a: BackendsFigure | undefined,
    base: BackendsFigure | undefined,
    limit: number,
  ): void => {
    if (!a || !base) return
    const value = a.seconds / base.seconds
    targets.push({ target, measured: `${value.toFixed(2)}×`, met: value <= limit })
  }
  const cold = at(result, 'a', 'cold')
  ratio('Cold: (a) at most 0.5× (b)', cold, at(result, 'b', 'cold'), 0.5)
  ratio('Cold: (a) at most 1.0× (c)', cold, at(result, 'c', 'cold'), 1)
  const unchanged = at(result, 'a', 'unchanged')
  if (unchanged && cold) {
    const value = unchanged.seconds / cold.seconds
    targets.push({
      target: 'Nothing changed, fresh engine: (a) at most 0.15× its cold run, no layer uploaded',
      measured: `${value.toFixed(2)}×, ${unchanged.uploadedLayers} layers (${mb(unchanged.uploadedBytes)} of manifests and configs)`,
      met: value <= 0.15 && unchanged.uploadedLayers === 0,
    })
  }
  const one = at(result, 'a', 'one-backend')
  if (one?.built !== undefined)
    targets.push({
      target: 'One backend changed: (a) rebuilds that one only',
      measured: `${one.built} of ${images} images built, ${one.uploadedLayers} layer uploaded (${mb(one.uploadedBytes)} in all)`,
      met: one.built === 1 && one.uploadedLayers === 1,
    })
  ratio(
    'Warm engine, one frontend file changed: (a) with the file-hash cache at most 1.0× (c)',
    at(result, 'a+cache', 'warm-frontend'),
    at(result, 'c', 'warm-frontend'),
    1,
  )
  return targets
}

export function renderBackends(result: BackendsResult | undefined): string[] {
  if (!result || result.figures.length === 0) return []
  const { fixture, engine, machine, load } = result
  const rows = result.figures.map((f) => {
    const runs = f.allSeconds.map((value) => value.toFixed(1)).join(', ')
    const [candidate, condition] = BASELINES[f.condition]
    const base = at(result, candidate, condition)
    const against =
      base && base !== f
        ? `${(f.seconds / base.seconds).toFixed(2)}× (${candidate}) ${condition}`
        : ''
    return `| ${BACKENDS_CONDITIONS[f.condition]} | (${f.candidate}) ${BACKENDS_CANDIDATES[f.candidate]} | ${s(f.seconds)} | ${against} | ${runs} | ${f.built === undefined ? '' : `${f.built} of ${result.backends + 1}`} | ${f.uploadedLayers} (${mb(f.uploadedBytes)}) | ${f.engineCpuSeconds.toFixed(1)} s | ${f.clientCpuSeconds === undefined ? '' : `${f.clientCpuSeconds.toFixed(1)} s`} |`
  })
  const targets = backendsTargets(result)
  const withCache = at(result, 'a+cache', 'warm-unchanged')
  const without = at(result, 'a', 'warm-unchanged')
  return [
    `Several backends on one runner: 1 frontend (the real-sized one above) and ${result.backends} small backends of their own code bases (${fixture.files.toLocaleString('en-US')} files in all; frontend ${mb(fixture.bytes.frontend)}, backends ${mb(fixture.bytes.backends)} together), each backend built from \`docker/backend.Dockerfile\` with its own \`SOURCES_PATH\`, the base images pulled from a registry of their own (as a runner pulls them from Docker Hub), the images pushed to another with a login. (a) is one build-images step with \`backends\` and \`reuse-unchanged\` (its proof the CI's record, in a loopback Actions cache), (b) the seed's CI, (c) a bake file a user would write for the same images. "Fresh engine": a Docker engine started empty for the run, as GitHub-hosted and autoscaled GitLab runners give; "warm engine": the engine of (a)'s, or (c)'s, cold run, as a persistent runner keeps it. Medians of ${result.rounds} round${result.rounds === 1 ? '' : 's'}, the candidates rotated each round; each time is also given against its condition's baseline (cold: the seed's CI; fresh engine: (a)'s cold run; warm, nothing changed: (a) without the cache; warm, one file changed: bake).`,
    '',
    `The machine: ${machine.cpus} × ${machine.model}, Docker ${engine.server}, ${engine.buildx}; load average (1 minute) ${load.min.toFixed(1)} to ${load.max.toFixed(1)} before the runs (median ${load.median.toFixed(1)}) on its ${BENCH_CORES} cores, which other work shared: these figures are noisy, the times more than the ratios, and each run is listed.`,
    '',
    '| Condition | Candidate | Time | Against | Runs | Images built | Layers uploaded | Engine CPU | Client CPU |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '| Target (figures, not gates) | Measured | Met |',
    '|---|---|---|',
    ...targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'yes' : 'no'} |`),
    '',
    ...coldNote(result, targets),
    ...(withCache && without
      ? [
          `On the warm engine with nothing changed, every image is reused and the run is mostly the fingerprint: ${s(withCache.seconds)} with the file-hash cache against ${s(without.seconds)} without it (${(withCache.seconds / without.seconds).toFixed(2)}×); what is left with it is the walk of the sources' folders (one \`lstat\` per entry), the registry's answers and the tagging.`,
          '',
        ]
      : []),
  ]
}

const cpu = (f: BackendsFigure, key: 'engineCpuSeconds' | 'clientCpuSeconds'): string => {
  const seconds = f[key]
  return seconds === undefined ? 'not measured' : `${seconds.toFixed(1)} s`
}

/** Why the cold targets were missed, when they were: worded from the run's own figures. */
function coldNote(result: BackendsResult, targets: readonly BackendsTarget[]): string[] {
  const a = at(result, 'a', 'cold')
  const b = at(result, 'b', 'cold')
  const c = at(result, 'c', 'cold')
  const missed = targets.some((t) => t.target.startsWith('Cold') && !t.met)
  if (!missed || !a || !b || !c) return []
  const best = (f: BackendsFigure): number => Math.min(...f.allSeconds)
  return [
    `Cold, the work is processor-bound on the machine's ${result.machine.cpus} shared cores: the engine's CPU (${cpu(a, 'engineCpuSeconds')} for (a), ${cpu(b, 'engineCpuSeconds')} for (b), ${cpu(c, 'engineCpuSeconds')} for (c)) and that of the processes outside it (${cpu(a, 'clientCpuSeconds')} for (a), ${cpu(b, 'clientCpuSeconds')} for (b), ${cpu(c, 'clientCpuSeconds')} for (c)). build-images runs, for each of its ${result.backends + 1} images, a \`docker buildx build\` of its own that sends that image's context, a \`docker image history\` (for the size check, beside one of each base per run), one \`docker push\` (its other tags are put through the registry API) and a \`docker image inspect\` (its size): some ${(result.backends + 1) * 4} docker commands, where bake sends the context once, solves every target in one BuildKit build and pushes them side by side from the engine. Best against best: ${(best(a) / best(b)).toFixed(2)}× (b), ${(best(a) / best(c)).toFixed(2)}× (c).`,
    '',
  ]
}
