// The candidates, builders, conditions and phases of the image benches, as the figures name them
// and the tables word them. Apart from the benches (which import test helpers), so that the
// generator can render bench/results.json (bench/report.ts) with nothing but this and the types.

/** The cores of the machine the benches run on, this project's CI machine, as the figures say. */
export const BENCH_CORES = 2

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

/** Several backends on one runner (bench/backends.ts). */
export const BACKENDS_CANDIDATES = {
  a: 'build-images, one step with `backends`',
  'a+cache': 'build-images with the file-hash cache (OLYMPE_FILE_HASH_CACHE)',
  b: "`docker build` then `docker push`, image after image (the seed's CI)",
  c: '`docker buildx bake --push` of every target',
} as const
export type BackendsCandidate = keyof typeof BACKENDS_CANDIDATES
export const BACKENDS_CONDITIONS = {
  cold: 'Fresh engine, cold (empty registry)',
  unchanged: 'Fresh engine, nothing changed',
  'one-backend': 'Fresh engine, one backend file changed',
  'warm-unchanged': 'Warm engine, nothing changed',
  'warm-frontend': 'Warm engine, one frontend file changed',
} as const
export type BackendsCondition = keyof typeof BACKENDS_CONDITIONS

/** Builders on fresh runners (bench/buildah.ts). */
export const BUILDERS = {
  docker: 'Docker (BuildKit, a fresh engine)',
  buildah: 'Buildah (vfs, chroot, rootless, an empty store)',
} as const
export type BenchBuilder = keyof typeof BUILDERS
export const BUILDAH_CONDITIONS = {
  cold: 'Cold (empty registry and builder)',
  changed: 'One frontend file changed',
} as const
export type BuildahCondition = keyof typeof BUILDAH_CONDITIONS

/** Where the time goes, from the step's own log: each phase's seconds. */
export const PHASES = {
  lookup: 'Look-up of unchanged images (hashing the sources, asking the registry)',
  'build frontend': 'Build of the frontend (pull of its base, COPY, commit)',
  'build backend': 'Build of the backend (pull of its base, COPY, commit)',
  'commit backend':
    "…of which, with Buildah, the backend's commit: its one layer written and its working copy removed (from COMMIT in its log to its exit)",
  'build codeasdata': 'Build of code as data',
  'check backend': "Size check of the backend (the images' history, the sources' size)",
  'push backend': 'Push of the backend, both tags',
  'push frontend': 'Push of the frontend, both tags',
} as const
export type Phase = keyof typeof PHASES
