import type { NpxResult } from './npx.js'
import type { ImagesFigure, ImagesResult } from './build-images.js'
import { BENCH_CORES, type Candidate, type Condition } from './labels.js'
import type { FreshResult } from './fresh.js'

/**
 * Why a target is missed, by target id (bench/images-report.ts), worded from the run's own
 * figures: shown in docs/performance.md under the targets table only when that target is missed.
 */
export type MissedNote = (result: ImagesResult) => string

const at = (result: ImagesResult, candidate: Candidate, condition: Condition): ImagesFigure =>
  result.figures.find((f) => f.candidate === candidate && f.condition === condition) as ImagesFigure

const runs = (figure: ImagesFigure): string => figure.allSeconds.map((s) => s.toFixed(1)).join(', ')
const load = (result: ImagesResult): string =>
  `load average ${result.load.min.toFixed(1)} to ${result.load.max.toFixed(1)} on ${BENCH_CORES} cores`

/** Cold, the work is the engine's and the same for everyone: the machine's load decides. */
function coldNote(other: 'b' | 'c'): MissedNote {
  return (result) => {
    const a = at(result, 'a', 'cold')
    const o = at(result, other, 'cold')
    return `cold, every candidate has the engine do the same processor-bound work: receive the whole build context, write three layers and compress them for the registry (Engine CPU: ${a.engineCpuSeconds.toFixed(1)} s for (a), ${o.engineCpuSeconds.toFixed(1)} s for (${other})). build-images overlaps its builds and its pushes, but with the ${load(result)} there was little idle time to overlap into, and the runs spread widely: (a) ${runs(a)} s; (${other}) ${runs(o)} s. Best against best: ${(a.bestSeconds / o.bestSeconds).toFixed(2)}×.`
  }
}

export const MISSED_TARGET_NOTES: Record<string, MissedNote> = {
  'cold-vs-b': coldNote('b'),
  'cold-vs-c': coldNote('c'),
  'changed-vs-c': (result) => {
    const a = at(result, 'a', 'changed')
    const c = at(result, 'c', 'changed')
    return `whether (c) is quick depends on BuildKit handing each bake target the kept build context it used the run before, which it does by chance (runs: ${runs(c)} s). When it does, (a) and (c) do the same work, one new ${(a.uploadedLayerBytes / 1e6).toFixed(1)} MB frontend layer, and the ${load(result)} decides (a: ${runs(a)} s). Best against best: ${(a.bestSeconds / c.bestSeconds).toFixed(2)}×.`
  },
}

/** Why a GitLab-job target was missed, by target id; the figures come from the run. */
export const NPX_MISSED_NOTES: Record<string, (npx: NpxResult) => string> = {
  tarball: (npx) =>
    `the package holds one bundle for the three actions (${npx.files} files, ${Math.round(npx.unpackedBytes / 1024)} KB unpacked), its lazily loaded chunks but the Actions cache client's, the GitLab templates and the README. The cost for a job: a cold \`npx\` took ${npx.coldSeconds.toFixed(2)} s, ${(npx.coldSeconds / npx.warmSeconds).toFixed(2)}× a warm one.`,
}

/** Why a fresh-engine target was missed, by target id; worded from the run's own figures. */
export const FRESH_MISSED_NOTES: Record<string, (result: FreshResult) => string> = {}
