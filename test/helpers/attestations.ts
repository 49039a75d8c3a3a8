// What the attestation tests share: keys made in process, a session on an in-memory registry
// (test/helpers/fake-registry.ts), and the facts of one image built on GitHub.
import { Version } from '@cyclonedx/cyclonedx-library/Spec'
import { JsonStrictValidator } from '@cyclonedx/cyclonedx-library/Validation'
import { generateKeyPairSync } from 'node:crypto'
import type { AttestationFacts } from '../../src/core/attestations/facts.js'
import { registryImage } from '../../src/core/registry/reference.js'
import { RegistrySession } from '../../src/core/registry/session.js'
import { startDeadline } from '../../src/core/shared/deadline.js'
import { isProblem } from '../../src/core/shared/problem.js'
import { openSigningKey, type SigningKey } from '../../src/core/signing/private-key.js'
import { keySigner, type Signer } from '../../src/core/signing/signer.js'
import { fakeNetwork, memoryRegistry, type MemoryRegistry } from './fake-registry.js'
import { memoryFiles } from './memory-files.js'

/** A fresh ECDSA P-256 key, opened as `signing-key` opens one. */
export function newSigningKey(): SigningKey {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const key = openSigningKey(pair.privateKey.export({ format: 'pem', type: 'sec1' }).toString(), '')
  if (isProblem(key)) throw new Error(key.problem)
  return key
}

export const signerOf = (key: SigningKey): Signer =>
  keySigner(key.privateKey, key.publicKey, 'signing-key')

export interface RegistryWorld {
  registry: MemoryRegistry
  session: RegistrySession
  /** The session's ports (the fake network behind the in-memory registry), no Docker config. */
  ports: ConstructorParameters<typeof RegistrySession>[4] & {
    files: ReturnType<typeof memoryFiles>
    dockerConfigPath: string
  }
}

/**
 * A session that may push to `<origin host>/<repository>`, on a registry held in memory, within
 * `seconds` of a clock that never waits.
 */
export function registryWorld(origin: string, repository: string, seconds = 60): RegistryWorld {
  const registry = memoryRegistry(origin)
  const network = fakeNetwork(registry.script)
  const target = registryImage(`${new URL(origin).host}/${repository}:main`)
  if (isProblem(target)) throw new Error(target.problem)
  const ports = {
    ...network,
    registerSecret: () => undefined,
    redact: (text: string) => text,
    files: memoryFiles({}),
    dockerConfigPath: '/nowhere/config.json',
  }
  const deadline = startDeadline(network.clock, seconds, 'the test')
  return {
    registry,
    session: new RegistrySession(target, undefined, 'pull,push', deadline, ports, 1),
    ports,
  }
}

export const SECRET_BUILD_ARG = 'npm-token-3f9a1c2b7d'
export const SECRET_INPUT = 'registry-password-8e7d6c'

/**
 * The facts of the frontend image built on GitHub by a push to main, with a build argument and
 * an input whose values are secrets (they must never be attested).
 */
export function frontendFacts(
  overrides: Partial<AttestationFacts['image']> = {},
): AttestationFacts {
  return {
    source: {
      repository: 'https://github.com/acme/shop',
      ref: 'refs/heads/main',
      commit: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
    },
    run: {
      builderId: 'https://github.com/acme/shop/.github/workflows/images.yml@refs/heads/main',
      workflow: 'acme/shop/.github/workflows/images.yml@refs/heads/main',
      invocationId: 'https://github.com/acme/shop/actions/runs/4242/attempts/1',
      startedOn: new Date('2026-03-01T10:00:00.000Z'),
      finishedOn: new Date('2026-03-01T10:04:30.000Z'),
    },
    image: {
      image: 'frontend',
      buildArgs: [
        ['NPM_TOKEN', SECRET_BUILD_ARG],
        ['DRAW_VERSION', '2.11.3'],
      ],
      inputs: { 'registry-password': SECRET_INPUT, codeasdata: 'true' },
      baseImages: [
        { reference: 'olympeio/frontend-base:stable', digest: `sha256:${'b'.repeat(64)}` },
      ],
      drawVersion: '2.11.3',
      ...overrides,
    },
    tool: { name: 'olympe-deploy-actions', version: '1.0.0' },
  }
}

/**
 * What the JSON schema of CycloneDX 1.6 (the one OWASP's CycloneDX library ships, checked with
 * ajv) finds wrong with a BOM's JSON text; null when nothing.
 */
export function cycloneDxProblems(text: string): Promise<unknown> {
  return new JsonStrictValidator(Version.v1dot6).validate(text)
}

/** The integrity npm locks `@olympeio/runtime-node@9.8.1` with, in the shop's lock file. */
export const RUNTIME_INTEGRITY =
  'sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=='

/**
 * The text of the shop project's package-lock.json (v3): the Olympe runtime, which ships, webpack
 * for development only, and `more` packages.
 */
export function shopLockFile(more: Record<string, Record<string, unknown>> = {}): string {
  const packages = {
    '': { name: 'shop', version: '1.4.0' },
    'node_modules/@olympeio/runtime-node': { version: '9.8.1', integrity: RUNTIME_INTEGRITY },
    ...more,
    'node_modules/webpack': { version: '5.99.0', dev: true },
  }
  return `${JSON.stringify({ name: 'shop', version: '1.4.0', lockfileVersion: 3, packages }, null, 2)}\n`
}
