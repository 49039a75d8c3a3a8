import { describe, expect, test } from '@jest/globals'
import { withDefaults } from '../../../../src/core/definition.js'
import { checkDeploy } from '../../../../src/core/deploy/check.js'
import { deployDefinition, type DeployInputName } from '../../../../src/core/deploy/definition.js'
import { runDeploy } from '../../../../src/core/deploy/run.js'
import { InputError } from '../../../../src/core/shared/errors.js'
import type { HttpClient } from '../../../../src/core/shared/http.js'
import { countingFiles, frozenClock, memoryFiles } from '../../../helpers/memory-files.js'
import { recordingLogger } from '../../../helpers/recording.js'
import { deployPorts } from '../../../helpers/unit-fakes.js'

const BASE = '{"backends": {"deployRules": [{"source": "api", "target": ".*"}]}}'

function raw(given: Partial<Record<DeployInputName, string>>): Record<DeployInputName, string> {
  return withDefaults(deployDefinition, {
    'webhook-url': 'https://h.example/deploy/5e6f7a8b9c0d',
    'webhook-token': 'tok-9c8b7a6d5e',
    'verify-images': 'false',
    ...given,
  })
}

describe("deploy's check phase", () => {
  test('payload-file is read once, in the check; the run sends what it found and reads nothing', async () => {
    const files = countingFiles({ '/ws/p.json': BASE })
    const posted: string[] = []
    const http: HttpClient = {
      request: (request) => {
        posted.push(request.body ?? '')
        return Promise.resolve({
          status: 200,
          headers: {},
          body: '{"message":"success"}',
          bodyTruncated: false,
        })
      },
    }
    const ports = { ...deployPorts(http, frozenClock('2026-01-01T00:00:00Z')), files }
    const checked = await checkDeploy(
      raw({ 'payload-file': 'p.json', 'backend-images': 'r.io/shop/api:1' }),
      { parseYaml: JSON.parse },
      { workspace: '/ws' },
      ports,
    )
    expect(files.reads).toEqual(['text /ws/p.json'])
    expect(checked.payload.backends).toEqual({
      images: ['r.io/shop/api:1'],
      deployRules: [{ source: 'api', target: '.*' }],
    })
    files.closed = true
    await runDeploy(checked, {}, ports)
    expect(posted).toEqual([JSON.stringify(checked.payload)])
    expect(files.reads).toEqual(['text /ws/p.json'])
  })

  test('no image: refused by a run, taken to come later by check-only, which says so', async () => {
    const { logger, lines } = recordingLogger()
    const ports = { logger, files: memoryFiles({}), clock: frozenClock('2026-01-01T00:00:00Z') }
    const tools = { parseYaml: JSON.parse }
    const run = await checkDeploy(raw({}), tools, { workspace: '/ws' }, ports).catch(
      (error: unknown) => error,
    )
    expect(run).toBeInstanceOf(InputError)
    const checked = await checkDeploy(
      raw({ 'check-only': 'true' }),
      tools,
      { workspace: '/ws' },
      ports,
    )
    expect(checked.payload).toEqual({
      codeAsData: { updateMode: 'manual' },
      noDowntime: { promotionMode: 'manual' },
    })
    expect(lines).toContain(
      "No image is given: with 'check-only', the images are taken to come from the later jobs that build them. A run with none stops here, as there is nothing to deploy.",
    )
  })

  /** The check phase with a login, the images checked, and these images. */
  const checkLoginFor = (
    images: Partial<Record<DeployInputName, string>>,
  ): ReturnType<typeof checkDeploy> =>
    checkDeploy(
      raw({
        'verify-images': 'auto',
        'registry-username': 'ci',
        'registry-password': 'pw-123456',
        ...images,
      }),
      { parseYaml: JSON.parse },
      { workspace: '/ws' },
      {
        logger: recordingLogger().logger,
        files: memoryFiles({}),
        clock: frozenClock('2026-01-01T00:00:00Z'),
      },
    )

  test("the login's registry is decided here: two registries and no 'registry' are refused", async () => {
    const error = await checkLoginFor({
      'frontend-image': 'a.example/shop/frontend:1',
      'backend-images': 'b.example/shop/api:1',
    }).catch((reason: unknown) => reason)
    expect((error as InputError).input).toBe('registry')
  })

  test("one registry: the login is for it, and the check phase's result says so", async () => {
    const checked = await checkLoginFor({ 'frontend-image': 'a.example/shop/frontend:1' })
    expect(checked.login?.registry).toBe('a.example')
  })

  test.each([
    [
      'nothing can be pinned: warned here, on the references given',
      { 'pin-digests': 'false' },
      true,
    ],
    [
      'references may be pinned: judged by the run, on those it sends',
      { 'pin-digests': 'true' },
      false,
    ],
    [
      'check-only: warned here, as nothing runs',
      { 'pin-digests': 'true', 'check-only': 'true' },
      true,
    ],
  ])('the warning for a backend image no rule matches: %s', async (_name, given, warned) => {
    const { logger, annotations } = recordingLogger()
    const checked = await checkDeploy(
      raw({
        'verify-images': 'auto',
        'backend-images': 'r.io/shop/api:1',
        'deploy-rules': '[{"source": "^web", "target": ".*"}]',
        ...given,
      }),
      { parseYaml: JSON.parse },
      { workspace: '/ws' },
      { logger, files: memoryFiles({}), clock: frozenClock('2026-01-01T00:00:00Z') },
    )
    expect(annotations.map((warning) => warning.message)).toEqual(
      warned
        ? [
            "Backend image 'r.io/shop/api:1' matches no deploy rule's source ('^web'): the platform will not deploy it to any backend.",
          ]
        : [],
    )
    expect(checked.pinning).toBe(given['pin-digests'] === 'true' ? 'every' : 'none')
  })
})
