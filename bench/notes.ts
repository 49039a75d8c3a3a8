import type { Candidate, Condition, ImagesFigure, ImagesResult } from './build-images.js'

/**
 * Why a target is missed, by target id (bench/images-report.ts), worded from the run's own
 * figures: shown in the README under the targets table only when that target is missed.
 */
export type MissedNote = (result: ImagesResult) => string

const at = (result: ImagesResult, candidate: Candidate, condition: Condition): ImagesFigure =>
  result.figures.find((f) => f.candidate === candidate && f.condition === condition) as ImagesFigure

export const MISSED_TARGET_NOTES: Record<string, MissedNote> = {
  'cold-vs-b': (result) => {
    const cpu = (['a', 'b', 'c'] as const).map((c) => at(result, c, 'cold').engineCpuSeconds)
    const a = at(result, 'a', 'cold')
    const b = at(result, 'b', 'cold')
    return `every candidate has the engine do the same processor-bound work: receive the whole build context, write three layers and compress them for the registry (${Math.min(...cpu).toFixed(0)} to ${Math.max(...cpu).toFixed(0)} CPU-seconds of dockerd, column Engine CPU). build-images overlaps its three builds and its pushes, which (b) runs one after another, but on 2 cores that other jobs kept busy (load average ${result.load.min.toFixed(1)} to ${result.load.max.toFixed(1)}) there is little idle time to overlap into. Its best run is ${(a.bestSeconds / b.bestSeconds).toFixed(2)}× the best of (b).`
  },
  'cold-vs-c': (result) =>
    `the engine's processor-bound work (column Engine CPU) is the same for all three candidates, and the machine was busy (load average ${result.load.min.toFixed(1)} to ${result.load.max.toFixed(1)}).`,
  'changed-vs-c': (result) =>
    `(c) sometimes finds its kept build context matching (best ${at(result, 'c', 'changed').bestSeconds.toFixed(1)} s), and the machine was busy (load average ${result.load.min.toFixed(1)} to ${result.load.max.toFixed(1)}).`,
}
