// A property of the bundle, for every secret input of every action as the definitions declare it
// (so that an input added later is covered, or this suite says what it lacks): a random value of
// at least the masking's minimum length, written where that input holds its secret (the whole
// text, a URL's password, a build secret's value…), often where the input's own parser refuses
// it, never shows in anything the step prints or writes, in any of the forms the redactor masks
// (raw, percent-encoded and -decoded, upper- and lower-case, base64 at each alignment). Each run
// is the built bundle, as the GitHub runner runs it or as a GitLab job runs `olympe-deploy`.
import { beforeAll, describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ACTION_DEFINITIONS } from '../../src/core/action-list.js'
import {
  buildSecretParts,
  secretLookingArguments,
} from '../../src/core/build-images/input-parsers.js'
import type { InputSpec } from '../../src/core/definition.js'
import { webhookUrlParts } from '../../src/core/deploy/secrets.js'
import { loginPassword } from '../../src/core/registry/inputs.js'
import { mirrorCredentials } from '../../src/core/registry/mirrors.js'
import { pastedPrivateKey, signingKeyParts } from '../../src/core/signing/pem.js'
import { MIN_SECRET_LENGTH } from '../../src/core/shared/secrets.js'
import { urlCredentials } from '../../src/core/shared/url-credentials.js'
import { useCleanup } from '../helpers/suite.js'
import { runAsGithub, runCli, type ActionId } from '../helpers/run-action.js'
import { findSecrets } from '../helpers/secrets.js'

/** Runs of the bundle: each starts a Node process, about half a second. */
const RUNS = Number(process.env.SECRET_PROPERTY_RUNS ?? 80)

/**
 * Where each kind of secret sits in its input's text: the texts that hold `value` there, the
 * first of which the parser accepts for most values. Keyed by the input's `secret`, as declared.
 */
const PLACES = new Map<InputSpec['secret'], (value: string) => string[]>([
  [true, (value) => [value]],
  [
    urlCredentials,
    (value) => [
      `https://ci-user:${value}@preview.example.com`,
      `https://${value}@preview.example.com/app`,
    ],
  ],
  [
    webhookUrlParts,
    (value) => [
      `https://hook:${value}@hooks.example.com/deploy`,
      `https://hooks.example.com/deploy/${value}`,
      value,
    ],
  ],
  [loginPassword, (value) => [value]],
  // Refused whatever it holds: what matters is the message that refuses it.
  [
    mirrorCredentials,
    (value) => [
      `ghcr.io=registry.internal/ghcr\ndocker.io=ci-user:${value}@registry.internal/dockerhub`,
      `docker.io=${value}@registry.internal`,
    ],
  ],
  [buildSecretParts, (value) => [`NPM_TOKEN=${value}`, `A=1\n${value}`]],
  [secretLookingArguments, (value) => [`NPM_TOKEN=${value}`, `API_KEY=${value}\nSOURCES_PATH=x`]],
  // A line of a key's PEM body: a log shows one line at a time.
  [
    signingKeyParts,
    (value) => [`-----BEGIN EC PRIVATE KEY-----\n${value}\n-----END EC PRIVATE KEY-----`, value],
  ],
  [
    pastedPrivateKey,
    (value) => [`-----BEGIN PRIVATE KEY-----\n${value}\n-----END PRIVATE KEY-----`],
  ],
])

interface SecretInput {
  action: ActionId
  name: string
  spec: InputSpec
}

const SECRET_INPUTS: SecretInput[] = ACTION_DEFINITIONS.flatMap((definition) =>
  Object.entries(definition.inputs)
    .filter(([, spec]) => spec.secret !== undefined)
    .map(([name, spec]) => ({ action: definition.id, name, spec })),
)

/** Valid inputs each run starts from, so that the step gets as far as it can without a server. */
const BASE: Record<ActionId, Record<string, string>> = {
  deploy: {
    'webhook-url': 'https://hooks.example.com/deploy/base',
    'webhook-token': 'base-token-value',
    'frontend-image': 'registry.example.com/shop/frontend:1.4.0',
    'verify-images': 'false',
    'app-url': 'https://shop.example.com',
    'registry-username': 'ci-bot',
    'dry-run': 'true',
  },
  'build-images': {
    registry: '127.0.0.1:5999',
    'registry-username': 'ci-bot',
    'registry-password': 'base-password-value',
    'check-only': 'true',
  },
  snapshot: { 'draw-password': 'base-draw-password', 'check-only': 'true' },
}

/** Characters of generated passwords: what URLs, shells and YAML treat specially, and beyond. */
const CHARS = Array.from(
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/@:#?%+=-_.~!$&*()[]{}<>|^`\'",;\\éß€',
)

const cleanup = useCleanup()

/** Everything a run printed and wrote: logs, outputs, the summary, dotenv and annotations. */
async function runStep(
  action: ActionId,
  inputs: Record<string, string>,
  via: 'github' | 'gitlab',
): Promise<Record<string, string>> {
  const env = { GITHUB_SHA: '5e6f708192a3b4c5d6e7f8091a2b3c4d1a2b3c4d' }
  if (via === 'github') {
    const run = await runAsGithub(action, { inputs, env, timeoutMs: 30_000 })
    return { stdout: run.stdout, stderr: run.stderr, ...run.files }
  }
  const dir = await cleanup.tempDir('olympe-secret-property-')
  const annotations = join(dir, 'annotations.json')
  const run = await runCli(action, {
    inputs,
    env: { ...env, GITLAB_CI: 'true' },
    args: ['--annotations', annotations],
    timeoutMs: 30_000,
  })
  const report = await readFile(annotations, 'utf8').catch(() => '')
  return { stdout: run.stdout, stderr: run.stderr, ...run.files, annotations: report }
}

describe('every secret input, with random values', () => {
  test('each secret input has a place for its secret here', () => {
    const missing = SECRET_INPUTS.filter(({ spec }) => !PLACES.has(spec.secret)).map(
      ({ action, name }) => `${action} ${name}`,
    )
    // An input whose secret is of a new kind: add to PLACES where its text holds the secret.
    expect(missing).toEqual([])
    expect(SECRET_INPUTS.map(({ action, name }) => `${action} ${name}`)).toEqual(
      expect.arrayContaining([
        'deploy webhook-url',
        'deploy webhook-token',
        'deploy registry-password',
        'deploy app-url',
        'build-images registry-password',
        'build-images build-args',
        'build-images build-secrets',
        'build-images signing-key',
        'build-images signing-key-password',
        'deploy verify-signatures',
        'build-images registry-mirrors',
        'deploy registry-mirrors',
        'snapshot draw-password',
      ]),
    )
  })

  /** What each action prints with its base inputs: a value found there is no test of masking. */
  const baseline: Partial<Record<ActionId, string>> = {}
  beforeAll(async () => {
    for (const action of ['deploy', 'build-images', 'snapshot'] as const)
      baseline[action] = Object.values(await runStep(action, BASE[action], 'gitlab')).join('\n')
  }, 60_000)

  test('never show, in any form, in anything a run prints or writes', async () => {
    const value = fc
      .string({ unit: fc.constantFrom(...CHARS), minLength: MIN_SECRET_LENGTH, maxLength: 24 })
      .filter((text) => text.trim().length >= MIN_SECRET_LENGTH)
    const seen = { runs: 0, refused: 0 }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SECRET_INPUTS),
        value,
        fc.nat(),
        fc.constantFrom('github', 'gitlab' as const),
        async ({ action, name, spec }, secret, place, via) => {
          fc.pre(findSecrets({ baseline: baseline[action] ?? '' }, [secret]).length === 0)
          const texts = PLACES.get(spec.secret)?.(secret) ?? []
          const text = texts[place % texts.length] ?? secret
          const captured = await runStep(action, { ...BASE[action], [name]: text }, via)
          seen.runs++
          if (/Invalid input '/.test(`${captured.stdout}${captured.stderr}`)) seen.refused++
          expect({
            input: `${action} ${name}`,
            via,
            leaks: findSecrets(captured, [secret]),
          }).toEqual({ input: `${action} ${name}`, via, leaks: [] })
        },
      ),
      { numRuns: RUNS },
    )
    // Both kinds were tried: values the parsers accept, and values they refuse.
    expect(seen.refused).toBeGreaterThan(0)
    expect(seen.refused).toBeLessThan(seen.runs)
  }, 180_000)
})
