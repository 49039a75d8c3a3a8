// The candidates and conditions of the image benches, as the figures name them and the tables
// word them. Apart from the benches (which import test helpers), so that the generator can render
// bench/results.json (bench/report.ts) with nothing but this and the types.

/** Warm engine (bench/build-images.ts). */
export const CANDIDATES = {
  a: 'build-images',
  b: 'plain docker commands (build ×3, push ×3)',
  c: 'docker buildx bake, then docker push ×3',
} as const
export type Candidate = keyof typeof CANDIDATES
export const CONDITIONS = {
  cold: 'Cold (empty builder cache and registry)',
  unchanged: 'Warm, nothing changed',
  changed: 'Warm, one frontend file changed',
} as const
export type Condition = keyof typeof CONDITIONS

/** A fresh engine per run (bench/fresh.ts). */
export const FRESH_CANDIDATES = {
  a: 'build-images',
  c: 'docker buildx bake with a registry cache (inline, from the previous images), then docker push',
} as const
export type FreshCandidate = keyof typeof FRESH_CANDIDATES
export const FRESH_CONDITIONS = {
  cold: 'Cold (nothing in the registry)',
  changed: 'One frontend file changed',
  unchanged: 'Nothing changed',
} as const
export type FreshCondition = keyof typeof FRESH_CONDITIONS
