import { afterAll, beforeAll, describe, expect, test } from '@jest/globals'
import { existsSync } from 'node:fs'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { parse } from 'yaml'
import { ACTION_DEFINITIONS } from '../../src/core/action-list.js'
import { isWholeSecret, type InputSpec } from '../../src/core/definition.js'
import { NODE24 } from '../helpers/node-binaries.js'
import { useCleanup, useServers } from '../helpers/suite.js'
import {
  CHECKED,
  fixture,
  ROOT,
  runAsGithub,
  type ActionId,
  type RunResult,
} from '../helpers/run-action.js'
import { capture } from '../helpers/run-process.js'
import { hostileCommands, runnerCommands } from '../helpers/runner-commands.js'
import { findSecrets } from '../helpers/secrets.js'
import { answer, startWebhookServer } from '../helpers/webhook-server.js'

/**
 * The malformed-input corpus (test/fixtures/bad-inputs/*.yml). Every case runs the built bundle
 * as the runner runs it (<action>.yml) or as a GitLab job runs `olympe-deploy` (cli.yml), and must
 * fail (exit 1, or 2 for a command line used wrongly) before any side effect: no connection to
 * the loopback webhook, nor to the loopback registry that is also every case's HTTP(S) proxy
 * (so no request to any server at all), and no call to docker, git or the toolkit (stand-ins on
 * PATH record any call). Each case names the message it must print (on GitHub, in the `::error`
 * annotation as the runner reads it), no secret of the case may show in any captured stream or
 * file, in any of its leak forms (test/helpers/secrets.ts), and no text of the case marked
 * `hostile` may reach the runner as a workflow command.
 *
 * Each case of an action's corpus runs twice: as it is (a run, or a dry run when it says so), and
 * with `check-only: true`. The check phase finds everything a run refuses on its inputs alone, so
 * both refuse it with the same error annotation, and the check-only run does nothing else: no
 * output, no call, no connection.
 */
interface BadInput {
  name: string
  inputs?: Record<string, string>
  files?: Record<string, string>
  /**
   * Files in a folder beside the workspace, outside it (`{outside}` in `links` and `expect`), and
   * symbolic links made in the workspace: path -> target.
   */
  outside?: Record<string, string>
  links?: Record<string, string>
  /**
   * What `check-only` does when it is not refusing the case as the run does, and why: `accepted`
   * where the run's input is legitimately missing in a pipeline's first job.
   */
  checkOnly?: 'accepted'
  event?: { name: string; ref?: string }
  /** The message it must print; `{workspace}` stands for the case's working folder. */
  expect: string
  /** cli.yml: which action the case runs, its arguments, and the first word if not the action. */
  action?: ActionId
  args?: string[]
  command?: string
  /** Values of the case that must not show anywhere, besides its secret inputs. */
  secrets?: string[]
  /** The exit status, when not 1: 2 for a command line used wrongly (no or unknown command). */
  code?: number
  env?: Record<string, string>
}

const ACTIONS: ActionId[] = ['deploy', 'build-images', 'snapshot']
const CORPORA = [...ACTIONS, 'cli'] as const
const SHIM = fixture('bad-inputs', 'shim')
const results = { cases: 0, passed: 0 }

const cleanup = useCleanup()
const { webhook, registry } = useServers(
  {
    webhook: () => startWebhookServer(answer(200)),
    /** A registry on loopback for build-images, and the HTTP(S) proxy of every case: it counts. */
    registry: () => startWebhookServer(answer(404), '/v2/'),
  },
  cleanup,
)
let workRoot = ''
beforeAll(async () => {
  workRoot = await cleanup.tempDir('olympe-bad-')
})
afterAll(() => {
  // The suite's own tally, for the CI log.
  console.log(`malformed inputs: ${results.cases} cases, ${results.passed} passed`)
})

/** Valid inputs each case starts from, so that the case's own input is the only thing wrong. */
function baseInputs(action: ActionId): Record<string, string> {
  if (action === 'deploy') {
    return {
      'webhook-url': webhook.url,
      'webhook-token': 'corpus-token-1234',
      'frontend-image': 'reg.example.com/shop/frontend:1',
    }
  }
  if (action === 'build-images')
    return {
      registry: `127.0.0.1:${registry.port}`,
      'registry-username': 'ci',
      'registry-password': 'corpus-pass-1234',
    }
  return {
    config: 'res/snapshot-config.json',
    'toolkit-command': 'olympe snapshot',
    'draw-password': 'corpus-draw-1234',
  }
}

const VALID_SNAPSHOT_CONFIG = JSON.stringify([
  {
    snapshooter: {
      name: 'projects',
      rootTags: ['01850a59bb68c324907a'],
      outputDir: 'snapshot/projects',
    },
  },
])

/** The case's workspace, and the folder beside it that stands for anywhere outside it. */
async function workspaceFor(
  corpus: string,
  action: ActionId,
  index: number,
  badInput: BadInput,
): Promise<{ dir: string; outside: string }> {
  const dir = join(workRoot, `${corpus}-${index}`)
  const outside = join(workRoot, `${corpus}-${index}-outside`)
  await mkdir(dir, { recursive: true })
  const defaults: Record<string, string> =
    action === 'snapshot' ? { 'res/snapshot-config.json': VALID_SNAPSHOT_CONFIG } : {}
  const write = async (root: string, files: Record<string, string>): Promise<void> => {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true })
      await writeFile(join(root, path), content)
    }
  }
  await write(dir, { ...defaults, ...badInput.files })
  await write(outside, badInput.outside ?? {})
  for (const [path, target] of Object.entries(badInput.links ?? {})) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await symlink(target.replaceAll('{outside}', outside), join(dir, path))
  }
  return { dir, outside }
}

/** The secret inputs of a case (its own and the base ones), and the values it names. */
function secretsOf(
  action: ActionId,
  inputs: Record<string, string>,
  named: string[] = [],
): string[] {
  const definition = ACTION_DEFINITIONS.find((candidate) => candidate.id === action)
  const specs: Record<string, InputSpec> = definition?.inputs ?? {}
  const secretInputs = Object.entries(inputs)
    .filter(([name]) => specs[name] !== undefined && isWholeSecret(specs[name]))
    .map(([, value]) => value)
  return [...secretInputs, ...named].filter((value) => value.trim() !== '')
}

/** A push pipeline on the default branch: GitLab's variables say what a local run asks git. */
const GITLAB_PUSH = {
  GITLAB_CI: 'true',
  CI: 'true',
  CI_PIPELINE_SOURCE: 'push',
  CI_COMMIT_BRANCH: 'main',
  CI_DEFAULT_BRANCH: 'main',
  CI_COMMIT_SHA: '5e6f708192a3b4c5d6e7f8091a2b3c4d1a2b3c4d',
}

/** `olympe-deploy <command> --dotenv <file> <args>` with INPUT_ variables, as a GitLab job. */
async function runCliCase(
  cwd: string,
  badInput: BadInput,
  inputs: Record<string, string>,
  env: Record<string, string>,
): Promise<RunResult> {
  const dotenv = join(cwd, 'outputs.env')
  const vars: Record<string, string> = {
    ...GITLAB_PUSH,
    CI_PROJECT_DIR: cwd,
    HOME: process.env.HOME ?? '/root',
    LANG: 'C.UTF-8',
    ...env,
  }
  for (const [name, value] of Object.entries(inputs))
    vars[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] = value
  const command = badInput.command ?? badInput.action ?? ''
  const argv = [join(ROOT, 'bin/olympe-deploy.js'), command, '--dotenv', dotenv]
  const { code, stdout, stderr } = await capture(NODE24, [...argv, ...(badInput.args ?? [])], {
    env: vars,
    cwd,
    timeoutMs: 120_000,
  })
  const dotenvText = existsSync(dotenv) ? await readFile(dotenv, 'utf8') : ''
  return { code, stdout, stderr, outputs: {}, summary: '', files: { dotenv: dotenvText } }
}

/** The `::error` annotations as the runner reads them: data unescaped. */
function annotations(stdout: string): string {
  return runnerCommands(stdout)
    .filter((command) => command.command === 'error')
    .map((command) => command.data.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%'))
    .join('\n')
}

/** What a run of a case left: its result, its stand-ins' calls, and the servers' connections. */
interface CaseRun {
  run: RunResult
  calls: string
  connections: { webhook: number; registry: number }
}

/** One run of a case, counting what reached the stand-ins and the loopback servers. */
async function runCase(
  corpus: (typeof CORPORA)[number],
  badInput: BadInput,
  cwd: string,
  inputs: Record<string, string>,
  label: string,
): Promise<CaseRun> {
  const shimLog = join(cwd, `side-effects-${label}.log`)
  const before = { webhook: webhook.connections(), registry: registry.connections() }
  const env = {
    // A push has a commit: without it, build-images refuses {short-sha} whatever the case.
    GITHUB_SHA: '5e6f708192a3b4c5d6e7f8091a2b3c4d1a2b3c4d',
    PATH: `${SHIM}:${process.env.PATH ?? ''}`,
    SHIM_LOG: shimLog,
    // Any request to a server elsewhere would go through the loopback registry, and count.
    HTTPS_PROXY: `http://127.0.0.1:${registry.port}`,
    HTTP_PROXY: `http://127.0.0.1:${registry.port}`,
    ...badInput.env,
  }
  const action = corpus === 'cli' ? (badInput.action ?? 'deploy') : corpus
  const run =
    corpus === 'cli'
      ? await runCliCase(cwd, badInput, inputs, env)
      : await runAsGithub(action, {
          cwd,
          inputs,
          event: badInput.event ?? { name: 'push', ref: 'refs/heads/main' },
          env,
        })
  return {
    run,
    calls: existsSync(shimLog) ? await readFile(shimLog, 'utf8') : '',
    connections: {
      webhook: webhook.connections() - before.webhook,
      registry: registry.connections() - before.registry,
    },
  }
}

const NOTHING = { calls: '', connections: { webhook: 0, registry: 0 } }

for (const corpus of CORPORA) {
  const file = fixture('bad-inputs', `${corpus}.yml`)
  const cases = existsSync(file) ? (parse(await readFile(file, 'utf8')) as BadInput[]) : []

  describe(`malformed ${corpus === 'cli' ? 'command lines' : `${corpus} inputs`}`, () => {
    test.each(cases.map((c, index) => ({ ...c, index })))('$name', async (badInput) => {
      results.cases++
      const action = corpus === 'cli' ? (badInput.action ?? 'deploy') : corpus
      const { dir: cwd, outside } = await workspaceFor(corpus, action, badInput.index, badInput)
      const inputs = { ...baseInputs(action), ...badInput.inputs }
      const ran = await runCase(corpus, badInput, cwd, inputs, 'run')
      const { run } = ran
      expect({ code: run.code, stderr: run.stderr }).toEqual({
        code: badInput.code ?? 1,
        stderr: corpus === 'cli' ? expect.stringContaining('Error: ') : '',
      })
      const message = badInput.expect
        .replaceAll('{workspace}', cwd)
        .replaceAll('{outside}', outside)
      if (corpus === 'cli') expect(run.stderr).toContain(`Error: ${message}`)
      else expect(annotations(run.stdout)).toContain(message)
      // A value carrying `::set-output …` or `::error …` lines is shown, never run.
      expect(hostileCommands(`${run.stdout}\n${run.stderr}`)).toEqual([])
      expect({ calls: ran.calls, connections: ran.connections }).toEqual(NOTHING)
      const captured: Record<string, string> = {
        stdout: run.stdout,
        stderr: run.stderr,
        ...run.files,
      }
      if (corpus !== 'cli') {
        // The check phase alone: the same refusal, and nothing else.
        const checked = await runCase(
          corpus,
          badInput,
          cwd,
          { ...inputs, 'check-only': 'true' },
          'check-only',
        )
        const said = checked.run
        if (badInput.checkOnly === 'accepted') {
          expect(said.code).toBe(0)
          expect(said.stdout).toContain(CHECKED)
        } else {
          expect(said.code).toBe(1)
          expect(annotations(said.stdout)).toBe(annotations(run.stdout))
        }
        expect({ calls: checked.calls, connections: checked.connections }).toEqual(NOTHING)
        expect(said.outputs).toEqual({})
        for (const [name, text] of Object.entries({
          stdout: said.stdout,
          stderr: said.stderr,
          ...said.files,
        }))
          captured[`check-only ${name}`] = text
      }
      const secrets = secretsOf(
        action,
        { ...inputs, ...argvInputs(badInput.args) },
        badInput.secrets,
      )
      expect(findSecrets(captured, secrets)).toEqual([])
      results.passed++
    })
  })
}

/** `--name=value` and `--name value` pairs of a case's arguments, for the secret scan. */
function argvInputs(args: string[] = []): Record<string, string> {
  const given: Record<string, string> = {}
  args.forEach((arg, index) => {
    const match = /^--([a-z][a-z0-9-]*)(?:=([\s\S]*))?$/.exec(arg)
    if (match?.[1]) given[match[1]] = match[2] ?? args[index + 1] ?? ''
  })
  return given
}

test('the corpus holds at least 250 cases', async () => {
  let total = 0
  for (const corpus of CORPORA) {
    const file = fixture('bad-inputs', `${corpus}.yml`)
    if (existsSync(file)) total += (parse(await readFile(file, 'utf8')) as unknown[]).length
  }
  expect(total).toBeGreaterThanOrEqual(250)
})
