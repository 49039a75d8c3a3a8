// build-images with Buildah against build-images with Docker, each as on a fresh runner: Docker
// on an engine started empty for the run and thrown away after it, Buildah (vfs storage, chroot
// isolation, as the unprivileged user of .ci/setup-buildah.sh) with an empty store of its own.
// The real-sized project (fixture.ts) builds FROM Docker Hub's names, which an anonymous loopback
// registry serves (`registry-mirrors`, as on an on-premise runner); the images go to a registry
// of their own each round. Cold (nothing in the registry), then one frontend file changed (the
// other two images reused). Interleaved rounds, ratios Buildah over Docker within each condition.
// Each run's output is timed line by line, to say where the time goes.
import { chmod, chown, mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import {
  BASE_IMAGES,
  ensureBaseImages,
  pushImage,
  startRegistry,
} from '../test/helpers/docker-env.js'
import type { Registry } from '../test/helpers/docker-registry.js'
import { buildahStore, rootlessUser, type RootlessUser } from '../test/helpers/rootless.js'
import { withCleanup } from '../test/helpers/cleanup.js'
import { nodeAndScript } from '../test/helpers/run-action.js'
import { run } from '../test/helpers/run-process.js'
import { startPrivateEngine } from './engine.js'
import { changeOneFile, freshCheckout, generateFixture, restoreChangedFile } from './fixture.js'
import { actionEnv, KINDS, PASSWORD, ROOT, USER } from './images-common.js'
import { buildahFigure } from './images-report.js'
import {
  BUILDAH_CONDITIONS,
  BUILDERS,
  PHASES,
  type BenchBuilder,
  type BuildahCondition,
  type Phase,
} from './labels.js'
import { measureTree, median } from './measure.js'

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

interface Sample {
  seconds: number
  cpuSeconds: number
  phases: Partial<Record<Phase, number>>
}

export async function benchBuildah(rounds: number, tmp: string): Promise<BuildahResult> {
  return withCleanup(async (cleanup) => benchAs(await rootlessUser(cleanup), rounds, tmp))
}

async function benchAs(user: RootlessUser, rounds: number, tmp: string): Promise<BuildahResult> {
  // The user reaches the project, its store and its step files through the bench's folders,
  // up to the system's temporary folder, which is left as it is.
  await mkdir(tmp, { recursive: true })
  const top = tmpdir()
  for (let dir = tmp; dir !== '/' && dir !== top; dir = dirname(dir)) await chmod(dir, 0o755)
  const project = join(tmp, 'project')
  await mkdir(project, { recursive: true })
  console.log('  generating the real-sized project…')
  const fixture = await generateFixture(project)
  await giveTree(user, project)
  const bases = await startRegistry({ user: 'unused', password: 'unused', anonymous: true })
  try {
    await ensureBaseImages()
    for (const base of Object.values(BASE_IMAGES))
      await pushImage(base, `${bases.host}/dockerhub/${base}`)
    const mirrors = `docker.io=${bases.host}/dockerhub`
    const versions = {
      docker: (await run('docker', ['version', '--format', '{{.Server.Version}}'])).stdout.trim(),
      buildah: /\d+\.\d+\.\d+/.exec((await run('buildah', ['--version'])).stdout)?.[0] ?? '',
    }
    await writeFile(
      join(tmp, 'event.json'),
      JSON.stringify({ repository: { default_branch: 'main' } }),
    )
    const samples = new Map<string, Sample[]>()
    const loads: number[] = []
    let runs = 0
    for (let round = 0; round < rounds; round++) {
      const order: BenchBuilder[] = round % 2 === 0 ? ['docker', 'buildah'] : ['buildah', 'docker']
      for (const builder of order) {
        await restoreChangedFile(fixture)
        const registry = await startRegistry({ user: USER, password: PASSWORD })
        try {
          for (const condition of Object.keys(BUILDAH_CONDITIONS) as BuildahCondition[]) {
            runs++
            if (condition === 'changed') await changeOneFile(fixture, runs)
            await freshCheckout(project, runs)
            loads.push(loadavg()[0] ?? 0)
            const sample = await runOnce(builder, { tmp, project, registry, mirrors, user, runs })
            const key = `${builder} ${condition}`
            samples.set(key, [...(samples.get(key) ?? []), sample])
            console.log(
              `  round ${round + 1}, ${builder} ${condition}: ${sample.seconds.toFixed(1)} s (${Object.entries(
                sample.phases,
              )
                .map(([phase, s]) => `${phase} ${s.toFixed(1)}`)
                .join(', ')}), load ${loads.at(-1)?.toFixed(1) ?? ''}`,
            )
          }
        } finally {
          await registry.stop()
        }
      }
    }
    await restoreChangedFile(fixture)
    const figures: BuildahFigure[] = []
    for (const condition of Object.keys(BUILDAH_CONDITIONS) as BuildahCondition[])
      for (const builder of Object.keys(BUILDERS) as BenchBuilder[]) {
        const list = samples.get(`${builder} ${condition}`) ?? []
        const phases: Partial<Record<Phase, number>> = {}
        for (const phase of Object.keys(PHASES) as Phase[]) {
          const values = list.flatMap((s) => s.phases[phase] ?? [])
          if (values.length > 0) phases[phase] = Number(median(values).toFixed(2))
        }
        figures.push({
          builder,
          condition,
          runs: list.length,
          seconds: median(list.map((s) => s.seconds)),
          allSeconds: list.map((s) => Number(s.seconds.toFixed(2))),
          cpuSeconds: median(list.map((s) => s.cpuSeconds)),
          phases,
        })
      }
    const secondsOf = (builder: BenchBuilder, condition: BuildahCondition): number =>
      buildahFigure(figures, builder, condition)?.seconds ?? NaN
    const ratio = (condition: BuildahCondition): number =>
      Number((secondsOf('buildah', condition) / secondsOf('docker', condition)).toFixed(2))
    return {
      fixture: { files: fixture.files, bytes: fixture.bytes },
      versions,
      load: { min: Math.min(...loads), median: median(loads), max: Math.max(...loads) },
      figures,
      ratios: { cold: ratio('cold'), changed: ratio('changed') },
    }
  } finally {
    await bases.stop()
  }
}

interface RunContext {
  tmp: string
  project: string
  registry: Registry
  mirrors: string
  user: RootlessUser
  runs: number
}

/** One run of the bundle as GitHub's runner runs it, on a builder fresh for it. */
async function runOnce(builder: BenchBuilder, context: RunContext): Promise<Sample> {
  const { tmp, project, registry, mirrors, user, runs } = context
  const scratch = join(tmp, `run-${runs}`)
  await mkdir(scratch, { recursive: true })
  if (builder === 'buildah') await chown(scratch, user.uid, user.gid)
  const sha = `${String(runs).padStart(4, '0')}${'e'.repeat(36)}`
  const inputs = {
    INPUT_BUILDER: builder,
    'INPUT_REGISTRY-MIRRORS': mirrors,
    'INPUT_REUSE-UNCHANGED': 'true',
  }
  const step = { tmp: scratch, project, sha, filePrefix: '' }
  const engine =
    builder === 'docker' ? await startPrivateEngine(join(tmp, `engine-${runs}`)) : undefined
  try {
    const common: Record<string, string> =
      builder === 'docker'
        ? {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '/root',
            DOCKER_HOST: engine?.host ?? '',
            DOCKER_CONFIG: join(scratch, 'docker'),
          }
        : {
            PATH: '/usr/local/bin:/usr/bin:/bin',
            HOME: user.home,
            ...(await buildahStore(user, join(scratch, 'store'))),
          }
    const env = {
      ...actionEnv(common, registry, step, inputs),
      GITHUB_EVENT_PATH: join(tmp, 'event.json'),
      RUNNER_TEMP: scratch,
    }
    if (builder === 'buildah')
      for (const name of await readdir(scratch))
        await chown(join(scratch, name), user.uid, user.gid)
    // Docker's work is the engine's as much as the step's: its CPU counts too.
    return await timed(env, project, {
      enginePids: async () => (await engine?.pids()) ?? [],
      ...(builder === 'buildah' ? { user } : {}),
    })
  } finally {
    await engine?.stop()
    // Buildah's store holds files of the user's subordinate ids: root removes them.
    await rm(scratch, { recursive: true, force: true })
  }
}

/** The bundle's run: its time, the CPU of its tree and of the engine, and where the time went. */
async function timed(
  env: Record<string, string>,
  cwd: string,
  options: { enginePids: () => Promise<number[]>; user?: RootlessUser },
): Promise<Sample> {
  const lines: Array<[number, string]> = []
  // As the user, Node and the bundle come from a copy it can read (rootless.ts).
  const [node, script] = nodeAndScript(join(ROOT, 'dist/build-images/index.js'), options.user)
  const sample = await measureTree(node, [script], env, cwd, options.enginePids, {
    ...(options.user ? { user: options.user } : {}),
    onLine: (at, line) => lines.push([at, line]),
  })
  if (sample.code !== 0)
    throw new Error(
      `build-images exited with ${sample.code}: ${lines
        .slice(-30)
        .map(([, l]) => l)
        .join('\n')}\n${sample.stderr?.slice(-2000) ?? ''}`,
    )
  return {
    seconds: sample.seconds,
    cpuSeconds: sample.cpuSeconds + sample.engineCpuSeconds,
    phases: phasesOf(lines),
  }
}

/** Each phase's seconds, from the first line that starts it to the line that ends it. */
function phasesOf(lines: ReadonlyArray<readonly [number, string]>): Partial<Record<Phase, number>> {
  const at = (pattern: RegExp, from = 0): number | undefined =>
    lines.find(([time, line]) => time >= from && pattern.test(line))?.[0]
  const span = (start: RegExp, end: RegExp): number | undefined => {
    const begun = at(start)
    if (begun === undefined) return undefined
    const ended = at(end, begun)
    return ended === undefined ? undefined : Number((ended - begun).toFixed(2))
  }
  const phases: Partial<Record<Phase, number>> = {}
  const set = (phase: Phase, value: number | undefined): void => {
    if (value !== undefined) phases[phase] = value
  }
  set('lookup', span(/^::group::Unchanged images/, /^::endgroup::/))
  for (const [kind] of KINDS)
    set(
      `build ${kind}` as Phase,
      span(
        new RegExp(`^\\[${kind}\\] \\$ (docker buildx build|buildah .*bud) `),
        new RegExp(`^\\[${kind}\\] built `),
      ),
    )
  set('commit backend', span(/^\[backend\] COMMIT /, /^\[backend\] built /))
  set('check backend', span(/^\[backend\] built /, /^\[backend\] \$ (docker|buildah .*) push /))
  for (const kind of ['backend', 'frontend'])
    set(
      `push ${kind}` as Phase,
      span(
        new RegExp(`^\\[${kind}\\] \\$ (docker|buildah .*) push `),
        new RegExp(`^\\[${kind}\\] pushed, digest`),
      ),
    )
  return phases
}

async function giveTree(user: RootlessUser, dir: string): Promise<void> {
  await run('chown', ['-R', `${user.uid}:${user.gid}`, dir])
}
