// What the two end-to-end suites of the project template (GitHub and GitLab) check alike: which
// install npm ran and the Draw it installed, who owns the web files in the frontend image, the
// labels of the images.
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { dockerRun } from './docker-env.js'

/**
 * `ci` or `install` for each npm install that ran with this npm cache, oldest first, from the
 * `verbose argv` line of npm's debug logs (npm keeps the last ten).
 */
export async function npmInstalls(npmCache: string): Promise<string[]> {
  const folder = join(npmCache, '_logs')
  if (!existsSync(folder)) return []
  const installs: string[] = []
  for (const name of (await readdir(folder)).sort()) {
    const log = await readFile(join(folder, name), 'utf8')
    const command = /^\d+ verbose argv "([^"]+)"/m.exec(log)?.[1]
    if (command === 'ci' || command === 'install' || command === 'i') installs.push(command)
  }
  return installs
}

/** npm's debug logs, by file name, for a secret scan. */
export async function npmLogs(npmCache: string): Promise<Record<string, string>> {
  const folder = join(npmCache, '_logs')
  const logs: Record<string, string> = {}
  for (const name of existsSync(folder) ? await readdir(folder) : [])
    logs[`npm log ${name}`] = await readFile(join(folder, name), 'utf8')
  return logs
}

/** The version of the stand-in Draw that the project's install put in its node_modules. */
export async function installedDraw(project: { dir: string }): Promise<string> {
  const file = join(project.dir, 'node_modules/@olympeio/draw/package.json')
  return (JSON.parse(await readFile(file, 'utf8')) as { version: string }).version
}

/**
 * Each `uid:gid` that owns something under the web root of a frontend image, with how many
 * entries (files and folders) it owns: Olympe's frontend image wants nginx (101) and group root (0).
 */
export async function webRootOwners(image: string): Promise<Record<string, number>> {
  const listing = await dockerRun(image, ['ls', '-lnR', '/usr/share/nginx/html'])
  const owners: Record<string, number> = {}
  for (const line of listing.split('\n')) {
    if (!/^[-d]/.test(line)) continue
    const columns = line.trim().split(/\s+/)
    const owner = `${columns[2] ?? ''}:${columns[3] ?? ''}`
    owners[owner] = (owners[owner] ?? 0) + 1
  }
  return owners
}

/** The OCI labels build-images sets, without `created` (a time). */
export function ociLabels(labels: Record<string, string> | undefined): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(labels ?? {}))
    if (name.startsWith('org.opencontainers.image.') && !name.endsWith('.created'))
      kept[name] = value
  return kept
}

/**
 * Three backends with different code bases, as a team lists them in `backends`: two share
 * docker/backend.Dockerfile, the third has its own (ADMIN_DOCKERFILE, in BACKEND_FILES). `api`
 * is the template's own build output (`build:node`), the others are committed services.
 */
export const BACKENDS = [
  { name: 'api', sources: 'dist/node' },
  { name: 'worker', sources: 'services/worker' },
  { name: 'admin', sources: 'services/admin', dockerfile: 'docker/admin.Dockerfile' },
]

/** The files of BACKENDS that the template has not: the services and admin's Dockerfile. */
export const BACKEND_FILES: Record<string, string> = {
  'services/worker/main.js': "console.log('worker')\n",
  'services/admin/main.js': "console.log('admin')\n",
  'docker/admin.Dockerfile': [
    'FROM olympeio/backend-base:24-latest',
    'ARG SOURCES_PATH',
    'COPY $SOURCES_PATH /home/node/app',
    '',
  ].join('\n'),
}

/** The code each backend image holds (/home/node/app/main.js, trimmed), in the order given. */
export async function backendCode(images: string[]): Promise<string[]> {
  const code: string[] = []
  for (const image of images)
    code.push((await dockerRun(image, ['cat', '/home/node/app/main.js'])).trim())
  return code
}
