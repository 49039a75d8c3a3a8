// The GitLab job's own cost: each job runs `npx --yes olympe-deploy-actions@<version>`. Cold is
// a job with an empty npm cache (the package is fetched from the registry and unpacked), warm a
// job whose npm cache already holds it (GitLab `cache:`, or a runner that keeps it).
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { ROOT } from '../test/helpers/run-action.js'
import { run } from '../test/helpers/run-process.js'
import { publishProject, startVerdaccio } from '../test/helpers/verdaccio.js'
import { measure, median, type Sample } from './measure.js'

export interface NpxResult {
  /** `npm pack` of this project: the tarball the job downloads. */
  tarballBytes: number
  unpackedBytes: number
  files: number
  runs: number
  coldSeconds: number
  warmSeconds: number
  coldMaxRssMb: number
  warmMaxRssMb: number
}

export async function benchNpx(runs: number, tmp: string): Promise<NpxResult> {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', ROOT], {
    cwd: tmp,
  })
  const [pack] = JSON.parse(stdout) as Array<{
    size: number
    unpackedSize: number
    entryCount: number
  }>
  const registry = await startVerdaccio()
  try {
    const { name, version } = await publishProject(registry)
    // Not from this repository: npx would take its package.json for the package asked for.
    const job = (cache: string): Promise<Sample> =>
      measure(
        'npx',
        ['--yes', `${name}@${version}`, '--help'],
        {
          PATH: process.env.PATH ?? '',
          HOME: tmp,
          npm_config_registry: registry.url,
          npm_config_cache: cache,
          npm_config_update_notifier: 'false',
          npm_config_fund: 'false',
          npm_config_audit: 'false',
        },
        tmp,
      )
    const cold: Sample[] = []
    const warm: Sample[] = []
    for (let round = 0; round < runs; round++) {
      const cache = await mkdtemp(join(tmp, 'npm-cache-'))
      try {
        for (const [list, sample] of [
          [cold, await job(cache)],
          [warm, await job(cache)],
        ] as const) {
          if (sample.code !== 0) throw new Error(`npx failed: ${sample.stderr ?? ''}`)
          list.push(sample)
        }
      } finally {
        await rm(cache, { recursive: true, force: true })
      }
    }
    return {
      tarballBytes: pack?.size ?? 0,
      unpackedBytes: pack?.unpackedSize ?? 0,
      files: pack?.entryCount ?? 0,
      runs,
      coldSeconds: median(cold.map((s) => s.seconds)),
      warmSeconds: median(warm.map((s) => s.seconds)),
      coldMaxRssMb: median(cold.map((s) => s.maxRssKb)) / 1024,
      warmMaxRssMb: median(warm.map((s) => s.maxRssKb)) / 1024,
    }
  } finally {
    await registry.stop()
  }
}
