// The real cosign binary (Debian's cosign 2.5), run offline against a loopback registry: a home
// of its own (it writes nothing to the machine's), the registry login from DOCKER_CONFIG, no
// transparency log. For the suites that check our signatures and attestations against cosign's.
import { beforeAll } from '@jest/globals'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { keySecrets } from './secrets.js'
import type { Cleanup } from './cleanup.js'
import { dockerLogin, pushImage } from './docker-env.js'
import type { DockerSuite } from './docker-suite.js'
import { runAsGithub, type RunResult } from './run-action.js'
import { capture } from './run-process.js'
import { lateBound } from './suite.js'
import { answer, startWebhookServer, type WebhookServer } from './webhook-server.js'

/** A key pair `cosign generate-key-pair` made, in its folder (cosign.key, cosign.pub). */
export interface KeyPair {
  folder: string
  /** The private key's PEM text, as a secret holds it. */
  key: string
  publicKey: string
}

export interface CosignRun {
  code: number | null
  stdout: string
  /** stdout and stderr together, for messages and the leak scans. */
  output: string
}

export interface Cosign {
  /** cosign's own home. */
  home: string
  run(args: string[], env?: Record<string, string>): Promise<CosignRun>
  generateKeyPair(label: string, password: string): Promise<KeyPair>
  /** `cosign sign --key`, with the pair's key file, offline. */
  sign(pair: KeyPair, password: string, reference: string): Promise<CosignRun>
  /** `cosign attest --key` of a predicate file, offline. */
  attest(
    pair: KeyPair,
    password: string,
    options: { type: string; predicate: string; reference: string },
  ): Promise<CosignRun>
  /**
   * `cosign verify-attestation --key <publicKey> --type <type>`, offline, against a plain-http
   * registry: its run, and the in-toto statements of the envelopes it printed, decoded.
   */
  verifyAttestation(
    publicKey: string,
    type: string,
    reference: string,
  ): Promise<CosignRun & { statements: Array<Record<string, unknown>> }>
}

/** The flags that let cosign write to a plain-http loopback registry without a transparency log. */
const OFFLINE_WRITE = [
  '--tlog-upload=false',
  '--allow-http-registry=true',
  '--allow-insecure-registry=true',
  '--yes',
]

/** cosign, with a home that `cleanup` removes and the registry login of `dockerConfig`. */
export async function startCosign(cleanup: Cleanup, dockerConfig: string): Promise<Cosign> {
  const home = await cleanup.tempDir('olympe-cosign-home-')
  const run = async (args: string[], env: Record<string, string> = {}): Promise<CosignRun> => {
    const result = await capture('cosign', args, {
      env: { PATH: process.env.PATH ?? '', HOME: home, DOCKER_CONFIG: dockerConfig, ...env },
      timeoutMs: 60_000,
    })
    return {
      code: result.code,
      stdout: result.stdout,
      output: `${result.stdout}\n${result.stderr}`,
    }
  }
  return {
    home,
    run,
    verifyAttestation: async (publicKey, type, reference) => {
      const verified = await run([
        'verify-attestation',
        '--key',
        publicKey,
        '--insecure-ignore-tlog=true',
        '--allow-http-registry=true',
        '--type',
        type,
        reference,
      ])
      return { ...verified, statements: statementsIn(verified.stdout) }
    },
    generateKeyPair: async (label, password) => {
      const folder = await cleanup.tempDir(`olympe-cosign-${label}-`)
      const made = await capture('cosign', ['generate-key-pair'], {
        cwd: folder,
        env: { PATH: process.env.PATH ?? '', HOME: home, COSIGN_PASSWORD: password },
        timeoutMs: 60_000,
      })
      if (made.code !== 0) throw new Error(`cosign generate-key-pair failed: ${made.stderr}`)
      return {
        folder,
        key: await readFile(join(folder, 'cosign.key'), 'utf8'),
        publicKey: await readFile(join(folder, 'cosign.pub'), 'utf8'),
      }
    },
    sign: (pair, password, reference) =>
      run(['sign', '--key', join(pair.folder, 'cosign.key'), ...OFFLINE_WRITE, reference], {
        COSIGN_PASSWORD: password,
      }),
    attest: (pair, password, { type, predicate, reference }) =>
      run(
        ['attest', '--key', join(pair.folder, 'cosign.key'), '--type', type].concat([
          '--predicate',
          predicate,
          ...OFFLINE_WRITE,
          reference,
        ]),
        { COSIGN_PASSWORD: password },
      ),
  }
}

/**
 * What a leak scan looks for of a cosign key pair's private key: the key and its body lines
 * (secrets.ts's `keySecrets`), its password (if any), and its body whole, as one line. Worked out
 * here, not with src's PEM reader, so that a key the product misreads is still looked for.
 */
export function keyPairSecrets(pair: KeyPair, password?: string): string[] {
  const [key, ...lines] = keySecrets(pair.key)
  return [key ?? pair.key, ...(password ? [password] : []), lines.join(''), ...lines]
}

/** `<repository>@<digest>` of an image pushed as `<repository>:<tag>`. */
export function pinnedOf(image: { reference: string; digest: string }): string {
  return `${image.reference.replace(/:[^:/]+$/, '')}@${image.digest}`
}

/** The in-toto statements of the DSSE envelopes `cosign verify-attestation` prints, one per line. */
function statementsIn(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      const envelope = JSON.parse(line) as { payload: string }
      const text = Buffer.from(envelope.payload, 'base64').toString('utf8')
      return JSON.parse(text) as Record<string, unknown>
    })
}

/** The deploy side of a cosign suite, as `useCosignDeploys` starts it. */
export interface CosignDeploys {
  /** The platform's webhook, answering 200. */
  webhook: WebhookServer
  cosign: Cosign
  /** The key pair made by `cosign generate-key-pair` whose public key the deploy runs trust. */
  trusted: KeyPair
  /** Pushes `source` as `<registry>/<namespace>/<name>`, and records it in `images` by `name`. */
  push: (name: string, source: string) => Promise<void>
  /**
   * deploy from the bundle as the GitHub runner runs it, in a workspace that holds the
   * `cosign.pub` of `trusted`: with the webhook (answering 200), the suite's registry login and
   * 'verify-signatures' set to cosign.pub, plus `inputs`; with an empty DOCKER_CONFIG, plus `env`.
   * What it printed and wrote goes into `captured` under `deploy <label>`; `posts` counts the
   * webhook's requests during the run.
   */
  deploy: (
    label: string,
    inputs: Record<string, string>,
    env?: Record<string, string>,
  ) => Promise<{ run: RunResult; posts: number }>
}

interface CosignDeploysOptions {
  namespace: string
  images: Record<string, { reference: string; digest: string }>
  trusted: { label: string; password: string }
  webhookToken: string
  captured: Record<string, string>
}

/**
 * The webhook, cosign logged in to the suite's registry, a key pair made by cosign (`trusted`,
 * with `label` and `password`) and a workspace that trusts it, for the deploy runs of a suite
 * that checks images against cosign's signatures or attestations; its images go under
 * `<registry>/<namespace>/` and are recorded in `images`. Started in a `beforeAll` (after the
 * Docker suite's, when `useDockerSuite` came first), stopped with `cleanup`. Each part handed back
 * stands for the started one, so that a suite may name them at its top; any use before the
 * `beforeAll` has run throws.
 */
export function useCosignDeploys(
  cleanup: Cleanup,
  suite: DockerSuite,
  options: CosignDeploysOptions,
): CosignDeploys {
  let started: CosignDeploys | undefined
  beforeAll(async () => {
    started = await startCosignDeploys(cleanup, suite, options)
  }, 120_000)
  const now = (): CosignDeploys => {
    if (started === undefined)
      throw new Error('The cosign deploys are used before their beforeAll started them.')
    return started
  }
  return {
    webhook: lateBound(() => now().webhook),
    cosign: lateBound(() => now().cosign),
    trusted: lateBound(() => now().trusted),
    push: (name, source) => now().push(name, source),
    deploy: (label, inputs, env) => now().deploy(label, inputs, env),
  }
}

async function startCosignDeploys(
  cleanup: Cleanup,
  suite: DockerSuite,
  options: CosignDeploysOptions,
): Promise<CosignDeploys> {
  const webhook = cleanup.track('webhook', await startWebhookServer(answer(200)))
  const cosign = await startCosign(cleanup, suite.dockerConfig)
  const env = { ...process.env, DOCKER_CONFIG: suite.dockerConfig }
  await dockerLogin(suite.registry, { env })
  const workspace = await cleanup.tempDir(`olympe-${options.namespace}-workspace-`)
  const trusted = await cosign.generateKeyPair(options.trusted.label, options.trusted.password)
  await writeFile(join(workspace, 'cosign.pub'), trusted.publicKey)
  const push = async (name: string, source: string): Promise<void> => {
    const reference = `${suite.registry.host}/${options.namespace}/${name}`
    options.images[name] = { reference, digest: await pushImage(source, reference, { env }) }
  }
  const deploy: CosignDeploys['deploy'] = async (label, inputs, runEnv = {}) => {
    webhook.respondWith(answer(200))
    const before = webhook.requests.length
    const run = await runAsGithub('deploy', {
      cwd: workspace,
      inputs: {
        'webhook-url': webhook.url,
        'webhook-token': options.webhookToken,
        'registry-username': suite.registry.user,
        'registry-password': suite.registry.password,
        'verify-signatures': 'cosign.pub',
        ...inputs,
      },
      env: { DOCKER_CONFIG: await cleanup.tempDir('olympe-docker-config-empty-'), ...runEnv },
    })
    options.captured[`deploy ${label}`] = [
      run.stdout,
      run.stderr,
      ...Object.values(run.files),
    ].join('\n')
    return { run, posts: webhook.requests.length - before }
  }
  return { webhook, cosign, trusted, push, deploy }
}
