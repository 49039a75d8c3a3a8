// The cost of the attestations: build-images with 'signing-key' (its default 'attestations', a
// SLSA provenance and a CycloneDX SBOM per image) on the real-sized project (bench/fixture.ts,
// with a lock file of its packages), cold on a fresh engine, then on the next commit with nothing
// changed. The phase is timed inside the very run it belongs to, from the step's own log (its
// 'Image attestations' group), so that it is set against the cold build it follows: cold builds
// here vary more from run to run than the phase costs.
import { createHash, generateKeyPairSync } from 'node:crypto'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { startActionsCacheServer } from '../test/helpers/actions-cache-server.js'
import { startRegistry } from '../test/helpers/docker-env.js'
import type { Registry } from '../test/helpers/docker-registry.js'
import type { AttestationsResult, AttestationsRound } from './attestations-report.js'
import { blobs, uploaded } from './build-images.js'
import { startPrivateEngine } from './engine.js'
import { generateFixture } from './fixture.js'
import { pushBases } from './fresh.js'
import {
  actionEnv,
  basesFrom,
  KINDS,
  NODE,
  PASSWORD,
  REPOSITORY,
  ROOT,
  USER,
} from './images-common.js'
import { measureTree, median } from './measure.js'

/** The facts of a GitHub run a provenance names, besides those actionEnv sets. */
const RUN_ENV = {
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_WORKFLOW_REF: `${REPOSITORY}/.github/workflows/build.yml@refs/heads/main`,
  GITHUB_RUN_ATTEMPT: '1',
}

export async function benchAttestations(rounds: number, tmp: string): Promise<AttestationsResult> {
  const project = join(tmp, 'project')
  console.log('  generating the real-sized project…')
  const fixture = await generateFixture(project)
  const lockPackages = await writeLockFile(project)
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'sec1', format: 'pem' })
    .toString()
  const bases = await startRegistry({ user: USER, password: PASSWORD })
  try {
    const engineFacts = await pushBases(bases, join(tmp, 'setup-engine'))
    await basesFrom(project, bases.host)
    const dockerConfig = join(tmp, 'docker-config')
    const auth = Buffer.from(`${USER}:${PASSWORD}`).toString('base64')
    await writeFile(
      join(tmp, 'event.json'),
      JSON.stringify({ repository: { default_branch: 'main' } }),
    )
    const loads: number[] = []
    const measured: AttestationsRound[] = []
    for (let round = 0; round < rounds; round++) {
      await mkdir(dockerConfig, { recursive: true })
      await writeFile(
        join(dockerConfig, 'config.json'),
        JSON.stringify({ auths: { [bases.host]: { auth } } }),
      )
      const registry = await startRegistry({ user: USER, password: PASSWORD })
      const cache = await startActionsCacheServer()
      const engine = await startPrivateEngine(join(tmp, `engine-${round}`))
      try {
        const step = async (
          label: string,
        ): Promise<{ seconds: number; lines: Array<[number, string]> }> => {
          const sha = createHash('sha1').update(`attest ${round} ${label}`).digest('hex')
          const env = {
            ...actionEnv(
              {
                PATH: process.env.PATH ?? '',
                HOME: process.env.HOME ?? '/root',
                DOCKER_HOST: engine.host,
                DOCKER_CONFIG: dockerConfig,
              },
              registry,
              { tmp, project, sha, filePrefix: `attest-${label}-` },
              { 'INPUT_REUSE-UNCHANGED': 'true', 'INPUT_SIGNING-KEY': signingKey },
            ),
            ...cache.env,
            ...RUN_ENV,
            GITHUB_RUN_ID: String(round * 2 + (label === 'cold' ? 1 : 2)),
            RUNNER_TEMP: tmp,
          }
          loads.push(loadavg()[0] ?? 0)
          const lines: Array<[number, string]> = []
          const sample = await measureTree(
            NODE,
            [join(ROOT, 'dist/build-images/index.js')],
            env,
            project,
            () => engine.pids(),
            { onLine: (at, line) => lines.push([at, line]) },
          )
          if (sample.code !== 0)
            throw new Error(
              `build-images (${label}) failed in round ${round + 1}: ${lines
                .slice(-30)
                .map(([, line]) => line)
                .join('\n')}\n${sample.stderr ?? ''}`,
            )
          return { seconds: sample.seconds, lines }
        }
        const cold = await step('cold')
        const attested = attestedDigests(cold.lines)
        const before = await attestationManifests(registry, attested)
        const stored = await blobs(registry)
        const unchanged = await step('unchanged')
        const after = await attestationManifests(registry, attested)
        const figure: AttestationsRound = {
          coldSeconds: cold.seconds,
          coldSignSeconds: group(cold.lines, 'Image signatures'),
          coldAttestSeconds: group(cold.lines, 'Image attestations'),
          unchangedSeconds: unchanged.seconds,
          unchangedAttestSeconds: group(unchanged.lines, 'Image attestations'),
          unchangedKept: unchanged.lines.filter(([, line]) =>
            / unchanged, it keeps the attestations of the run that built it /.test(line),
          ).length,
          attChanged: Object.keys(before).filter((kind) => before[kind] !== after[kind]).length,
          unchangedUploadedBytes: uploaded(stored, await blobs(registry)).bytes,
        }
        if (Object.keys(attested).length !== KINDS.length)
          throw new Error(`the cold run attested ${Object.keys(attested).join(', ') || 'nothing'}`)
        measured.push(figure)
        console.log(
          `  round ${round + 1}: cold ${figure.coldSeconds.toFixed(1)} s, attestations ${figure.coldAttestSeconds.toFixed(2)} s; unchanged ${figure.unchangedSeconds.toFixed(1)} s, attestations ${figure.unchangedAttestSeconds.toFixed(2)} s, ${figure.attChanged} .att changed, load ${loads.at(-1)?.toFixed(1) ?? ''}`,
        )
      } finally {
        await engine.stop()
        await cache.stop()
        await registry.stop()
      }
    }
    const med = (pick: (round: AttestationsRound) => number): number => median(measured.map(pick))
    const keys = Object.keys(measured[0] ?? {}) as Array<keyof AttestationsRound>
    return {
      fixture: { files: fixture.files, lockPackages },
      engine: { server: engineFacts.server },
      load: { min: Math.min(...loads), median: median(loads), max: Math.max(...loads) },
      rounds: measured,
      medians: Object.fromEntries(
        keys.map((key) => [key, med((r) => r[key])]),
      ) as unknown as AttestationsRound,
      share: med((r) => r.coldAttestSeconds / r.coldSeconds),
      unchangedShare: med((r) => r.unchangedAttestSeconds / r.unchangedSeconds),
    }
  } finally {
    await bases.stop()
  }
}

/**
 * A package-lock.json (v3) of the fixture's backend packages (node_modules/pkg-N), with the
 * Olympe runtime and Draw, and a development-only package the SBOM leaves out: how many it lists.
 */
async function writeLockFile(project: string): Promise<number> {
  const names = (await readdir(join(project, 'dist/node/node_modules'))).sort()
  const integrity = (name: string): string =>
    `sha512-${createHash('sha512').update(name).digest('base64')}`
  const packages: Record<string, Record<string, unknown>> = {
    '': { name: 'bench-project', version: '1.0.0' },
    'node_modules/@olympeio/runtime-node': { version: '9.8.1', integrity: integrity('runtime') },
    'node_modules/@olympeio/draw': { version: '2.11.3', integrity: integrity('draw') },
    'node_modules/webpack': { version: '5.99.0', integrity: integrity('webpack'), dev: true },
  }
  for (const [i, name] of names.entries())
    packages[`node_modules/${name}`] = { version: `1.${i % 20}.0`, integrity: integrity(name) }
  await writeFile(
    join(project, 'package-lock.json'),
    `${JSON.stringify({ name: 'bench-project', version: '1.0.0', lockfileVersion: 3, packages }, null, 2)}\n`,
  )
  return Object.keys(packages).length - 2
}

/** Seconds from a group's first line (`::group::<title>`) to its `::endgroup::`, as they came. */
function group(lines: ReadonlyArray<readonly [number, string]>, title: string): number {
  const start = lines.findIndex(([, line]) => line === `::group::${title}`)
  const end = lines.findIndex(([, line], index) => index > start && line === '::endgroup::')
  if (start < 0 || end < 0) throw new Error(`no '${title}' group in the step's log`)
  return Number(((lines[end]?.[0] ?? 0) - (lines[start]?.[0] ?? 0)).toFixed(3))
}

/** Each image's digest, from the phase's `<kind>: attested sha256:… (…)` lines. */
function attestedDigests(lines: ReadonlyArray<readonly [number, string]>): Record<string, string> {
  const found: Record<string, string> = {}
  for (const [, line] of lines) {
    const match = /^(\w+): attested (sha256:[0-9a-f]{64}) /.exec(line)
    if (match?.[1] && match[2]) found[match[1]] = match[2]
  }
  return found
}

/** The digest of each image's `.att` manifest, as the registry serves it. */
async function attestationManifests(
  registry: Registry,
  digests: Record<string, string>,
): Promise<Record<string, string>> {
  const headers = {
    Authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
    Accept: 'application/vnd.oci.image.manifest.v1+json',
  }
  const found: Record<string, string> = {}
  for (const [kind, digest] of Object.entries(digests)) {
    const tag = `${digest.replace(':', '-')}.att`
    const response = await fetch(`${registry.url}/v2/${REPOSITORY}/${kind}/manifests/${tag}`, {
      method: 'HEAD',
      headers,
    })
    found[kind] = `${response.status} ${response.headers.get('docker-content-digest') ?? ''}`
  }
  return found
}
