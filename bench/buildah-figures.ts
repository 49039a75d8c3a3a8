// What the Buildah bench (buildah.ts) measures, as bench/results.json keeps it: its names and
// types only, so that the documents' renderers read them without loading the bench.
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

export interface BuildahFigure {
  builder: BenchBuilder
  condition: BuildahCondition
  runs: number
  seconds: number
  allSeconds: number[]
  cpuSeconds: number
  phases: Partial<Record<Phase, number>>
}

export interface BuildahResult {
  fixture: { files: number; bytes: Record<'frontend' | 'backend' | 'codeasdata', number> }
  versions: { docker: string; buildah: string }
  load: { min: number; median: number; max: number }
  figures: BuildahFigure[]
  /** Buildah's median over Docker's, per condition. */
  ratios: Record<BuildahCondition, number>
}
