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

describe("deploy's check phase with 'built-images'", () => {
  const D = (char: string): string => `sha256:${char.repeat(64)}`
  const entry = (kind: string, reference: string, digest: string, name?: string): object => ({
    kind,
    ...(name ? { name } : {}),
    reference,
    references: [reference],
    digest,
    size: 1,
  })
  const LEGS = [
    JSON.stringify([entry('frontend', 'r.io/shop/frontend:1', D('f'))]),
    JSON.stringify([entry('backend', 'r.io/shop/backend-api:1', D('a'), 'api')]),
    JSON.stringify([entry('backend', 'r.io/shop/backend-worker:1', D('b'), 'worker')]),
  ].join('\n')
  const tools = { parseYaml: JSON.parse }
  const check = async (
    given: Partial<Record<DeployInputName, string>>,
    files: Record<string, string> = {},
  ): Promise<{ checked: Awaited<ReturnType<typeof checkDeploy>>; warnings: string[] }> => {
    const { logger, warnings } = recordingLogger()
    const ports = { logger, files: memoryFiles(files), clock: frozenClock('2026-01-01T00:00:00Z') }
    const checked = await checkDeploy(raw(given), tools, { workspace: '/ws' }, ports)
    return { checked, warnings }
  }
  const refusal = async (
    given: Partial<Record<DeployInputName, string>>,
    files: Record<string, string> = {},
  ): Promise<string> =>
    check(given, files).then(
      () => 'accepted',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    )

  test('the legs gathered: each image by its digest, one rule per named backend, no warning', async () => {
    const { checked, warnings } = await check({ 'built-images': LEGS })
    expect(checked.payload).toEqual({
      frontend: { image: `r.io/shop/frontend:1@${D('f')}` },
      backends: {
        images: [`r.io/shop/backend-api:1@${D('a')}`, `r.io/shop/backend-worker:1@${D('b')}`],
        deployRules: [
          { source: `^r\\.io/shop/backend-api(:1)?(@sha256:${'a'.repeat(64)})?$`, target: '^api$' },
          {
            source: `^r\\.io/shop/backend-worker(:1)?(@sha256:${'b'.repeat(64)})?$`,
            target: '^worker$',
          },
        ],
      },
      codeAsData: { updateMode: 'manual' },
      noDowntime: { promotionMode: 'manual' },
    })
    expect(checked.rulesFrom).toBe('built-images')
    expect(warnings).toEqual([])
  })

  test("'deploy-rules' given: sent as given, a warning for a named backend no rule gives an image", async () => {
    const rules = '[{"source": "backend-api", "target": "^api$"}]'
    const { checked, warnings } = await check({ 'built-images': LEGS, 'deploy-rules': rules })
    expect(checked.payload.backends?.deployRules).toEqual([
      { source: 'backend-api', target: '^api$' },
    ])
    expect(warnings).toEqual([
      `Backend image 'r.io/shop/backend-worker:1@${D('b')}' matches no deploy rule's source ('backend-api'): the platform will not deploy it to any backend.`,
      `The backend 'worker' of 'built-images' gets no image from 'deploy-rules': no rule whose target matches 'worker' has a source that matches a backend image of the payload, so the platform does not update it (its image is 'r.io/shop/backend-worker:1@${D('b')}'). Add a rule for it, or leave 'deploy-rules' empty to give each named backend its own image.`,
    ])
  })

  test("'deploy-rules' given: unnamed backend images may stand beside named ones", async () => {
    const { checked } = await check({
      'built-images': LEGS,
      'backend-images': 'r.io/shop/legacy:7',
      'deploy-rules': '[{"source": ".*", "target": ".*"}]',
    })
    expect(checked.payload.backends?.images).toEqual([
      `r.io/shop/backend-api:1@${D('a')}`,
      `r.io/shop/backend-worker:1@${D('b')}`,
      'r.io/shop/legacy:7',
    ])
  })

  test('refused: the frontend given twice; unnamed backend images beside named ones without rules', async () => {
    const legs = LEGS.length > 200 ? `${LEGS.slice(0, 200)}…` : LEGS
    expect(
      await refusal({
        'built-images': LEGS,
        'frontend-image': 'r.io/shop/frontend:0',
        'backend-images': 'r.io/shop/legacy:7',
      }),
    ).toBe(
      [
        `Invalid input 'built-images' '${legs}': lists a frontend image ('r.io/shop/frontend:1@${D('f')}'), and 'frontend-image' gives one too ('r.io/shop/frontend:0'); a deployment takes one: leave 'frontend-image' empty to deploy the image build-images built, or leave it out of 'built-images'.`,
        `Invalid input 'built-images' '${legs}': names backends ('api', 'worker'), and backend images have no name ('r.io/shop/legacy:7', from 'backend-images'): without 'deploy-rules', each named backend gets a rule for its own image only, and no rule would deploy those; give 'deploy-rules' for them all, or build every backend with a name (build-images' 'backends').`,
      ].join('\n'),
    )
  })

  test('refused: a payload file that gives images or rules; one that gives the modes is read', async () => {
    const file = '{"backends": {"images": ["r.io/x:1"]}, "frontend": {"image": "r.io/f:1"}}'
    expect(
      await refusal({ 'built-images': LEGS, 'payload-file': 'p.json' }, { '/ws/p.json': file }),
    ).toBe(
      "Invalid input 'payload-file' 'p.json': it gives frontend.image, backends.images, and 'built-images' is set: with 'built-images', the images come from it (and the inputs), and the deploy rules from 'deploy-rules' or its named backends; remove those keys from the file (it may still give the modes, 'extraArgs' and 'skipUpdateVersions'), or leave 'built-images' empty.",
    )
    const modes = '{"noDowntime": {"promotionMode": "auto"}, "extraArgs": ["--force-sync"]}'
    const { checked } = await check(
      { 'built-images': LEGS, 'payload-file': 'p.json' },
      { '/ws/p.json': modes },
    )
    expect(checked.payload.noDowntime).toEqual({ promotionMode: 'auto' })
    expect(checked.payload.extraArgs).toEqual(['--force-sync'])
    expect(checked.payload.frontend).toEqual({ image: `r.io/shop/frontend:1@${D('f')}` })
  })

  test('a target that backtracks on a backend name is refused, named as a target', async () => {
    const name = `${'a'.repeat(40)}-x`
    const legs = JSON.stringify([entry('backend', 'r.io/shop/backend-a:1', D('a'), name)])
    const rules = '[{"source": ".*", "target": "^(a+)+$"}]'
    expect(await refusal({ 'built-images': legs, 'deploy-rules': rules })).toBe(
      `Invalid input 'deploy-rules': at [0].target: matching the regular expression '^(a+)+$' against the backend name '${name}' took more than 250 ms on each of 3 tries and was stopped: the pattern backtracks catastrophically (nested quantifiers such as '(a+)+', or alternatives that overlap such as '(a|ab)*'); rewrite it so that each part of an image name can match in only one way, for example '^reg\\.example\\.com/shop/api:'.`,
    )
  })

  test('a skipped build-images ([]) deploys nothing, and says why', async () => {
    expect(await refusal({ 'built-images': '[]' })).toBe(
      "Nothing to deploy: 'built-images' lists no image (build-images skipped its run, or a leg built nothing), and no other image input is set.",
    )
  })

  test('the login is for the registry of the images build-images built', async () => {
    const { checked } = await check({
      'built-images': LEGS,
      'verify-images': 'true',
      'registry-username': 'ci',
      'registry-password': 'pw-5e6f7a',
    })
    expect(checked.login?.registry).toBe('r.io')
  })
})
