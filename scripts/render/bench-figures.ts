// Figures that documents quote come from bench/results.json, written by `npm run bench`: the
// generator renders them, so that no document states a figure the last measurement did not give.

/** The part of bench/results.json the documents quote. */
export interface BenchFigures {
  npx: {
    tarballBytes: number
    files: number
    coldSeconds: number
    warmSeconds: number
  }
}

/** gitlab/README.md, "Faster jobs": what `npx` costs a job. */
export function npxCost({ npx }: BenchFigures): string {
  const kb = Math.round(npx.tarballBytes / 1024)
  return `The package is ${kb} KB packed (${npx.files} files, no dependencies); a cold fetch takes ${npx.coldSeconds.toFixed(2)} s and a warm one, the package already in npm's cache, ${npx.warmSeconds.toFixed(2)} s.`
}
