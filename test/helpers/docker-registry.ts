// A private registry for push tests: Debian's CNCF distribution registry with basic auth on a
// free loopback port. Docker allows plain http for 127.0.0.1, so no TLS is needed, unless a test
// wants a registry behind a private certificate authority (`tls`).
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { request as httpsRequest } from 'node:https'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { startOwning } from './cleanup.js'
import { chunksToText, errorMessage, freePort, run, stopChild } from './run-process.js'

const MANIFEST_V2 = 'application/vnd.docker.distribution.manifest.v2+json'
const STARTUP_TIMEOUT_MS = 15_000

export interface RegistryOptions {
  user: string
  password: string
  /**
   * No auth at all: anyone may pull and push, as an instance's open mirror of Docker Hub. `user`
   * and `password` are then sent and ignored.
   */
  anonymous?: boolean
  /**
   * Bearer auth (`auth: token`) through this token service instead of htpasswd: the registry
   * trusts the tokens it signs. `user` and `password` are then the token service's login, and
   * the catalog, tags and manifest helpers below (which log in with Basic) do not work.
   */
  token?: { realm: string; service: string; issuer: string; rootCertBundle: string }
  /**
   * Serve https with this certificate and key (PEM texts, signed by the private authority whose
   * PEM file is `caFile`: the shape of TlsFiles), on every interface: reachable as
   * `<external address>:<port>`, where clients use https, and still as 127.0.0.1, which Docker
   * treats as an insecure registry (it pushes there without trusting the authority). The
   * catalog, tags and manifest helpers below do not trust the authority, and do not work.
   */
  tls?: { cert: string; key: string; caFile: string }
}

/** The `config` section of an image configuration blob. */
export interface ImageConfig {
  Labels?: Record<string, string>
  Env?: string[]
  Cmd?: string[]
  User?: string
  WorkingDir?: string
}

export interface ImageManifest {
  /** The manifest digest, as `docker push` prints it and `image@sha256:...` references use. */
  digest: string
  mediaType: string
  configDigest: string
  config: ImageConfig
  /** Top-level keys of the configuration blob (`moby.buildkit.cache.v0` holds inline cache). */
  configKeys: string[]
  /** The steps of its history, as the configuration blob tells them. */
  history: Array<{ created_by?: string; empty_layer?: boolean }>
  layers: Array<{ digest: string; mediaType: string; size: number }>
}

export interface Registry {
  /** `127.0.0.1:PORT`, the registry part of image references and the `docker login` server. */
  host: string
  url: string
  /** The registry's storage folder (blobs under docker/registry/v2/blobs). */
  storage: string
  user: string
  password: string
  stop(): Promise<void>
  catalog(): Promise<string[]>
  tags(name: string): Promise<string[]>
  manifest(name: string, tag: string): Promise<ImageManifest>
  /**
   * Stores an image with these labels and no layers under `name:tag`, through the registry's
   * API (no Docker): a frontend image as deploy reads it. Resolves to its manifest digest.
   */
  putImage(name: string, tag: string, labels: Record<string, string>): Promise<string>
  /** Each layer of the image, unpacked (a tar), as whoever pulls it gets it. */
  layerFiles(name: string, tag: string): Promise<Buffer[]>
  /** What the registry printed so far, for assertion messages. */
  logs(): string
}

export function startRegistry(options: RegistryOptions): Promise<Registry> {
  return startOwning(async (owned) => {
    const dir = await owned.tempDir('olympe-registry-')
    const port = await freePort()
    const configPath = await writeRegistryConfig(dir, port, options).catch((error: unknown) => {
      const hint = 'Writing the registry config failed (run .ci/setup-docker.sh?)'
      throw new Error(`${hint}: ${errorMessage(error)}`, { cause: error })
    })
    // A server, not a command to capture: its logs are read while it runs, and stop() ends it.
    const child = spawn('docker-registry', ['serve', configPath], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    owned.add('docker-registry', () => stopChild(child))
    const output: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk))
    const logs = (): string => chunksToText(output)
    const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`
    await waitUntilReady(url, child, logs, options.anonymous ? 200 : 401, options.tls?.caFile)
    const get = (path: string, accept?: string): Promise<Response> =>
      authorizedGet(url + path, options, accept)
    return {
      host: `127.0.0.1:${port}`,
      url,
      storage: join(dir, 'storage'),
      user: options.user,
      password: options.password,
      stop: () => owned.run(),
      logs,
      catalog: async () => stringList(await getJson(get, '/v2/_catalog'), 'repositories'),
      tags: async (name) => {
        const response = await get(`/v2/${name}/tags/list`)
        // An unknown repository answers 404 NAME_UNKNOWN: for a test that just means no tags.
        if (response.status === 404) return []
        return stringList(await jsonOf(response, `tags of ${name}`), 'tags')
      },
      manifest: (name, tag) => readManifest(get, name, tag),
      putImage: (name, tag, labels) => putImage(url, options, name, tag, labels),
      layerFiles: async (name, tag) => {
        const { layers } = await readManifest(get, name, tag)
        const files: Buffer[] = []
        for (const layer of layers) {
          const response = await get(`/v2/${name}/blobs/${layer.digest}`)
          if (!response.ok) throw new Error(`Layer ${layer.digest} answered ${response.status}`)
          const bytes = Buffer.from(await response.arrayBuffer())
          files.push(layer.mediaType.includes('gzip') ? gunzipSync(bytes) : bytes)
        }
        return files
      },
    }
  })
}

async function writeRegistryConfig(
  dir: string,
  port: number,
  auth: RegistryOptions,
): Promise<string> {
  await mkdir(join(dir, 'storage'))
  const config = [
    'version: 0.1',
    'log:',
    '  level: warn',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${join(dir, 'storage')}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: ${auth.tls ? '0.0.0.0' : '127.0.0.1'}:${port}`,
    ...(auth.tls ? await tlsSection(dir, auth.tls) : []),
    ...(auth.anonymous
      ? []
      : ['auth:', ...(auth.token ? tokenAuth(auth.token) : await htpasswdAuth(dir, auth))]),
  ]
  const configPath = join(dir, 'config.yml')
  await writeFile(configPath, config.join('\n') + '\n')
  return configPath
}

async function tlsSection(
  dir: string,
  tls: NonNullable<RegistryOptions['tls']>,
): Promise<string[]> {
  const certificate = join(dir, 'tls.crt')
  const key = join(dir, 'tls.key')
  await writeFile(certificate, tls.cert)
  await writeFile(key, tls.key, { mode: 0o600 })
  return ['  tls:', `    certificate: ${certificate}`, `    key: ${key}`]
}

async function htpasswdAuth(dir: string, auth: RegistryOptions): Promise<string[]> {
  const htpasswdPath = join(dir, 'htpasswd')
  // -i reads the password from stdin, which keeps it out of argv and of error messages.
  const { stdout } = await run('htpasswd', ['-nBi', auth.user], { input: auth.password })
  await writeFile(htpasswdPath, stdout.trim() + '\n', { mode: 0o600 })
  return ['  htpasswd:', '    realm: olympe-test-registry', `    path: ${htpasswdPath}`]
}

function tokenAuth(token: NonNullable<RegistryOptions['token']>): string[] {
  return [
    '  token:',
    `    realm: ${token.realm}`,
    `    service: ${token.service}`,
    `    issuer: ${token.issuer}`,
    `    rootcertbundle: ${token.rootCertBundle}`,
  ]
}

/** Until GET /v2/ answers `expected`: 401 when a login is wanted, 200 when not. */
async function waitUntilReady(
  url: string,
  child: ChildProcess,
  logs: () => string,
  expected: number,
  caFile?: string,
): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS
  let spawnError: Error | undefined
  child.once('error', (error) => (spawnError = error))
  let lastProblem = 'no answer yet'
  while (Date.now() < deadline) {
    if (spawnError) {
      throw new Error(
        `docker-registry could not start (${spawnError.message}): run .ci/setup-docker.sh first`,
      )
    }
    if (child.exitCode !== null) {
      throw new Error(`docker-registry exited with ${child.exitCode}: ${logs().trim()}`)
    }
    try {
      const status = caFile
        ? await httpsStatus(`${url}/v2/`, caFile)
        : (await fetch(`${url}/v2/`)).status
      if (status === expected) return
      lastProblem = `GET /v2/ answered ${status}, expected ${expected}`
    } catch (error) {
      lastProblem = errorMessage(error)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`docker-registry at ${url} did not become ready: ${lastProblem}. ${logs()}`)
}

/** The status of a GET over https, trusting the private authority `caFile`. */
async function httpsStatus(url: string, caFile: string): Promise<number> {
  const ca = await readFile(caFile, 'utf8')
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end()
  })
}

type Get = (path: string, accept?: string) => Promise<Response>

function authorizedGet(url: string, auth: RegistryOptions, accept?: string): Promise<Response> {
  const credentials = Buffer.from(`${auth.user}:${auth.password}`).toString('base64')
  const headers: Record<string, string> = { Authorization: `Basic ${credentials}` }
  if (accept) headers.Accept = accept
  return fetch(url, { headers })
}

async function putImage(
  url: string,
  auth: RegistryOptions,
  name: string,
  tag: string,
  labels: Record<string, string>,
): Promise<string> {
  const authorization = `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`
  const config = JSON.stringify({
    architecture: 'amd64',
    os: 'linux',
    config: { Labels: labels },
    rootfs: { type: 'layers', diff_ids: [] },
  })
  const configDigest = `sha256:${createHash('sha256').update(config).digest('hex')}`
  const started = await fetch(`${url}/v2/${name}/blobs/uploads/`, {
    method: 'POST',
    headers: { Authorization: authorization },
  })
  const location = started.headers.get('location')
  if (started.status !== 202 || !location)
    throw new Error(`Registry upload of ${name} answered ${started.status}`)
  const upload = new URL(location, url)
  upload.searchParams.set('digest', configDigest)
  const put = await fetch(upload, {
    method: 'PUT',
    headers: { Authorization: authorization, 'Content-Type': 'application/octet-stream' },
    body: config,
  })
  if (put.status !== 201) throw new Error(`Registry blob PUT answered ${put.status}`)
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: MANIFEST_V2,
    config: {
      mediaType: 'application/vnd.docker.container.image.v1+json',
      digest: configDigest,
      size: Buffer.byteLength(config),
    },
    layers: [],
  })
  const stored = await fetch(`${url}/v2/${name}/manifests/${tag}`, {
    method: 'PUT',
    headers: { Authorization: authorization, 'Content-Type': MANIFEST_V2 },
    body: manifest,
  })
  if (stored.status !== 201)
    throw new Error(`Registry manifest PUT answered ${stored.status}: ${await stored.text()}`)
  return `sha256:${createHash('sha256').update(manifest).digest('hex')}`
}

async function readManifest(get: Get, name: string, tag: string): Promise<ImageManifest> {
  const response = await get(`/v2/${name}/manifests/${tag}`, MANIFEST_V2)
  const manifest = await jsonOf(response, `manifest ${name}:${tag}`)
  const configDigest = field(field(manifest, 'config'), 'digest')
  if (typeof configDigest !== 'string') throw new Error(`Manifest ${name}:${tag} has no config`)
  const blob = await getJson(get, `/v2/${name}/blobs/${configDigest}`)
  const config = (field(blob, 'config') ?? {}) as Omit<ImageConfig, 'Labels'> & {
    Labels?: ImageConfig['Labels'] | null
  }
  // Docker writes `"Labels": null` for an image without labels.
  if (config.Labels === null) delete config.Labels
  const history = field(blob, 'history')
  const layers = field(manifest, 'layers')
  return {
    digest: response.headers.get('docker-content-digest') ?? '',
    mediaType: stringField(manifest, 'mediaType') ?? response.headers.get('content-type') ?? '',
    configDigest,
    config: config as ImageConfig,
    configKeys: typeof blob === 'object' && blob !== null ? Object.keys(blob) : [],
    history: Array.isArray(history) ? (history as ImageManifest['history']) : [],
    layers: Array.isArray(layers) ? (layers as ImageManifest['layers']) : [],
  }
}

async function getJson(get: Get, path: string): Promise<unknown> {
  return jsonOf(await get(path), `GET ${path}`)
}

async function jsonOf(response: Response, what: string): Promise<unknown> {
  const body = await response.text()
  if (!response.ok) throw new Error(`Registry ${what} answered ${response.status}: ${body}`)
  return JSON.parse(body) as unknown
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined
}

function stringField(value: unknown, key: string): string | undefined {
  const found = field(value, key)
  return typeof found === 'string' ? found : undefined
}

function stringList(value: unknown, key: string): string[] {
  const list = field(value, key)
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : []
}
