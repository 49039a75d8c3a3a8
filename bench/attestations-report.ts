// What the attestation bench measured (bench/attestations.ts) and how docs/performance.md words
// it. Pure, as report.ts: the generator renders bench/results.json with this and the types alone.
import { BENCH_CORES } from './labels.js'

/** One round: a cold run with 'signing-key', then the next commit with nothing changed. */
export interface AttestationsRound {
  /** The cold run's wall time, and its 'Image signatures' and 'Image attestations' groups. */
  coldSeconds: number
  coldSignSeconds: number
  coldAttestSeconds: number
  /** The unchanged run's wall time and its 'Image attestations' group. */
  unchangedSeconds: number
  unchangedAttestSeconds: number
  /** Images the unchanged run reused, and said it kept their attestations. */
  unchangedKept: number
  /** `.att` manifests whose digest the unchanged run changed (none added, none rewritten). */
  attChanged: number
  /** Blobs the unchanged run stored in the registry (configs, manifests and layers alike). */
  unchangedUploadedBytes: number
}

export interface AttestationsResult {
  fixture: { files: number; lockPackages: number }
  engine: { server: string }
  load: { min: number; median: number; max: number }
  rounds: AttestationsRound[]
  /** Each figure's median over the rounds. */
  medians: AttestationsRound
  /** The median over the rounds of the cold attestation phase's share of its run's wall time. */
  share: number
  /** The same for the unchanged runs. */
  unchangedShare: number
}

export function renderAttestations(result: AttestationsResult | undefined): string[] {
  if (!result || result.rounds.length === 0) return []
  const { rounds } = result
  const s = (value: number): string => `${value.toFixed(1)} s`
  const every = (pick: (round: AttestationsRound) => number): string =>
    rounds.map((round) => pick(round).toFixed(1)).join(', ')
  const med = (pick: (round: AttestationsRound) => number): number => pick(result.medians)
  const { share } = result
  const worst = Math.max(...rounds.map((round) => round.coldAttestSeconds / round.coldSeconds))
  const changed = Math.max(...rounds.map((round) => round.attChanged))
  const kept = Math.min(...rounds.map((round) => round.unchangedKept))
  const stored = Math.max(...rounds.map((round) => round.unchangedUploadedBytes))
  const pct = (value: number): string => `${(value * 100).toFixed(1)}%`
  return [
    `Attestations (\`signing-key\` set, \`attestations\` at its default: a SLSA provenance and a CycloneDX SBOM per image) on the real-sized project above, with a lock file of ${result.fixture.lockPackages.toLocaleString('en-US')} packages, built by (a) \`build-images\` on a fresh engine (${result.engine.server}), its bases pulled from a registry on loopback and its images pushed to another, then run again on the next commit with nothing changed. The phase is the log's **Image attestations** group, from its first line to its last as the bench read them, against the whole step's wall time in the same run. Medians of ${rounds.length} rounds (every run in brackets); load average ${result.load.min.toFixed(1)} to ${result.load.max.toFixed(1)} (median ${result.load.median.toFixed(1)}) on ${BENCH_CORES} cores.`,
    '',
    '| With `signing-key`, real-sized | Step (every run) | Image signatures | Image attestations | Attestations vs the step |',
    '|---|---|---|---|---|',
    `| Cold | ${s(med((r) => r.coldSeconds))} (${every((r) => r.coldSeconds)}) | ${s(med((r) => r.coldSignSeconds))} | ${s(med((r) => r.coldAttestSeconds))} (${every((r) => r.coldAttestSeconds)}) | ${pct(share)} |`,
    `| Nothing changed | ${s(med((r) => r.unchangedSeconds))} (${every((r) => r.unchangedSeconds)}) | | ${s(med((r) => r.unchangedAttestSeconds))} (${every((r) => r.unchangedAttestSeconds)}) | ${pct(result.unchangedShare)} |`,
    '',
    "With nothing changed, each image is reused and keeps the attestations of the run that built it: the reuse check (the log's **Unchanged images** group, not counted above) reads them back under the key, and the phase only writes their SBOM files and attaches nothing.",
    '',
    '| Target | Measured | Met |',
    '|---|---|---|',
    `| Cold: the attestation phase at most 10% of the build | ${pct(share)} (worst round ${pct(worst)}) | ${share <= 0.1 ? 'yes' : 'no'} |`,
    `| Nothing changed: no attestation added or rewritten | ${changed} \`.att\` manifest(s) changed, ${(stored / 1024).toFixed(0)} KB stored in the registry; ${kept} of 3 images said they keep theirs | ${changed === 0 && kept === 3 ? 'yes' : 'no'} |`,
    '',
  ]
}
