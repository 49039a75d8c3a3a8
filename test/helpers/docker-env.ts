// Real Docker for the build-images tests: the machine's daemon, locally made base images (there
// is no Docker Hub) and a private registry with basic auth on a free loopback port.
// .ci/setup-docker.sh installs the packages and starts the daemon; tests only reuse it.
import { chmod, copyFile, mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { withCleanup, type Cleanup } from './cleanup.js'
import { errorMessage, run, type RunOptions } from './run-process.js'
import { startRegistry, type Registry } from './docker-registry.js'

export { startRegistry } from './docker-registry.js'
export type { ImageConfig, ImageManifest, Registry, RegistryOptions } from './docker-registry.js'
export { errorMessage, freePort, run } from './run-process.js'
export type { RunOptions, RunResult } from './run-process.js'

export const BASE_IMAGES = {
  frontend: 'olympeio/frontend-base:stable',
  backend: 'olympeio/backend-base:stable',
  codeasdata: 'olympeio/codeasdata-base:stable',
} as const

export type BaseImages = { -readonly [K in keyof typeof BASE_IMAGES]: string }

/** `docker ARGS`, resolving to stdout. */
export async function docker(args: string[], options: RunOptions = {}): Promise<string> {
  return (await run('docker', args, options)).stdout
}

/** `docker run --rm IMAGE ARGS`, resolving to the container's stdout. */
export function dockerRun(
  image: string,
  args: string[],
  options: RunOptions = {},
): Promise<string> {
  return docker(['run', '--rm', image, ...args], options)
}

/** Resolves when a daemon answers; the tests never start one themselves (it needs root and apt). */
export async function ensureDockerDaemon(): Promise<void> {
  try {
    await run('docker', ['info', '--format', '{{.ServerVersion}}'], { timeoutMs: 20_000 })
  } catch (error) {
    throw new Error(
      `No Docker daemon answers \`docker info\`: run .ci/setup-docker.sh as root first. ` +
        `(${errorMessage(error)})`,
      { cause: error },
    )
  }
}

export async function imageExists(reference: string): Promise<boolean> {
  try {
    await docker(['image', 'inspect', '--format', '{{.Id}}', reference])
    return true
  } catch {
    return false
  }
}

let baseImagesReady: Promise<BaseImages> | undefined

/** Makes the three olympeio/*-base:stable images once, and reuses them on later runs. */
export function ensureBaseImages(): Promise<BaseImages> {
  baseImagesReady ??= makeMissingBaseImages().catch((error: unknown) => {
    baseImagesReady = undefined
    throw error
  })
  return baseImagesReady
}

/**
 * Makes the base images the engine lacks, every time it is called: for an engine that
 * ensureBaseImages's memory does not know (a private engine of the bench).
 */
export async function makeMissingBaseImages(): Promise<BaseImages> {
  const kinds = Object.keys(BASE_IMAGES) as (keyof BaseImages)[]
  const missing: (keyof BaseImages)[] = []
  for (const kind of kinds) if (!(await imageExists(BASE_IMAGES[kind]))) missing.push(kind)
  if (missing.length > 0) {
    await withCleanup(async (cleanup) => {
      const archive = await busyboxArchive(cleanup)
      for (const kind of missing) await importArchive(archive, BASE_IMAGES[kind], kind)
    })
  }
  return { ...BASE_IMAGES }
}

// Users the Dockerfiles name: COPY --chown=nginx:root needs nginx in the image's /etc/passwd.
const PASSWD = [
  'root:x:0:0:root:/root:/bin/sh',
  'nginx:x:101:101:nginx:/nonexistent:/bin/false',
  'node:x:1000:1000:node:/home/node:/bin/sh',
]
const GROUP = ['root:x:0:', 'nginx:x:101:', 'node:x:1000:']

/** A tar archive of a busybox root file system, owned by root, in a folder of `cleanup`'s. */
async function busyboxArchive(cleanup: Cleanup): Promise<string> {
  const folder = await cleanup.tempDir('olympe-base-root-')
  const root = join(folder, 'root')
  for (const dir of ['bin', 'etc', 'tmp', 'root', 'home/node']) {
    await mkdir(join(root, dir), { recursive: true })
  }
  await chmod(join(root, 'tmp'), 0o1777)
  await copyFile('/bin/busybox', join(root, 'bin/busybox'))
  await chmod(join(root, 'bin/busybox'), 0o755)
  // Every applet (sh, ls, cat, stat, find, id...), so tests can inspect images with any of them.
  const applets = (await run('/bin/busybox', ['--list'])).stdout.split('\n').filter(Boolean)
  for (const applet of applets.filter((name) => name !== 'busybox')) {
    await symlink('busybox', join(root, 'bin', applet))
  }
  await writeFile(join(root, 'etc/passwd'), PASSWD.join('\n') + '\n')
  await writeFile(join(root, 'etc/group'), GROUP.join('\n') + '\n')
  const archive = join(folder, 'root.tar')
  await run('tar', ['-C', root, '--owner=0', '--group=0', '--numeric-owner', '-cf', archive, '.'])
  return archive
}

/** `docker import ARCHIVE NAME`, with a shell as its command and a label naming its kind. */
async function importArchive(archive: string, reference: string, kind: string): Promise<void> {
  const changes = ['CMD ["/bin/sh"]', 'ENV PATH=/bin', `LABEL olympe.test.base=${kind}`]
  const args = ['import', ...changes.flatMap((change) => ['--change', change])]
  try {
    await docker([...args, archive, reference])
  } catch (error) {
    throw new Error(`Importing base image ${reference} failed: ${errorMessage(error)}`, {
      cause: error,
    })
  }
}

/**
 * Removes every local image under PREFIX (e.g. `127.0.0.1:5123/`, a registry only one suite
 * uses): tagged references, and images a rebuild of the same tag left dangling. A dangling one
 * goes by `name@digest` when it was pushed, else by ID without --force, which docker refuses
 * when another name still uses the image: nothing outside PREFIX is ever removed.
 */
export async function removeImages(prefix: string): Promise<string[]> {
  const format = '{{.Repository}} {{.Tag}} {{.Digest}} {{.ID}}'
  const listing = await docker(['image', 'ls', '--digests', '--format', format])
  const byReference: string[] = []
  const byId: string[] = []
  for (const line of listing.split('\n')) {
    const [repository = '', tag = '', digest = '', id = ''] = line.split(' ')
    if (!repository.startsWith(prefix)) continue
    if (tag !== '<none>') byReference.push(`${repository}:${tag}`)
    else if (digest !== '<none>') byReference.push(`${repository}@${digest}`)
    else byId.push(id)
  }
  const references = [...new Set(byReference)]
  if (references.length > 0) await docker(['image', 'rm', '--force', ...references])
  for (const id of new Set(byId)) await docker(['image', 'rm', id]).catch(() => '')
  return [...references, ...byId]
}

/**
 * A registry with basic auth that `owned` undoes: it stops the registry, then removes the local
 * images pushed to it (so that suites can run side by side on one engine).
 */
export async function startOwnedRegistry(
  owned: Cleanup,
  login: { user: string; password: string },
): Promise<Registry> {
  const registry = await startRegistry(login)
  // Undone last first: the images go after the registry.
  owned.add('images', () => removeImages(`${registry.host}/`))
  return owned.track('registry', registry)
}

/** `docker login` for a test registry; set DOCKER_CONFIG in `env` to keep ~/.docker untouched. */
export async function dockerLogin(
  registry: { host: string; user: string; password: string },
  options: Omit<RunOptions, 'input'> = {},
): Promise<void> {
  const args = ['login', registry.host, '--username', registry.user, '--password-stdin']
  await run('docker', args, { ...options, input: registry.password })
}

/** `docker tag SOURCE REFERENCE` and `docker push REFERENCE`: resolves to the pushed digest. */
export async function pushImage(
  source: string,
  reference: string,
  options: RunOptions = {},
): Promise<string> {
  await docker(['tag', source, reference])
  const output = await docker(['push', reference], options)
  const digest = /digest: (sha256:[0-9a-f]{64})/.exec(output)?.[1]
  if (!digest) throw new Error(`docker push ${reference} printed no digest: ${output}`)
  return digest
}
