// Figures that documents quote come from bench/results.json, written by `npm run bench`: the
// generator renders them, so that no document states a figure the last measurement did not give.
import type { BuildahResult } from '../../bench/buildah.js'
import { buildahFigure } from '../../bench/images-report.js'
import { BENCH_CORES } from '../../bench/labels.js'

/** The part of bench/results.json the documents quote. */
export interface BenchFigures {
  npx: {
    tarballBytes: number
    files: number
    coldSeconds: number
    warmSeconds: number
  }
  buildah: BuildahResult
}

/** gitlab/README.md, "Faster jobs": what `npx` costs a job. */
export function npxCost({ npx }: BenchFigures): string {
  const kb = Math.round(npx.tarballBytes / 1024)
  return `The package is ${kb} KB packed (${npx.files} files, no dependencies); a cold fetch takes ${npx.coldSeconds.toFixed(2)} s and a warm one, the package already in npm's cache, ${npx.warmSeconds.toFixed(2)} s.`
}

/** docs/build-images.md, "Builders": what Buildah costs against Docker, and where. */
export function buildahCost({ buildah }: BenchFigures): string {
  const { fixture, load, figures, ratios } = buildah
  const s = (value: number | undefined): string => `${(value ?? NaN).toFixed(1)} s`
  const cold = {
    docker: buildahFigure(figures, 'docker', 'cold'),
    buildah: buildahFigure(figures, 'buildah', 'cold'),
  }
  const changed = {
    docker: buildahFigure(figures, 'docker', 'changed'),
    buildah: buildahFigure(figures, 'buildah', 'changed'),
  }
  const files = fixture.files.toLocaleString('en-US')
  const backend = `${(fixture.bytes.backend / 1e6).toFixed(1)} MB`
  return [
    `On the real-sized project of the [performance figures](performance.md) (${files} files, ${backend} of backend), each builder on a fresh runner (Docker: an engine started empty; Buildah: \`vfs\`, rootless, an empty store), in one run of ${cold.buildah?.runs ?? 0} interleaved rounds:`,
    `cold, Buildah took ${s(cold.buildah?.seconds)} against Docker's ${s(cold.docker?.seconds)} (${ratios.cold.toFixed(2)}×; CPU ${s(cold.buildah?.cpuSeconds)} against ${s(cold.docker?.cpuSeconds)}, the engine's included);`,
    `one frontend file changed, ${s(changed.buildah?.seconds)} against ${s(changed.docker?.seconds)} (${ratios.changed.toFixed(2)}×).`,
    `The backend's build took ${s(cold.buildah?.phases['build backend'])} against ${s(cold.docker?.phases['build backend'])}, of which ${s(cold.buildah?.phases['commit backend'])} is Buildah's commit;`,
    `its push ${s(cold.buildah?.phases['push backend'])} against ${s(cold.docker?.phases['push backend'])}.`,
    `The machine's load average was ${load.min.toFixed(1)} to ${load.max.toFixed(1)} on ${BENCH_CORES} cores: read the ratios as rough.`,
  ].join(' ')
}
