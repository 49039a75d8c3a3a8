// A real npm registry on loopback (verdaccio) for the GitLab templates' own command,
// `npx --yes olympe-deploy-actions@<version>`: the packed project is published to it together
// with its runtime dependencies (no uplinks, so everything works offline, as an on-premise
// mirror would). With `auth`, it is a private registry like Olympe's: `@olympeio/*` only for
// signed-in users, who get a token from the login API, and registration closed.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { startOwning, withCleanup } from './cleanup.js'
import { ROOT } from './run-action.js'
import { capture, chunksToText, errorMessage, freePort, run, stopChild } from './run-process.js'

const VERDACCIO = join(ROOT, 'node_modules/verdaccio/bin/verdaccio')
const STARTUP_TIMEOUT_MS = 20_000

export interface Verdaccio {
  /** `http://127.0.0.1:PORT/`, the value for `npm_config_registry`. */
  url: string
  /** Publishes an `npm pack` tarball; its manifest is read from the tarball itself. */
  publish(tarball: string, token?: string): Promise<void>
  /** Which versions of a package the registry holds (empty when none, or when not allowed). */
  versions(name: string, token?: string): Promise<string[]>
  /** Signs in as `npm login` does and resolves to the token for `_authToken`. */
  login(user: string, password: string): Promise<string>
  logs(): string
  stop(): Promise<void>
}

export interface VerdaccioOptions {
  /** The one user of a registry that requires authentication for `@olympeio/*` and publishing. */
  auth?: { user: string; password: string }
}

export function startVerdaccio(options: VerdaccioOptions = {}): Promise<Verdaccio> {
  return startOwning(async (owned) => {
    const dir = await owned.tempDir('olympe-verdaccio-')
    const port = await freePort()
    const config = join(dir, 'config.yaml')
    if (options.auth) await writeHtpasswd(join(dir, 'htpasswd'), options.auth)
    await writeFile(config, verdaccioConfig(dir, port, options.auth !== undefined))
    // A server, not a command to capture: its logs are read while it runs, and stop() ends it.
    const child = spawn(process.execPath, [VERDACCIO, '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    })
    owned.add('verdaccio', () => stopChild(child))
    const output: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk))
    const logs = (): string => chunksToText(output)
    const url = `http://127.0.0.1:${port}/`
    await waitForPing(url, child, logs)
    return {
      url,
      publish: (tarball, token) => publishTarball(url, tarball, token),
      versions: (name, token) => versions(url, name, token),
      login: (user, password) =>
        login(url, user, password).catch((error: unknown) => {
          throw new Error(`${errorMessage(error)}; verdaccio said: ${logs()}`, { cause: error })
        }),
      logs,
      stop: () => owned.run(),
    }
  })
}

async function versions(registry: string, name: string, token?: string): Promise<string[]> {
  const response = await fetch(new URL(encodePackageName(name), registry), {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  })
  if (response.status === 404 || response.status === 401) return []
  const document = (await response.json()) as { versions?: Record<string, unknown> }
  return Object.keys(document.versions ?? {})
}

// No uplinks: nothing reaches the Internet, everything is published here. Without auth anyone
// reads and publishes; with it, `@olympeio/*` needs a signed-in user, and so does publishing.
function verdaccioConfig(dir: string, port: number, auth: boolean): string {
  const packages = auth
    ? [
        "  '@olympeio/*':",
        '    access: $authenticated',
        '    publish: $authenticated',
        "  '**':",
        '    access: $all',
        '    publish: $authenticated',
      ]
    : ["  '**':", '    access: $all', '    publish: $all']
  return [
    `storage: ${join(dir, 'storage')}`,
    `listen: 127.0.0.1:${port}`,
    'auth:',
    '  htpasswd:',
    `    file: ${join(dir, 'htpasswd')}`,
    ...(auth ? ['    max_users: -1'] : []),
    // JWT tokens: the legacy ones need crypto.createCipher, which Node 22 removed.
    ...(auth
      ? [
          'security:',
          '  api:',
          '    legacy: false',
          '    jwt:',
          '      sign:',
          '        expiresIn: 1h',
        ]
      : []),
    'uplinks: {}',
    'packages:',
    ...packages,
    'logs: { type: stdout, format: pretty, level: warn }',
    '',
  ].join('\n')
}

// bcrypt, as `htpasswd -B` writes it; -i reads the password from stdin, out of argv.
async function writeHtpasswd(
  file: string,
  auth: { user: string; password: string },
): Promise<void> {
  const { stdout } = await run('htpasswd', ['-nBi', auth.user], { input: auth.password })
  await writeFile(file, `${stdout.trim()}\n`, { mode: 0o600 })
}

// What `npm login` does against an existing user: PUT the user document with basic auth.
async function login(registry: string, user: string, password: string): Promise<string> {
  const response = await fetch(
    new URL(`-/user/org.couchdb.user:${encodeURIComponent(user)}`, registry),
    {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
      },
      body: JSON.stringify({ name: user, password }),
    },
  )
  const body = (await response.json()) as { token?: string; error?: string }
  if (!response.ok || !body.token)
    throw new Error(
      `Signing in to ${registry} as ${user} failed: ${response.status} ${body.error ?? ''}`,
    )
  return body.token
}

async function waitForPing(url: string, child: ChildProcess, logs: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`verdaccio exited with ${child.exitCode}: ${logs()}`)
    try {
      const response = await fetch(new URL('-/ping', url))
      if (response.ok) return
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`verdaccio did not answer ${url} within ${STARTUP_TIMEOUT_MS} ms: ${logs()}`)
}

const encodePackageName = (name: string): string => name.replace('/', '%2f')

/** What `npm publish` sends: the manifest, its dist fields, and the tarball as an attachment. */
async function publishTarball(registry: string, tarball: string, token?: string): Promise<void> {
  const data = await readFile(tarball)
  const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json'])
  const manifest = JSON.parse(stdout) as { name: string; version: string }
  const file = `${basename(manifest.name)}-${manifest.version}.tgz`
  const document = {
    _id: manifest.name,
    name: manifest.name,
    'dist-tags': { latest: manifest.version },
    versions: {
      [manifest.version]: {
        ...manifest,
        _id: `${manifest.name}@${manifest.version}`,
        dist: {
          shasum: createHash('sha1').update(data).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
          tarball: new URL(`${encodePackageName(manifest.name)}/-/${file}`, registry).href,
        },
      },
    },
    _attachments: {
      [file]: {
        content_type: 'application/octet-stream',
        data: data.toString('base64'),
        length: data.length,
      },
    },
  }
  const response = await fetch(new URL(encodePackageName(manifest.name), registry), {
    method: 'PUT',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(document),
  })
  if (!response.ok)
    throw new Error(`Publishing ${file} failed: ${response.status} ${await response.text()}`)
}

/**
 * Packs this project and every package its runtime dependencies need (from node_modules), and
 * publishes them all: exactly what `npx olympe-deploy-actions@<version>` will ask the registry for.
 * A registry that requires authentication for publishing needs a user's `token`.
 */
export async function publishProject(
  registry: Verdaccio,
  token?: string,
): Promise<{ name: string; version: string }> {
  return withCleanup(async (cleanup) => {
    const out = await cleanup.tempDir('olympe-pack-')
    const folders = await runtimeDependencyFolders()
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', out, ROOT, ...folders],
      { cwd: out, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' } },
    )
    const packed = JSON.parse(stdout) as { filename: string }[]
    for (const { filename } of packed) await registry.publish(join(out, basename(filename)), token)
    const own = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      name: string
      version: string
    }
    return { name: own.name, version: own.version }
  })
}

/**
 * Packs a package of the given files (a package.json among them) with `npm pack` and publishes
 * it: a public package a project installs, as a registry that mirrors the public one serves it.
 */
export async function publishPackage(
  registry: Verdaccio,
  files: Record<string, string>,
): Promise<void> {
  await withCleanup(async (cleanup) => {
    const dir = await cleanup.tempDir('olympe-package-')
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text)
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', dir, dir],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } },
    )
    const [packed] = JSON.parse(stdout) as { filename: string }[]
    await registry.publish(join(dir, basename(packed?.filename ?? '')))
  })
}

/** A loopback registry that holds this project, as the jobs' `npx olympe-deploy-actions` asks. */
export async function startProjectRegistry(): Promise<Verdaccio> {
  const registry = await startVerdaccio()
  try {
    await publishProject(registry)
    return registry
  } catch (error) {
    await registry.stop()
    throw error
  }
}

async function runtimeDependencyFolders(): Promise<string[]> {
  // `npm ls` exits non-zero on any oddity of the dev tree; its list of folders is still right.
  const { stdout: listing } = await capture(
    'npm',
    ['ls', '--omit=dev', '--omit=peer', '--all', '--parseable'],
    { cwd: ROOT },
  )
  const folders = listing.split('\n').filter((line) => line !== '' && line !== ROOT)
  return [...new Set(folders)]
}
