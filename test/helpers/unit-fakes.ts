// Set-ups the unit tests of one action share: a CI context and the ports of a run, all in memory.
import type { BuildImagesPorts } from '../../src/core/build-images/run.js'
import { withDefaults } from '../../src/core/definition.js'
import { checkDeploy } from '../../src/core/deploy/check.js'
import { deployDefinition, type DeployInputName } from '../../src/core/deploy/definition.js'
import { runDeploy, type DeployPorts } from '../../src/core/deploy/run.js'
import type { CiContext } from '../../src/core/shared/context.js'
import type { HttpClient } from '../../src/core/shared/http.js'
import type { Clock, Files, Summary } from '../../src/core/shared/ports.js'
import type { StepEnd } from '../../src/core/shared/step-end.js'
import { fakeBuilders, type FakeDocker } from './docker-fake.js'
import { failure, fakeNetwork, type FakeNetwork } from './fake-registry.js'
import { frozenClock, memoryFiles } from './memory-files.js'
import { recordingLogger, recordingTools, type Recorded } from './recording.js'

/** A push to main on GitHub, in the project folder /p. */
export const PUSH_TO_MAIN: CiContext = {
  platform: 'github',
  workspace: '/p',
  event: 'push',
  isPullRequest: false,
  branch: 'main',
  defaultBranch: 'main',
  sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
  repository: 'acme/shop',
  registryLoginHelp: 'Check the login.',
}

/**
 * build-images' ports around a fake builder: everything logged and reported is recorded, the
 * clock stands still, the registry API answers as `network` does (by default, no registry
 * answers, as offline).
 */
export function buildImagesPorts(
  docker: FakeDocker,
  files: Files,
  options: {
    builders?: BuildImagesPorts['builders']
    network?: FakeNetwork
    records?: BuildImagesPorts['records']
  } = {},
): BuildImagesPorts & Recorded {
  return {
    ...recordingTools(),
    redact: (text: string) => text,
    registerSecret: () => undefined,
    builders: options.builders ?? fakeBuilders(docker),
    files,
    clock: frozenClock('2026-11-22T10:00:00Z'),
    http: (options.network ?? fakeNetwork(() => failure('dns'))).http,
    signing: () => import('../../src/core/build-images/sign.js'),
    attesting: () => import('../../src/core/build-images/attest/attest.js'),
    cycloneDx: async () => (await import('../../src/core/attestations/sbom.js')).cycloneDxSbom,
    tool: { name: 'olympe-deploy-actions', version: '1.0.0' },
    ...(options.records ? { records: options.records } : {}),
  }
}

/** What a deploy run logged and reported, kept for the test to read. */
export interface DeployRecord {
  outputs: Record<string, string>
  summaries: Summary[]
  info: string[]
  warnings: string[]
}

/**
 * deploy's ports around the test's HTTP client and clock: what is logged and reported is
 * recorded, no file exists, and `redact` stands for the runner's masking (none by default).
 */
export function deployPorts(
  http: HttpClient,
  clock: Clock,
  redact: (text: string) => string = (text) => text,
): DeployPorts & DeployRecord {
  const { logger, infos: info, warnings } = recordingLogger()
  const { reporter, outputs, summaries } = recordingTools()
  return {
    logger,
    reporter,
    redact,
    clock,
    files: memoryFiles({}),
    registerSecret: () => undefined,
    dockerConfigPath: '/home/runner/.docker/config.json',
    http,
    outputs,
    summaries,
    info,
    warnings,
  }
}

/** The webhook every deploy unit test calls, and its token. */
export const WEBHOOK = { url: 'https://h.example/deploy/5e6f7a8b9c0d', token: 'tok-9c8b7a6d5e' }

/**
 * deploy checked then run as the action runs it, in the workspace /ws, with the inputs given
 * over the defaults and `WEBHOOK`.
 */
export async function checkAndRunDeploy(
  inputs: Partial<Record<DeployInputName, string>>,
  ports: DeployPorts,
): Promise<StepEnd> {
  const raw = withDefaults(deployDefinition, {
    'webhook-url': WEBHOOK.url,
    'webhook-token': WEBHOOK.token,
    ...inputs,
  })
  const checked = await checkDeploy(raw, { parseYaml: JSON.parse }, { workspace: '/ws' }, ports)
  return runDeploy(checked, {}, ports)
}
