// Exercises the Docker test helpers end to end on this machine, with timings:
//   npx tsx test/helpers/docker-env.check.ts           (warm: reuses base images)
//   npx tsx test/helpers/docker-env.check.ts --cold    (re-imports the base images first)
import { strict as assert } from 'node:assert'
import { fileURLToPath } from 'node:url'
import { Cleanup } from './cleanup.js'
import {
  BASE_IMAGES,
  docker,
  dockerLogin,
  dockerRun,
  ensureBaseImages,
  ensureDockerDaemon,
  startOwnedRegistry,
  type Registry,
} from './docker-env.js'
import { checkTemplateBaseFlavours } from './template-base-images.checks.js'

const PROJECT = fileURLToPath(new URL('../fixtures/sample-project/', import.meta.url))
const DRAW_VERSION = '2.11.3'
const TAG = 'main-1a2b3c4'
const KINDS = [
  { kind: 'frontend', sources: 'dist/web' },
  { kind: 'backend', sources: 'dist/node' },
  { kind: 'codeasdata', sources: 'dist/codeAsData' },
] as const

const timings: [string, number][] = []

async function step<T>(name: string, action: () => Promise<T>): Promise<T> {
  const started = performance.now()
  const result = await action()
  timings.push([name, performance.now() - started])
  return result
}

function imageName(kind: string): string {
  return `sample/${kind}`
}

async function buildAndPush(
  registry: Registry,
  env: NodeJS.ProcessEnv,
): Promise<Record<string, string>> {
  const pushed: Record<string, string> = {}
  for (const { kind, sources } of KINDS) {
    const reference = `${registry.host}/${imageName(kind)}:${TAG}`
    const build = await step(`build ${kind}`, () =>
      docker(
        [
          'build',
          '--file',
          `docker/${kind}.Dockerfile`,
          '--build-arg',
          `SOURCES_PATH=${sources}`,
          '--label',
          `draw_version=${DRAW_VERSION}`,
          '--tag',
          reference,
          '.',
        ],
        { cwd: PROJECT, env },
      ),
    )
    if (kind === 'frontend') console.log(`--- docker build output (frontend) ---\n${build.trim()}`)
    const push = await step(`push ${kind}`, () => docker(['push', reference], { env }))
    const digest = /digest: (sha256:[0-9a-f]{64})/.exec(push)?.[1]
    assert.ok(digest, `docker push printed no digest:\n${push}`)
    pushed[kind] = digest
  }
  return pushed
}

async function checkRegistryContent(
  registry: Registry,
  pushed: Record<string, string>,
): Promise<void> {
  const catalog = await registry.catalog()
  assert.deepEqual([...catalog].sort(), KINDS.map(({ kind }) => imageName(kind)).sort())
  for (const { kind } of KINDS) {
    assert.deepEqual(await registry.tags(imageName(kind)), [TAG])
    const manifest = await registry.manifest(imageName(kind), TAG)
    assert.equal(manifest.digest, pushed[kind], `${kind}: registry digest vs docker push digest`)
    const labels = manifest.config.Labels ?? {}
    assert.equal(labels.draw_version, DRAW_VERSION, `${kind}: draw_version`)
    assert.equal(labels['olympe.test.base'], kind, `${kind}: base image label`)
  }
  assert.deepEqual(await registry.tags('sample/unknown'), [])
}

/** `ls -ln` lines are `MODE LINKS UID GID SIZE ...`: keep the name, uid and gid. */
function owners(listing: string): { name: string; uid: string; gid: string }[] {
  return listing
    .split('\n')
    .filter((line) => /^[-d]/.test(line))
    .map((line) => line.trim().split(/\s+/))
    .map((cols) => ({ name: cols[cols.length - 1] ?? '', uid: cols[2] ?? '', gid: cols[3] ?? '' }))
}

async function checkImageContent(registry: Registry): Promise<void> {
  const image = (kind: string): string => `${registry.host}/${imageName(kind)}:${TAG}`
  const web = await step('run frontend ls', () =>
    dockerRun(image('frontend'), ['ls', '-ln', '/usr/share/nginx/html']),
  )
  console.log(`--- ls -ln /usr/share/nginx/html ---\n${web.trim()}`)
  const webFiles = owners(web)
  assert.deepEqual(webFiles.map((file) => file.name).sort(), ['index.html', 'version.json'])
  for (const file of webFiles) assert.deepEqual([file.uid, file.gid], ['101', '0'], file.name)
  const dirOwner = await dockerRun(image('frontend'), [
    'stat',
    '-c',
    '%u:%g',
    '/usr/share/nginx/html',
  ])
  console.log(`/usr/share/nginx/html itself is owned by ${dirOwner.trim()}`)
  const patches = owners(await dockerRun(image('codeasdata'), ['ls', '-ln', '/root/patches']))
  for (const file of patches) assert.deepEqual([file.uid, file.gid], ['1000', '1000'], file.name)
  const app = await dockerRun(image('backend'), ['cat', '/home/node/app/main.js'])
  assert.match(app, /backend started/)
}

async function main(): Promise<void> {
  const cold = process.argv.includes('--cold')
  await step('ensureDockerDaemon', ensureDockerDaemon)
  if (cold) await docker(['image', 'rm', '--force', ...Object.values(BASE_IMAGES)]).catch(() => '')
  await step(`ensureBaseImages (${cold ? 'cold' : 'warm'})`, ensureBaseImages)
  await step('ensureBaseImages (memoised)', ensureBaseImages)
  // Undone last first: the login's folder, the registry, then the images pushed to it.
  const cleanup = new Cleanup()
  const registry = await step('startRegistry', () =>
    startOwnedRegistry(cleanup, { user: 'ci-user', password: 's3cret-pass' }),
  )
  try {
    // A private DOCKER_CONFIG keeps the login out of ~/.docker/config.json.
    const dockerConfig = await cleanup.tempDir('olympe-docker-config-')
    const env = { ...process.env, DOCKER_CONFIG: dockerConfig }
    const unauthorized = await fetch(`${registry.url}/v2/_catalog`)
    assert.equal(unauthorized.status, 401, 'the registry must require credentials')
    const badLogin = dockerLogin({ ...registry, password: 'wrong' }, { env })
    await assert.rejects(badLogin, /401|unauthorized/i, 'a wrong password must be refused')
    await step('docker login', () => dockerLogin(registry, { env }))
    const pushed = await buildAndPush(registry, env)
    console.log('pushed digests', pushed)
    await step('read registry API', () => checkRegistryContent(registry, pushed))
    await checkImageContent(registry)
  } finally {
    await cleanup.run()
  }
  await checkTemplateBaseFlavours(step)
  for (const [name, ms] of timings)
    console.log(`${name.padEnd(36)} ${ms.toFixed(0).padStart(6)} ms`)
  console.log('docker-env check: OK')
}

main().catch((error: unknown) => {
  console.error('docker-env check FAILED:', error)
  process.exitCode = 1
})
