// Credentials in an address (`app-url`, and any input declared `secret: urlCredentials`), through
// the deploy bundle as the runner runs it and as a GitLab job runs `olympe-deploy`: a password
// that holds '/', '@', ':', '#', '?', '%' or digits only is either read as the password it is
// (the user part runs to the last '@') or refused without being quoted, and no form of it shows
// in the log, the outputs, the summary, the dotenv report or the annotations report.
import { describe, expect, test } from '@jest/globals'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ACTION_DEFINITIONS } from '../../src/core/action-list.js'
import { mirrorCredentials } from '../../src/core/registry/mirrors.js'
import { urlCredentials } from '../../src/core/shared/url-credentials.js'
import { rollout, version } from '../helpers/app-server.js'
import { useCleanup, useDeployedApp } from '../helpers/suite.js'
import { runAsGithub, runCli, type ActionId, type RunResult } from '../helpers/run-action.js'
import { runnerCommands } from '../helpers/runner-commands.js'
import { expectNoSecrets } from '../helpers/secrets.js'

const TOKEN = 'url-creds-token-4d9e'
const USER = 'ci-user'
const NEW = '1.4.0'

const cleanup = useCleanup()
const { app, webhook } = useDeployedApp({ cleanup })

const refusal = (chars: string[]): string =>
  `holds ${chars.map((c) => `'${c}'`).join(', ')} in its user name or password (before the '@'), where a URL parser reads the end of the host; write ${chars.length === 1 ? 'it' : 'them'} percent-encoded (${chars.map((c) => `'${c}' as %${c.charCodeAt(0).toString(16).toUpperCase()}`).join(', ')}).`

/** Each password as written in `app-url`, and what it is once read (or why it is refused). */
const PASSWORDS: Array<[name: string, written: string, read: string | { refused: string[] }]> = [
  ['a slash', 'Ab3/kLm9+Qz7', { refused: ['/'] }],
  ['digits around a slash, which a URL parser reads as a port', '4711/8833', { refused: ['/'] }],
  ['at signs', 'p@ss@w0rd-1', 'p@ss@w0rd-1'],
  ['colons', 'pa:ss:w0rd', 'pa:ss:w0rd'],
  ['a hash', 's3c#r3t-99', { refused: ['#'] }],
  ['a question mark', 'wh?t-0ver-1', { refused: ['?'] }],
  ['a percent-encoded slash', 'Ab3%2FkLm9+Qz7', 'Ab3/kLm9+Qz7'],
  ['a percent-encoded percent', '100%25-sure', '100%-sure'],
  ['a percent that encodes nothing', '50%-off-now', '50%-off-now'],
  ['digits only', '99887766', '99887766'],
]

/** The runner's first annotation of a kind, its data unescaped as the runner reads it. */
const annotation = (run: RunResult, kind: string): string | undefined =>
  runnerCommands(run.stdout)
    .find((command) => command.command === kind)
    ?.data.replace(/%0D/g, '\r')
    .replace(/%0A/g, '\n')
    .replace(/%25/g, '%')

async function deployTo(
  via: 'github' | 'gitlab',
  appUrl: string,
): Promise<{ run: RunResult; captured: Record<string, string> }> {
  const inputs = {
    'webhook-url': webhook.url,
    'webhook-token': TOKEN,
    'frontend-image': '127.0.0.1:5999/shop/frontend:main-1a2b3c4',
    'verify-images': 'false',
    'app-url': appUrl,
    'expected-version': NEW,
    'promotion-mode': 'auto',
    'poll-seconds': '1',
    'wait-minutes': '0.2',
  }
  if (via === 'github') {
    const run = await runAsGithub('deploy', { inputs, timeoutMs: 90_000 })
    return { run, captured: { stdout: run.stdout, stderr: run.stderr, ...run.files } }
  }
  const dir = await cleanup.tempDir('olympe-url-creds-')
  const annotations = join(dir, 'annotations.json')
  const run = await runCli('deploy', {
    inputs,
    env: { GITLAB_CI: 'true' },
    args: ['--annotations', annotations],
    timeoutMs: 90_000,
  })
  const report = await readFile(annotations, 'utf8').catch(() => '')
  return {
    run,
    captured: { stdout: run.stdout, stderr: run.stderr, ...run.files, annotations: report },
  }
}

describe('an app-url password that holds what a URL parser misreads', () => {
  describe.each(['github', 'gitlab'] as const)('on %s', (via) => {
    test.each(PASSWORDS)('%s (%s)', async (_name, written, read) => {
      app.play(rollout('1.3.0', () => version(NEW)))
      webhook.requests.length = 0
      const address = `http://${USER}:${written}@127.0.0.1:${new URL(app.url).port}`
      const { run, captured } = await deployTo(via, address)
      if (typeof read === 'object') {
        const message = `Invalid input 'app-url' 'http://***@127.0.0.1:${new URL(app.url).port}': ${refusal(read.refused)}`
        if (via === 'github') expect(annotation(run, 'error')).toBe(message)
        else expect(run.stderr).toContain(`Error: ${message}\n`)
        expect(run.code).toBe(1)
        expect(webhook.requests).toHaveLength(0)
      } else {
        expect(run.code).toBe(0)
        expect(run.outputs).toMatchObject({ url: app.url, rollout: 'live' })
        // The app was asked with the password as read: the user part up to the last '@'.
        const basic = `Basic ${Buffer.from(`${USER}:${read}`).toString('base64')}`
        expect(app.requests.map((request) => request.headers.authorization)).toEqual(
          app.requests.map(() => basic),
        )
        if (via === 'gitlab') expect(captured.annotations).toContain(`"url": "${app.url}"`)
      }
      expect(run.stdout).toContain(`app-url: http://***@127.0.0.1:${new URL(app.url).port}`)
      expectNoSecrets(captured, [written, ...(typeof read === 'string' ? [read] : []), TOKEN])
    })
  })
})

/** Every input, in every action, whose specification says it may carry this kind of secret. */
const inputsHolding = (kind: unknown): (readonly [ActionId, string])[] =>
  ACTION_DEFINITIONS.flatMap((definition) =>
    Object.entries(definition.inputs)
      .filter(([, spec]) => spec.secret === kind)
      .map(([name]) => [definition.id, name] as const),
  )

/** The action in check-only mode, with `name` given as a command-line flag. */
const withFlag = (action: ActionId, name: string, value: string): ReturnType<typeof runCli> =>
  runCli(action, { inputs: { 'check-only': 'true' }, args: [`--${name}`, value] })

/** Every input whose specification says it may carry credentials in a URL, in every action. */
const CREDENTIAL_INPUTS = inputsHolding(urlCredentials)

describe('an input that may carry credentials in a URL, given as a command-line flag', () => {
  test('app-url is one of them', () => {
    expect(CREDENTIAL_INPUTS).toContainEqual(['deploy', 'app-url'])
  })

  test.each(CREDENTIAL_INPUTS)(
    '%s --%s with credentials is warned about, as a secret flag is; without, nothing is said',
    async (action, name) => {
      const variable = `INPUT_${name.toUpperCase().replace(/-/g, '_')}`
      const warning = `Warning: '${name}' was given as a flag that holds credentials in its URL (user:password@), which process lists and job logs can show: prefer the ${variable} environment variable.\n`
      const flagged = await withFlag(
        action,
        name,
        `https://${USER}:Fl4g-pass-word@shop.example.com`,
      )
      expect(flagged.stderr).toContain(warning)
      expectNoSecrets({ stdout: flagged.stdout, stderr: flagged.stderr, ...flagged.files }, [
        'Fl4g-pass-word',
      ])
      const plain = await withFlag(action, name, 'https://shop.example.com')
      expect(plain.stderr).not.toContain(`'${name}' was given as a flag`)
    },
  )
})

/** Every input whose specification says a mirror may be given with credentials, in every action. */
const MIRROR_INPUTS = inputsHolding(mirrorCredentials)

describe('a mirror given with credentials, as a command-line flag', () => {
  test('registry-mirrors of both actions is one of them', () => {
    expect(MIRROR_INPUTS).toEqual(
      expect.arrayContaining([
        ['build-images', 'registry-mirrors'],
        ['deploy', 'registry-mirrors'],
      ]),
    )
  })

  test.each(MIRROR_INPUTS)(
    '%s --%s: warned about as a secret flag is, then refused without showing them; without, nothing is said',
    async (action, name) => {
      const variable = `INPUT_${name.toUpperCase().replace(/-/g, '_')}`
      const warning = `Warning: '${name}' was given as a flag that holds credentials in a mirror ('user:password@host'), which process lists and job logs can show: prefer the ${variable} environment variable.\n`
      const flagged = await withFlag(
        action,
        name,
        `docker.io=${USER}:Fl4g-pass@word@registry.internal/hub`,
      )
      expect(flagged.stderr).toContain(warning)
      expect(flagged.code).toBe(1)
      expect(`${flagged.stdout}${flagged.stderr}`).toContain(
        `Invalid input '${name}' 'docker.io=***@registry.internal/hub': line 1 gives the mirror with credentials`,
      )
      expectNoSecrets({ stdout: flagged.stdout, stderr: flagged.stderr, ...flagged.files }, [
        'Fl4g-pass@word',
        `${USER}:Fl4g-pass@word`,
      ])
      const plain = await withFlag(action, name, 'docker.io=registry.internal/hub')
      expect(plain.stderr).not.toContain(`'${name}' was given as a flag`)
    },
  )
})
